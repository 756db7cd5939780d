package dwarfres

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestRelocKinds: each relocation type debug sections use writes S+A (or
// S+A-P) in its size, little-endian, truncated.
func TestRelocKinds(t *testing.T) {
	const sym, addend, p = 0x10040, 0x1c, 0x20
	cases := []struct {
		m    elf.Machine
		typ  uint32
		want []byte
	}{
		{elf.EM_X86_64, uint32(elf.R_X86_64_64), []byte{0x5c, 0, 1, 0, 0, 0, 0, 0}},
		{elf.EM_X86_64, uint32(elf.R_X86_64_32), []byte{0x5c, 0, 1, 0}},
		{elf.EM_X86_64, uint32(elf.R_X86_64_32S), []byte{0x5c, 0, 1, 0}},
		{elf.EM_X86_64, uint32(elf.R_X86_64_PC32), []byte{0x3c, 0, 1, 0}},
		{elf.EM_X86_64, uint32(elf.R_X86_64_PC64), []byte{0x3c, 0, 1, 0, 0, 0, 0, 0}},
		{elf.EM_AARCH64, uint32(elf.R_AARCH64_ABS64), []byte{0x5c, 0, 1, 0, 0, 0, 0, 0}},
		{elf.EM_AARCH64, uint32(elf.R_AARCH64_ABS32), []byte{0x5c, 0, 1, 0}},
		{elf.EM_AARCH64, uint32(elf.R_AARCH64_ABS16), []byte{0x5c, 0}},
		{elf.EM_AARCH64, uint32(elf.R_AARCH64_PREL64), []byte{0x3c, 0, 1, 0, 0, 0, 0, 0}},
		{elf.EM_AARCH64, uint32(elf.R_AARCH64_PREL32), []byte{0x3c, 0, 1, 0}},
		{elf.EM_AARCH64, uint32(elf.R_AARCH64_PREL16), []byte{0x3c, 0}},
	}
	f := &File{Order: binary.LittleEndian}
	for _, c := range cases {
		k, ok := relocKinds[c.m][c.typ]
		if !ok {
			t.Errorf("%v type %d: not supported", c.m, c.typ)
			continue
		}
		out := make([]byte, 8)
		f.writeUint(out, k.size, k.value(sym, addend, p))
		if got := out[:len(c.want)]; !bytes.Equal(got, c.want) || k.size != len(c.want) {
			t.Errorf("%v type %d: wrote % x (%d bytes), want % x", c.m, c.typ, got, k.size, c.want)
		}
	}
	if _, ok := relocKinds[elf.EM_X86_64][uint32(elf.R_X86_64_GOTPCREL)]; ok {
		t.Error("R_X86_64_GOTPCREL is accepted; a debug section never uses it, and it cannot be applied offline")
	}
}

// TestModuleLayout: a relocatable object's allocated sections get
// distinct addresses from moduleBase, its symbols and DWARF use them, and
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
				if s == nil || s.Addr < moduleBase || seen[s.Addr] != "" {
					t.Fatalf("%s: %+v; want a distinct address from %#x (seen %v)", sec, s, moduleBase, seen)
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
	p := dwarftest.NeedCorpus(t, "amd64/dbg/usr/lib/debug/lib/modules/6.1.0-56-cloud-amd64/kernel/fs/overlayfs/overlay.ko")
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
	if !bytes.Equal(f.data[lo:hi], raw[lo:hi]) {
		t.Error(".rela.debug_info reads back changed after its pages were dropped")
	}
}

// TestKallsymsHasData: a kallsyms listing with data symbols by the
// thousand is CONFIG_KALLSYMS_ALL's; a few (per-CPU bounds) are not;
// an unreadable one is taken as listing them.
func TestKallsymsHasData(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data int) string {
		var b strings.Builder
		b.WriteString("ffffffff81000000 T _text\n")
		for i := 0; i < data; i++ {
			fmt.Fprintf(&b, "ffffffff82000%03x d sym%d\n", i, i)
		}
		b.WriteString("ffffffffc0000000 t ovl_lookup\t[overlay]\n")
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		path string
		want bool
	}{
		{write("all", 1001), true},
		{write("few", 74), false},
		{filepath.Join(dir, "missing"), true},
	} {
		if got := kallsymsHasData(c.path); got != c.want {
			t.Errorf("kallsymsHasData(%s) = %v, want %v", filepath.Base(c.path), got, c.want)
		}
	}
}
