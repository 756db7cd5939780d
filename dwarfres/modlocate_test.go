package dwarfres

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

func TestModuleName(t *testing.T) {
	for _, c := range []struct {
		path, name string
		ok         bool
	}{
		{"kernel/fs/overlayfs/overlay.ko", "overlay", true},
		{"nf-tables.ko.xz", "nf_tables", true},
		{"/x/virtio_net.ko.zst", "virtio_net", true},
		{"a.ko.gz", "a", true},
		{".ko", "", false},
		{"vmlinux", "", false},
		{"overlay.ko.bz2", "", false},
	} {
		n, ok := ModuleName(c.path)
		if n != c.name || ok != c.ok {
			t.Errorf("ModuleName(%q) = %q, %v; want %q, %v", c.path, n, ok, c.name, c.ok)
		}
	}
	for arg, want := range map[string]bool{"overlay": false, "nf-tables": false, "overlay.ko": true, "./m": true, "/a/b.ko.xz": true} {
		if got := IsModulePath(arg); got != want {
			t.Errorf("IsModulePath(%q) = %v", arg, got)
		}
	}
}

func TestParseModulesDep(t *testing.T) {
	in := "kernel/fs/overlayfs/overlay.ko:\n" +
		"kernel/net/netfilter/nf_tables.ko.xz: kernel/net/netfilter/nfnetlink.ko.xz kernel/lib/libcrc32c.ko.xz\n" +
		"\n/lib/modules/6.1/extra/my-mod.ko: \n"
	got, err := ParseModulesDep(strings.NewReader(in))
	want := []ModuleDep{
		{Name: "overlay", Path: "kernel/fs/overlayfs/overlay.ko"},
		{Name: "nf_tables", Path: "kernel/net/netfilter/nf_tables.ko.xz", Deps: []string{"kernel/net/netfilter/nfnetlink.ko.xz", "kernel/lib/libcrc32c.ko.xz"}},
		{Name: "my_mod", Path: "/lib/modules/6.1/extra/my-mod.ko"},
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseModulesDep = %+v, %v; want %+v", got, err, want)
	}
	for _, bad := range []string{"kernel/a.ko\n", "notamodule: x.ko\n"} {
		_, err := ParseModulesDep(strings.NewReader("kernel/b.ko:\n" + bad))
		var de *DecodeError
		if !errors.As(err, &de) || de.Offset != 2 {
			t.Errorf("ParseModulesDep(%q) = %v, want a DecodeError on line 2", bad, err)
		}
	}
}

func FuzzModulesDep(f *testing.F) {
	f.Add("kernel/fs/overlayfs/overlay.ko:\nkernel/a-b.ko.xz: kernel/c.ko\n")
	f.Add(": x\n\n#c\n.ko:")
	f.Fuzz(func(t *testing.T, s string) {
		deps, err := ParseModulesDep(strings.NewReader(s))
		if err != nil && !errors.Is(err, ErrMalformed) && !strings.Contains(err.Error(), "token too long") {
			t.Fatalf("error %v wraps neither ErrMalformed nor the scanner's", err)
		}
		for _, d := range deps {
			if n, ok := ModuleName(d.Path); !ok || n != d.Name || strings.Contains(d.Name, "-") {
				t.Fatalf("entry %+v: name not the path's", d)
			}
		}
	})
}

// modRoot makes a system root with release rel's modules.dep (when dep is
// not "-") listing files, each created.
func modRoot(t *testing.T, rel, dep string, files ...string) string {
	root := t.TempDir()
	dir := filepath.Join(root, "lib/modules", rel)
	for _, f := range files {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	if dep != "-" {
		os.WriteFile(filepath.Join(dir, "modules.dep"), []byte(dep), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "modules.builtin"), []byte("kernel/fs/ext4/ext4.ko\n"), 0o644)
	return root
}

// TestFindModule finds a module by name as modprobe does (through
// modules.dep, '-' and '_' alike), by searching the directory without
// modules.dep as perf does, and names where it looked when it can't.
func TestFindModule(t *testing.T) {
	rel := "6.1.0-56-cloud-amd64"
	root := modRoot(t, rel, "kernel/net/nf_tables.ko.xz:\nkernel/fs/overlayfs/overlay.ko:\n",
		"kernel/net/nf_tables.ko.xz", "kernel/fs/overlayfs/overlay.ko")
	l := NewRootLocator(root)
	dir := filepath.Join(root, "lib/modules", rel)
	for name, want := range map[string]string{"nf-tables": "kernel/net/nf_tables.ko.xz", "overlay": "kernel/fs/overlayfs/overlay.ko"} {
		if p, err := l.FindModule(rel, name); err != nil || p != filepath.Join(dir, want) {
			t.Errorf("FindModule(%s) = %q, %v", name, p, err)
		}
	}
	_, err := l.FindModule(rel, "nosuch")
	var nf *ModuleNotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, ErrModuleNotFound) || !reflect.DeepEqual(nf.Tried, []string{filepath.Join(dir, "modules.dep")}) {
		t.Errorf("FindModule(nosuch) = %v", err)
	}
	if _, err := l.FindModule(rel, "ext4"); !errors.As(err, &nf) || !nf.Builtin || !strings.Contains(err.Error(), "built into kernel "+rel) {
		t.Errorf("FindModule(ext4) = %v, want built in", err)
	}

	root = modRoot(t, rel, "-", "kernel/fs/overlayfs/overlay.ko")
	l = NewRootLocator(root)
	dir = filepath.Join(root, "lib/modules", rel)
	if p, err := l.FindModule(rel, "overlay"); err != nil || p != filepath.Join(dir, "kernel/fs/overlayfs/overlay.ko") {
		t.Errorf("FindModule without modules.dep = %q, %v", p, err)
	}
	_, err = l.FindModule(rel, "nosuch")
	if !errors.As(err, &nf) || !reflect.DeepEqual(nf.Tried, []string{filepath.Join(dir, "modules.dep"), dir}) {
		t.Errorf("FindModule(nosuch) without modules.dep = %v", err)
	}
}

// TestModuleDebugTree finds a module's debuginfo at its installed path
// under the tree (.debug appended as Fedora does), or, for a copy, by name
// under its release.
func TestModuleDebugTree(t *testing.T) {
	rel := "6.1.0-56-cloud-amd64"
	deb := modRoot(t, rel, "-", "kernel/fs/overlayfs/overlay.ko")
	fed := modRoot(t, rel, "-", "kernel/fs/overlayfs/overlay.ko.debug")
	dbg := filepath.Join(deb, "lib/modules", rel, "kernel/fs/overlayfs/overlay.ko")
	for _, c := range []struct {
		tree ModuleDebugTree
		w    Wanted
		want string
	}{
		{ModuleDebugTree(deb), Wanted{Path: "/lib/modules/" + rel + "/kernel/fs/overlayfs/overlay.ko.xz", Module: "overlay"}, dbg},
		{ModuleDebugTree(deb), Wanted{Path: "/tmp/overlay.ko", Module: "overlay", Release: rel}, dbg},
		{ModuleDebugTree(fed), Wanted{Path: "/sysroot/lib/modules/" + rel + "/kernel/fs/overlayfs/overlay.ko", Module: "overlay"}, dbg[len(deb):] + ".debug"},
		{ModuleDebugTree(deb), Wanted{Path: "/tmp/x.ko", Module: "x", Release: rel}, ""},
		{ModuleDebugTree(deb), Wanted{Path: "/tmp/vmlinux"}, ""},
	} {
		p, tried, err := c.tree.Find(c.w)
		want := c.want
		if want != "" && !strings.HasPrefix(want, string(c.tree)) {
			want = string(c.tree) + want
		}
		if err != nil || p != want || (p == "" && c.w.Module != "" && len(tried) == 0) {
			t.Errorf("%s.Find(%+v) = %q, %q, %v; want %q", c.tree, c.w, p, tried, err, want)
		}
	}
}

// TestLocatorStrippedModule attaches the -dbg package's debuginfo to the
// image's stripped overlay.ko: by its installed path, and for a copy of it
// by its name and vermagic, the build-id checked either way; a tree
// without it is named in the error.
func TestLocatorStrippedModule(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		rel := "lib/modules/" + corpusRelease(t, arch) + "/kernel/fs/overlayfs/overlay.ko"
		mod := dwarftest.NeedCorpus(t, arch+"/image/"+rel)
		dbg := dwarftest.NeedCorpus(t, arch+"/dbg/usr/lib/debug")
		for _, p := range []string{mod, dwarftest.CopyFile(t, mod, filepath.Join(t.TempDir(), filepath.Base(mod)), 0o644)} {
			f, err := NewLocator(dbg).Open(p)
			if err != nil {
				t.Fatalf("%s: %v", arch, err)
			}
			if f.dbg == nil || f.dbg.Path != filepath.Join(dbg, rel) || !f.HasDWARF() {
				t.Errorf("%s: %s attached %v", arch, p, f.dbg)
			}
			f.Close()
		}
		_, err := NewLocator(t.TempDir()).Open(mod)
		var nf *NotFoundError
		if !errors.As(err, &nf) || !strings.Contains(err.Error(), "/lib/modules/"+rel[len("lib/modules/"):]) {
			t.Errorf("%s: without debuginfo: %v", arch, err)
		}
	}
}

// corpusRelease is the release the corpus's image installs modules for.
func corpusRelease(t *testing.T, arch string) string {
	es, err := os.ReadDir(dwarftest.NeedCorpus(t, arch+"/image/lib/modules"))
	if err != nil || len(es) != 1 {
		t.Fatalf("%s image: %d module releases, %v", arch, len(es), err)
	}
	return es[0].Name()
}

// TestKernelRelease reads each corpus vmlinux's release from its banner:
// the release its image installs modules for.
func TestKernelRelease(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		f, err := Open(dwarftest.NeedCorpus(t, arch+"/vmlinux"))
		if err != nil {
			t.Fatal(err)
		}
		rel, ok := f.KernelRelease()
		f.Close()
		if want := corpusRelease(t, arch); !ok || rel != want {
			t.Errorf("%s: KernelRelease = %q, %v; want %q", arch, rel, ok, want)
		}
	}
}
