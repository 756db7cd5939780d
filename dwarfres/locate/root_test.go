package locate

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestResolveUnder resolves paths inside a root as a process whose root
// it is: absolute symlinks from the root, ".." stopping at it, loops
// refused; never a host path.
func TestResolveUnder(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"usr/bin", "opt/app/bin"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "usr/bin/app"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"bin":             "usr/bin",        // relative, as merged /usr has it
		"opt/app/bin/app": "/usr/bin/app",   // absolute: from the root, not the host's /
		"opt/up":          "../../../../..", // climbs no higher than the root
		"loop":            "loop",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	for in, want := range map[string]string{
		"/usr/bin/app":              "/usr/bin/app",
		"/bin/app":                  "/usr/bin/app",
		"/opt/app/bin/app":          "/usr/bin/app",
		"/opt/up/usr/bin/app":       "/usr/bin/app",
		"/usr/../../usr/./bin//app": "/usr/bin/app",
		"/":                         "/",
	} {
		if got, err := ResolveUnder(root, in); err != nil || got != want {
			t.Errorf("ResolveUnder(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ResolveUnder(root, "/loop/app"); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("a symlink loop: %v; want ELOOP", err)
	}
	if _, err := ResolveUnder(root, "/usr/bin/missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v; want ErrNotExist", err)
	}
}

// TestInner takes a root off a path by components: a sibling whose name
// starts like the root, or a name starting with "..", is no mistake.
func TestInner(t *testing.T) {
	for _, c := range []struct {
		root, p, want string
		ok            bool
	}{
		{"/r", "/r/usr/bin/app", "/usr/bin/app", true},
		{"/r", "/r/..x/app", "/..x/app", true},
		{"/r", "/rx/app", "", false},
		{"/r", "/usr/bin", "", false},
		{"/r", "rel", "", false},
	} {
		if got, ok := Inner(c.root, c.p); got != c.want || ok != c.ok {
			t.Errorf("Inner(%s, %s) = %q, %v; want %q, %v", c.root, c.p, got, ok, c.want, c.ok)
		}
	}
}
