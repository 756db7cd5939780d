package dwarfres

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// TestModuleLayout: a relocatable object's allocated sections get
// distinct addresses from elfobj.ModuleBase, its symbols and DWARF use them, and
// its name comes from .gnu.linkonce.this_module.
func TestModuleLayout(t *testing.T) {
	for _, name := range []string{"kmod-gcc.ko", "kmod-clang-arm64.ko"} {
		t.Run(name, func(t *testing.T) {
			f, err := Open(needBin(t, name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if !f.IsModule() || f.ModuleName() != "kmodfix" {
				t.Fatalf("IsModule %v, ModuleName %q; want a module named kmodfix", f.IsModule(), f.ModuleName())
			}
			seen := map[uint64]string{}
			for _, sec := range []string{".text", ".init.text", ".exit.text"} {
				s := f.ELF.Section(sec)
				if s == nil || s.Addr < elfobj.ModuleBase || seen[s.Addr] != "" {
					t.Fatalf("%s: %+v; want a distinct address from %#x (seen %v)", sec, s, elfobj.ModuleBase, seen)
				}
				seen[s.Addr] = sec
			}
			for fn, sec := range map[string]string{"kmod_work": ".text", "kmod_init": ".init.text", "kmod_exit": ".exit.text"} {
				ps, err := f.FindProbes(Query{Function: exactName(fn), MaxProbes: 8})
				if err != nil || len(ps) != 1 {
					t.Fatalf("%s: %v, %v", fn, ps, err)
				}
				if got := f.SectionName(ps[0].Addr); got != sec || ps[0].Symbol != fn || ps[0].Offset != 0 {
					t.Errorf("%s: at %#x in %q as %s+%d; want its entry in %s", fn, ps[0].Addr, got, ps[0].Symbol, ps[0].Offset, sec)
				}
			}
		})
	}
}

// TestModuleFileName: the kernel's name of a module file, when the module
// carries none.
func TestModuleFileName(t *testing.T) {
	for in, want := range map[string]string{
		"/lib/modules/6.1/kernel/fs/overlayfs/overlay.ko": "overlay",
		"nf-tables.ko.xz":           "nf_tables",
		"virtio_net.ko.zst":         "virtio_net",
		filepath.Join("x", "plain"): "plain",
	} {
		if got := moduleFileName(in); got != want {
			t.Errorf("moduleFileName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRelocPagesDropped: the pages of an applied relocation section are
// given back, and read back from the file unchanged if read again.
func TestRelocPagesDropped(t *testing.T) {
	p := dwarftest.NeedCorpus(t, "amd64/dbg/usr/lib/debug/lib/modules/"+dwarftest.CorpusRelease(t, "amd64")+"/kernel/fs/overlayfs/overlay.ko")
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.section(".debug_info"); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	rs := f.ELF.Section(".rela.debug_info")
	if rs == nil {
		t.Fatal("no .rela.debug_info")
	}
	lo, hi := rs.Offset, rs.Offset+rs.FileSize
	if rs.FileSize < 2*uint64(os.Getpagesize()) {
		t.Fatalf(".rela.debug_info is only %d bytes: no whole page to drop", rs.FileSize)
	}
	if !bytes.Equal(f.RawSection(".rela.debug_info"), raw[lo:hi]) {
		t.Error(".rela.debug_info reads back changed after its pages were dropped")
	}
}

// TestInlineOwnParamByViews: at each inlined ovl_dentry_upper in 6.12's
// overlay.ko, dentry is the instance's own parameter, never the caller's
// variable of that name (ovl_nlink_end inlines it through
// ovl_cleanup_index, whose dentry is in the same register). At
// ovl_nlink_end and ovl_path_type its location list holds only at GCC
// location views of the instance's entry ([X, X) views 2-5): readable
// there, where perf (no views) finds none.
func TestInlineOwnParamByViews(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		ver, err := os.ReadFile(dwarftest.NeedCorpus(t, "6.12/"+arch+"/version"))
		if err != nil {
			t.Fatal(err)
		}
		p := dwarftest.NeedCorpus(t, filepath.Join("6.12", arch, "dbg/usr/lib/debug/lib/modules", string(bytes.TrimSpace(ver)), "kernel/fs/overlayfs/overlay.ko"))
		f, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := f.FindProbes(Query{Function: exactName("ovl_dentry_upper")})
		if err != nil || len(ps) < 3 {
			t.Fatalf("%s: FindProbes(ovl_dentry_upper) = %d probes, %v", arch, len(ps), err)
		}
		byViews := map[string]bool{}
		for _, pr := range ps {
			b, err := pr.Scope.bind()
			if err != nil {
				t.Fatal(err)
			}
			v, ok := b.Lookup("dentry")
			if !ok || v.t != b.t || v.i <= b.sc || v.i >= b.t.end(b.sc) {
				t.Errorf("%s: at %s: dentry is not the instance's own DIE (%v)", arch, pr.Func, ok)
				continue
			}
			if _, err := b.Location(v); err == nil && (pr.Func == "ovl_nlink_end" || pr.Func == "ovl_path_type") {
				byViews[pr.Func] = true
			}
		}
		if !byViews["ovl_nlink_end"] || !byViews["ovl_path_type"] {
			t.Errorf("%s: dentry read through location views at %v; want ovl_nlink_end and ovl_path_type", arch, byViews)
		}
	}
}
