package main

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
		if got, err := resolveUnder(root, in); err != nil || got != want {
			t.Errorf("resolveUnder(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := resolveUnder(root, "/loop/app"); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("a symlink loop: %v; want ELOOP", err)
	}
	if _, err := resolveUnder(root, "/usr/bin/missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v; want ErrNotExist", err)
	}
}

// TestTargetNSUsage: --target-ns takes a process id and goes with -x
// alone, not --symfs: usage errors.
func TestTargetNSUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--target-ns", "abc", "-x", "/bin/true", "-D", "main"},
		{"--target-ns", "0", "-x", "/bin/true", "-D", "main"},
		{"--target-ns", "1", "-k", "/nonexistent/vmlinux", "-D", "vfs_read"},
		{"--target-ns", "1", "--symfs", "/", "-x", "/bin/true", "-D", "main"},
	} {
		_, _, err := dw(args...)
		if exitCode(err) != exitUsage {
			t.Errorf("%v: %v (exit %d); want a usage error", args, err, exitCode(err))
		}
	}
}
