package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// modFixture is a relocatable fixture (kmod-*.ko); the arm64 one needs
// clang, whose absence the skip-or-fail policy decides on.
func modFixture(t *testing.T, name string) string {
	t.Helper()
	app := fixture(t, "app-gcc-O2-dwarf5") // builds every variant it can
	p := filepath.Join(filepath.Dir(app), name)
	if _, err := os.Stat(p); err != nil {
		dwarftest.Skip(t, "fixture %s was not built (clang missing?): %v", name, err)
	}
	return p
}

// TestModuleFixture: -D, -L, -V and -F on a relocatable object, with the
// module name from .gnu.linkonce.this_module (kmodfix, not the file's
// kmod_gcc) and functions in .text, .init.text and .exit.text told apart.
// The -D answers are perf 6.1's (perf probe -m FILE -D SPEC).
func TestModuleFixture(t *testing.T) {
	gccKo := modFixture(t, "kmod-gcc.ko")
	src := filepath.Join("..", "..", "testdata", "fixtures")
	cases := []struct {
		name string
		args []string
		want string // exact stdout, or a substring when partial
		part bool
	}{
		{"entry", []string{"-D", "kmod_work"}, "p:probe/kmod_work kmodfix:kmod_work+0\n", false},
		{"line", []string{"-D", "kmod_work:5"}, "p:probe/kmod_work_L5 kmodfix:kmod_work+16\n", false},
		{"return", []string{"-D", "kmod_work%return $retval"}, "r:probe/kmod_work__return kmodfix:kmod_work+0 $retval\n", false},
		{"init text", []string{"-D", "kmod_init"}, "p:probe/kmod_init kmodfix:kmod_init+0\n", false},
		{"exit text", []string{"-D", "kmod_exit"}, "p:probe/kmod_exit kmodfix:kmod_exit+0\n", false},
		{"exit text return", []string{"-D", "kmod_exit%return"}, "r:probe/kmod_exit__return kmodfix:kmod_exit+0\n", false},
		{"arguments and globals", []string{"-D", "kmod_work p->name:string n kmod_count kmod_limit"},
			"p:probe/kmod_work kmodfix:kmod_work+0 name=+0(+0(%di)):string n=%si:s32 kmod_count=@kmod_count+0:s32 kmod_limit=@kmod_limit+0:s32\n", false},
		{"source line", []string{"-D", "kmod.c:36"}, "p:probe/kmod_work kmodfix:kmod_work+28\n", false},
		{"lazy", []string{"-s", src, "-D", "kmod_work;kmod_count++*"}, "p:probe/kmod_work kmodfix:kmod_work+28\n", false},
		{"-L", []string{"-s", src, "-L", "kmod_work"}, "      5  \t\tsum += p->id * n;\n      6  \t\tkmod_count++;\n", true},
		{"-V", []string{"-V", "kmod_work"}, "\t\tstruct kmod_item*\tp\n", true},
		{"absolute address", []string{"-D", "0x10010"}, "", false},
		{"-F", []string{"-F"}, "a.1\nb.0\nkmod_count\nkmod_exit\nkmod_init\nkmod_limit\nkmod_modinfo\nkmod_work\n", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := dw(append([]string{"-m", gccKo}, c.args...)...)
			if c.want == "" { // refused, as perf refuses it
				if err == nil || exitCode(err) != exitUnresolved {
					t.Fatalf("%q: %q, %v; want an unresolved probe", c.args, out, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.part && !strings.Contains(out, c.want) || !c.part && out != c.want {
				t.Errorf("dwprobe -m %s %q:\n%s\nwant (part=%v)\n%s", filepath.Base(gccKo), c.args, out, c.part, c.want)
			}
		})
	}
}

// TestModuleFixtureArm64: an arm64 relocatable object (clang's
// R_AARCH64_ABS64/ABS32 relocations) gives arm64 registers.
func TestModuleFixtureArm64(t *testing.T) {
	ko := modFixture(t, "kmod-clang-arm64.ko")
	for spec, want := range map[string]string{
		"kmod_work":                  "p:probe/kmod_work kmodfix:kmod_work+0\n",
		"kmod_init":                  "p:probe/kmod_init kmodfix:kmod_init+0\n",
		"kmod_work%return":           "r:probe/kmod_work__return kmodfix:kmod_work+0\n",
		"kmod_work p->name:string n": "p:probe/kmod_work kmodfix:kmod_work+0 name=+0(+0(%x0)):string n=%x1:s32\n",
	} {
		out, _, err := dw("-m", ko, "-D", spec)
		if err != nil || out != want {
			t.Errorf("-D %q: %q, %v; want %q", spec, out, err, want)
		}
	}
}

// TestModuleCompressed: compressed debug sections are relocated once
// decompressed.
func TestModuleCompressed(t *testing.T) {
	out, _, err := dw("-m", modFixture(t, "kmod-gcc-zlib.ko"), "-D", "kmod_work:5 p->name:string", "-D", "kmod_exit")
	if want := "p:probe/kmod_work_L5 kmodfix:kmod_work+16 name=+0(+0(%di)):string\np:probe/kmod_exit kmodfix:kmod_exit+0\n"; err != nil || out != want {
		t.Errorf("zlib module: %q, %v; want %q", out, err, want)
	}
}

// TestModuleNotRelocatable: -m with a file that is not a relocatable
// object says so, as an input error.
func TestModuleNotRelocatable(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	_, _, err := dw("-m", app, "-D", "work")
	if err == nil || !strings.Contains(err.Error(), "not a kernel module") || exitCode(err) != exitInput {
		t.Errorf("-m %s: %v (exit %d), want a not-a-kernel-module input error", app, err, exitCode(err))
	}
}

// debianModule is a module of the Debian 6.1 cloud kernel's -dbg package.
func debianModule(t *testing.T, arch, rel string) string {
	return dwarftest.NeedCorpus(t, arch+"/dbg/usr/lib/debug/lib/modules/"+dwarftest.CorpusRelease(t, arch)+"/kernel/"+rel)
}

// TestModuleCorpus: perf 6.1's answers (perf probe -m KO -D SPEC) on the
// Debian modules of both architectures, byte for byte.
func TestModuleCorpus(t *testing.T) {
	cases := []struct{ arch, ko, spec, want string }{
		{"amd64", "fs/overlayfs/overlay.ko", "ovl_lookup:8 dentry->d_name.name:string", "p:probe/ovl_lookup_L8 overlay:ovl_lookup+131 name=+0(+40(%r9)):string"},
		{"amd64", "fs/overlayfs/overlay.ko", "ovl_lookup%return $retval", "r:probe/ovl_lookup__return overlay:ovl_lookup+0 $retval"},
		{"amd64", "fs/overlayfs/overlay.ko", "ovl_init", "p:probe/ovl_init overlay:ovl_init+0"},
		{"amd64", "fs/overlayfs/overlay.ko", "ovl_exit", "p:probe/ovl_exit overlay:ovl_exit+0"},
		{"amd64", "drivers/block/loop.ko", "loop_exit%return $retval", "r:probe/loop_exit__return loop:loop_exit+0 $retval"},
		{"amd64", "fs/xfs/xfs.ko", "xfs_fs_fill_super fc", "p:probe/xfs_fs_fill_super xfs:xfs_fs_fill_super+0 fc=%si:x64"},
		{"amd64", "drivers/net/virtio_net.ko", "virtnet_poll budget", "p:probe/virtnet_poll virtio_net:virtnet_poll+0 budget=%si:s32"},
		{"arm64", "fs/overlayfs/overlay.ko", "ovl_lookup:8 dentry->d_name.name:string", "p:probe/ovl_lookup_L8 overlay:ovl_lookup+124 name=+0(+40(%x20)):string"},
		{"arm64", "fs/overlayfs/overlay.ko", "ovl_init", "p:probe/ovl_init overlay:ovl_init+8"},
		{"arm64", "fs/xfs/xfs.ko", "xfs_fs_fill_super fc", "p:probe/xfs_fs_fill_super xfs:xfs_fs_fill_super+8 fc=%x1:x64"},
		{"arm64", "drivers/net/virtio_net.ko", "virtnet_poll budget", "p:probe/virtnet_poll virtio_net:virtnet_poll+8 budget=%x1:s32"},
	}
	for _, c := range cases {
		t.Run(c.arch+"/"+c.spec, func(t *testing.T) {
			ko := debianModule(t, c.arch, c.ko)
			out, _, err := dw("-m", ko, "-D", c.spec)
			if err != nil || out != c.want+"\n" {
				t.Errorf("-m %s -D %q: %q, %v; want %q", c.ko, c.spec, out, err, c.want)
			}
		})
	}
}

// TestModuleCorpusFuncs: -F on a Debian module lists what perf's does
// (every symbol, data and labels included, not arm64's mapping symbols),
// each name once.
func TestModuleCorpusFuncs(t *testing.T) {
	arm := debianModule(t, "arm64", "fs/overlayfs/overlay.ko")
	if out, _, err := dw("-m", arm, "-F"); err != nil || strings.Contains(out, "$x\n") || strings.Contains(out, "$d\n") || !strings.Contains(out, "\novl_lookup\n") {
		t.Errorf("arm64 -F: %v; want functions without $x and $d", err)
	}
	ko := debianModule(t, "amd64", "fs/overlayfs/overlay.ko")
	out, _, err := dw("-m", ko, "-F", "ovl_aio*")
	if want := "ovl_aio_cleanup_handler\novl_aio_request_cache_destroy\novl_aio_request_cache_init\novl_aio_request_cachep\novl_aio_rw_complete\n"; err != nil || out != want {
		t.Errorf("-F ovl_aio*: %q, %v; want %q", out, err, want)
	}
}

// TestModuleSeparateDebuginfo: a stripped module as shipped finds the
// module of the -dbg package by build-id, and answers as it does.
func TestModuleSeparateDebuginfo(t *testing.T) {
	rel := dwarftest.CorpusRelease(t, "amd64") + "/kernel/fs/overlayfs/overlay.ko"
	stripped := dwarftest.NeedCorpus(t, "amd64/image/lib/modules/"+rel)
	dbg := debianModule(t, "amd64", "fs/overlayfs/overlay.ko")
	f, err := openModule(dbg)
	if err != nil {
		t.Fatal(err)
	}
	id := f.BuildID()
	f.Close()
	dir := t.TempDir()
	link := filepath.Join(dir, ".build-id", id[:2], id[2:]+".debug")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dbg, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DWPROBE_DEBUGINFO_PATH", dir)
	out, _, err := dw("-m", stripped, "-D", "ovl_lookup:8 dentry->d_name.name:string")
	if want := "p:probe/ovl_lookup_L8 overlay:ovl_lookup+131 name=+0(+40(%r9)):string\n"; err != nil || out != want {
		t.Errorf("stripped module: %q, %v; want %q", out, err, want)
	}
}

// TestModuleNotUnique: btrfs has two static fill_inode_item. perf writes
// btrfs:fill_inode_item+0 twice, which the kernel resolves to one copy
// twice; dwprobe names each copy from the closest unique symbol before
// it, as it writes _text+OFFSET in a vmlinux, and says so.
func TestModuleNotUnique(t *testing.T) {
	ko := debianModule(t, "amd64", "fs/btrfs/btrfs.ko")
	out, stderr, err := dw("-m", ko, "-D", "fill_inode_item%return")
	want := "r:probe/fill_inode_item__return btrfs:btrfs_set_inode_index_count+288\nr:probe/fill_inode_item__return btrfs:read_alloc_one_name+112\n"
	if err != nil || out != want {
		t.Errorf("-D fill_inode_item%%return: %q, %v; want %q", out, err, want)
	}
	if !strings.Contains(stderr, "note: fill_inode_item is not unique in the module (2 symbols); wrote btrfs_set_inode_index_count+288") {
		t.Errorf("stderr %q lacks the note", stderr)
	}
}

// TestModuleLocalData: a module global is read through @SYMBOL as perf
// writes it; a compiler-made local name (__func__.5, five in the module
// and hundreds in the vmlinux, which the kernel looks the name up in
// first) is read through a symbol of its section unique in the module,
// with a note.
func TestModuleLocalData(t *testing.T) {
	ko := debianModule(t, "amd64", "fs/overlayfs/overlay.ko")
	out, stderr, err := dw("-m", ko, "-D", "ovl_fill_super ovl_inode_cachep", "-D", "ovl_lookup __func__")
	want := "p:probe/ovl_fill_super overlay:ovl_fill_super+0 ovl_inode_cachep=@ovl_inode_cachep+0:x64\np:probe/ovl_lookup overlay:ovl_lookup+0 __func__=@ovl_xattr_table-400\n"
	if err != nil || out != want {
		t.Errorf("globals: %q, %v; want %q", out, err, want)
	}
	if strings.Contains(stderr, "@ovl_inode_cachep names") || !strings.Contains(stderr, "note: __func__.5 is not unique (5 in the module; the kernel looks @__func__.5 up in the vmlinux first, then in every module); wrote @ovl_xattr_table-400") {
		t.Errorf("stderr %q: want a note for __func__.5 only", stderr)
	}
}

// TestModulePositional: an absolute path to a .ko first among the words is
// the module to probe, as perf's set_target takes it.
func TestModulePositional(t *testing.T) {
	ko := modFixture(t, "kmod-gcc.ko")
	out, _, err := dw("-n", ko, "kmod_work", "n")
	if err != nil || !strings.Contains(out, "p:probe/kmod_work kmodfix:kmod_work+0 n=%si:s32\n") {
		t.Errorf("-n %s kmod_work n: %q, %v; want the module's kprobe", ko, out, err)
	}
}

// TestModuleNotes: a probe in a module's .init.text says when it can be
// defined, and one in a function without an ftrace call site (from the
// module's relocated __mcount_loc, or __patchable_function_entries on
// arm64) that the kernel refuses it, as for the vmlinux.
func TestModuleNotes(t *testing.T) {
	_, stderr, err := dw("-m", modFixture(t, "kmod-gcc.ko"), "-D", "kmod_init", "-D", "kmod_work")
	if err != nil || strings.Count(stderr, "note: ") != 1 || !strings.Contains(stderr, "note: kmod_init+0 is in the module's .init.text, which the kernel frees once the module has loaded") {
		t.Errorf("init text: %q, %v; want one note, on kmod_init", stderr, err)
	}
	for _, arch := range []string{"amd64", "arm64"} {
		ko := debianModule(t, arch, "fs/overlayfs/overlay.ko")
		// -v says the note of each copy; without, one note of a kind
		// says how many more copies it holds for.
		_, stderr, err := dw("-v", "-m", ko, "-D", "ovl_do_rename", "-D", "ovl_lookup")
		if err != nil || !strings.Contains(stderr, "note: ovl_do_rename (fs/overlayfs/overlayfs.h:281) is notrace (no ftrace call site: it is an out-of-line copy of an inline function) at ovl_do_rename+0") ||
			strings.Contains(stderr, "ovl_lookup") {
			t.Errorf("%s notrace: %q, %v; want ovl_do_rename's notes only", arch, stderr, err)
		}
		_, stderr, err = dw("-m", ko, "-D", "ovl_do_rename", "-D", "ovl_lookup")
		if err != nil || strings.Count(stderr, "note: ") != 2 || strings.Count(stderr, " is notrace ") != 1 || !strings.Contains(stderr, "(and 2 more points alike: -v says each)\n") {
			t.Errorf("%s notrace: %q, %v; want one note of each kind", arch, stderr, err)
		}
	}
}

// TestModuleGlobalKallsyms: a module global is read through @SYMBOL,
// which the kernel resolves through kallsyms: with -k the arm64 vmlinux
// (CONFIG_KALLSYMS_ALL off) it is refused, with the amd64 one written.
func TestModuleGlobalKallsyms(t *testing.T) {
	for _, c := range []struct{ arch, want, err string }{
		{"amd64", "p:probe/ovl_fill_super overlay:ovl_fill_super+0 ovl_inode_cachep=@ovl_inode_cachep+0:x64\n", ""},
		{"arm64", "", "the kernel's kallsyms lists no data symbols (CONFIG_KALLSYMS_ALL is off), so it cannot resolve @ovl_inode_cachep"},
	} {
		vmlinux := dwarftest.NeedCorpus(t, c.arch+"/vmlinux")
		ko := debianModule(t, c.arch, "fs/overlayfs/overlay.ko")
		out, _, err := dw("-k", vmlinux, "-m", ko, "-D", "ovl_fill_super ovl_inode_cachep")
		if c.err == "" && (err != nil || out != c.want) || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || exitCode(err) != exitUnresolved) {
			t.Errorf("%s: %q, %v; want %q or an unresolved error mentioning %q", c.arch, out, err, c.want, c.err)
		}
	}
}
