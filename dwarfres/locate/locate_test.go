package locate

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// TestLocator pins the search: separate debuginfo by build-id under each
// directory in order, and a NotFoundError naming every place tried.
func TestLocator(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	p := filepath.Join(b, ".build-id", "ab", "cdef.debug")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	w := Wanted{Path: "bin", BuildID: "abcdef"}
	got, tried, err := find([]Source{BuildIDDir(a), BuildIDDir(b)}, w)
	want := []string{a + "/.build-id/ab/cdef.debug", p}
	if err != nil || got != p || !reflect.DeepEqual(tried, want) {
		t.Errorf("find = %q, %q, %v; want %q, %q", got, tried, err, p, want)
	}
	got, tried, _ = find([]Source{BuildIDDir(a)}, Wanted{Path: "bin"})
	if got != "" || len(tried) != 0 {
		t.Errorf("find without a build-id = %q, %q; want nothing tried", got, tried)
	}
	l := &Locator{Kernel: []Source{BuildIDDir(a)}}
	_, err = l.Vmlinux(Kernel{Release: "6.1.0", BuildID: "abcdef"})
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, ErrNoDebugInfo) || nf.Release != "6.1.0" || len(nf.Tried) != 1 {
		t.Errorf("Vmlinux = %v; want a NotFoundError for 6.1.0 with one place tried", err)
	}
}

// TestParseDebugLink decodes the section in both byte orders and refuses
// what is not one.
func TestParseDebugLink(t *testing.T) {
	le := []byte("app.debug\x00\x00\x00\x78\x56\x34\x12")
	if l, err := ParseDebugLink(le, binary.LittleEndian); err != nil || l != (DebugLink{"app.debug", 0x12345678}) {
		t.Errorf("little-endian = %+v, %v", l, err)
	}
	if l, err := ParseDebugLink(le, binary.BigEndian); err != nil || l.CRC != 0x78563412 {
		t.Errorf("big-endian = %+v, %v", l, err)
	}
	for _, bad := range []string{"", "\x00abc", "app.debug", "app.debug\x00\x00\x00\x78", "../x\x00\x00\x00\x00\x00\x00\x00"} {
		if _, err := ParseDebugLink([]byte(bad), binary.LittleEndian); !errors.Is(err, elfobj.ErrMalformed) {
			t.Errorf("ParseDebugLink(%q) = %v; want elfobj.ErrMalformed", bad, err)
		}
	}
}

// FuzzDebugLink: an error if and only if no name, never a panic, and a
// name never leaves its directory.
func FuzzDebugLink(f *testing.F) {
	f.Add([]byte("app.debug\x00\x00\x00\x78\x56\x34\x12"))
	f.Add([]byte("a\x00\x00\x00\x01\x02\x03\x04"))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseDebugLink(b, binary.LittleEndian)
		if (err == nil) == (l.Name == "") {
			t.Fatalf("ParseDebugLink = %+v, %v", l, err)
		}
		if strings.Contains(l.Name, "/") {
			t.Fatalf("name %q has a directory", l.Name)
		}
	})
}

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
		var de *elfobj.DecodeError
		if !errors.As(err, &de) || de.Offset != 2 {
			t.Errorf("ParseModulesDep(%q) = %v, want a elfobj.DecodeError on line 2", bad, err)
		}
	}
}

func FuzzModulesDep(f *testing.F) {
	f.Add("kernel/fs/overlayfs/overlay.ko:\nkernel/a-b.ko.xz: kernel/c.ko\n")
	f.Add(": x\n\n#c\n.ko:")
	f.Fuzz(func(t *testing.T, s string) {
		deps, err := ParseModulesDep(strings.NewReader(s))
		if err != nil && !errors.Is(err, elfobj.ErrMalformed) && !strings.Contains(err.Error(), "token too long") {
			t.Fatalf("error %v wraps neither elfobj.ErrMalformed nor the scanner's", err)
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
	if !errors.As(err, &nf) || !reflect.DeepEqual(nf.Tried, []string{filepath.Join(dir, "modules.dep"), dir, filepath.Join(root, "usr/lib/modules", rel)}) {
		t.Errorf("FindModule(nosuch) without modules.dep = %v", err)
	}
}

// TestFindModuleUsrMerged: a merged-/usr root keeps its modules in
// /usr/lib/modules; without the /lib -> usr/lib link (a root copied
// without it, a kmod built for /usr/lib/modules) they are found there,
// through modules.dep and without it, and /lib/modules wins when both
// have the release.
func TestFindModuleUsrMerged(t *testing.T) {
	rel := "6.12.118+deb13-cloud-amd64"
	for _, dep := range []string{"kernel/fs/overlayfs/overlay.ko.xz:\n", "-"} {
		root := modRoot(t, rel, dep, "kernel/fs/overlayfs/overlay.ko.xz")
		usr := filepath.Join(root, "usr/lib/modules")
		if err := os.MkdirAll(usr, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(root, "lib/modules", rel), filepath.Join(usr, rel)); err != nil {
			t.Fatal(err)
		}
		l := NewRootLocator(root)
		want := filepath.Join(usr, rel, "kernel/fs/overlayfs/overlay.ko.xz")
		if p, err := l.FindModule(rel, "overlay"); err != nil || p != want {
			t.Errorf("modules.dep %q: FindModule(overlay) = %q, %v; want %s", dep, p, err, want)
		}
		if d := l.ModuleDir(rel); d != filepath.Join(usr, rel) {
			t.Errorf("ModuleDir = %s", d)
		}
		lib := filepath.Join(root, "lib/modules", rel)
		if err := os.MkdirAll(lib, 0o755); err != nil {
			t.Fatal(err)
		}
		if d := l.ModuleDir(rel); d != lib {
			t.Errorf("ModuleDir with both = %s, want %s", d, lib)
		}
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

func TestAltCandidates(t *testing.T) {
	id := "b8c18a61d80b863a1aa24fbfe7e86475f04f052a"
	for _, c := range []struct {
		from, name string
		dirs       []string
		want       []string
	}{
		{"/bin/app", "../lib/common.debug", []string{"/usr/lib/debug"}, []string{
			"/lib/common.debug", "/usr/lib/debug/.build-id/b8/c18a61d80b863a1aa24fbfe7e86475f04f052a.debug", "/usr/lib/debug/.dwz/common.debug"}},
		{"/usr/lib/debug/.build-id/12/34.debug", "/usr/lib/debug/.dwz/x86_64-linux-gnu/libc6.debug", []string{"/mine", "/root/usr/lib/debug"}, []string{
			"/usr/lib/debug/.dwz/x86_64-linux-gnu/libc6.debug",
			"/mine/.build-id/b8/c18a61d80b863a1aa24fbfe7e86475f04f052a.debug", "/mine/.dwz/x86_64-linux-gnu/libc6.debug",
			"/root/usr/lib/debug/.build-id/b8/c18a61d80b863a1aa24fbfe7e86475f04f052a.debug", "/root/usr/lib/debug/.dwz/x86_64-linux-gnu/libc6.debug"}},
	} {
		if got := AltCandidates(c.from, c.name, id, c.dirs); !slices.Equal(got, c.want) {
			t.Errorf("AltCandidates(%s, %s) =\n%q\nwant\n%q", c.from, c.name, got, c.want)
		}
	}
}

// TestDebugLinkRelative: a binary named by a relative path finds its
// debuglink file under the global directory by its absolute directory,
// as gdb does; it used to look under GLOBAL/dl/ for dl/app.
func TestDebugLinkRelative(t *testing.T) {
	dir := t.TempDir()
	global := filepath.Join(dir, "debug")
	work := filepath.Join(dir, "work")
	dbg := filepath.Join(global, work, "dl", "app.debug")
	for _, p := range []string{filepath.Join(work, "dl", "app"), dbg} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("debuginfo"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	crc, err := fileCRC(dbg)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	link := &DebugLink{Name: "app.debug", CRC: crc}
	for _, bin := range []string{"dl/app", filepath.Join(work, "dl", "app")} {
		got, tried, err := DebugLinkDirs{Global: global}.Find(Wanted{Path: bin, Link: link})
		if err != nil || got != dbg {
			t.Errorf("Find(%s) = %q, %v; tried %q", bin, got, err, tried)
		}
	}
}
