package probegen

import (
	"debug/elf"
	"fmt"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// TestUprobeLocalEntry: on the static ppc64el app (gcc -O2), a uprobe at
// a function with a local entry (work: "lis r2; addi r2" then st_other's
// 8 bytes) goes to its local entry when the spec names no offset or +0,
// for %return too, and stays where an offset puts it; a function without
// one (compute uses no TOC) stays at its symbol. The x86_64 app is never
// moved.
func TestUprobeLocalEntry(t *testing.T) {
	bin := dwarftest.CrossFixture(t, "..", "ppc64el", "O2")
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	syms, err := ef.Symbols()
	ef.Close()
	if err != nil {
		t.Fatal(err)
	}
	lep := map[string]uint64{}
	start := map[string]uint64{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			lep[s.Name], start[s.Name] = arch.PPC64LE.LocalEntryOffset(s.Other), s.Value-0x10000000
		}
	}
	if lep["work"] != 8 || lep["compute"] != 0 {
		t.Fatalf("fixture: work's local entry %d, compute's %d; want 8 and 0", lep["work"], lep["compute"])
	}
	f, err := dwarfres.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, c := range []struct {
		spec string
		off  uint64
	}{
		{"work", start["work"] + 8},
		{"work+0", start["work"] + 8},
		{"work%return", start["work"] + 8},
		{"work p->id", start["work"] + 8},
		{"work+4", start["work"] + 4},
		{"work+12", start["work"] + 12},
		{"compute", start["compute"]},
		{"compute%return", start["compute"]},
	} {
		spec, err := grammar.ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		defs, _, err := Definitions(f, spec, bin, ResolveOptions{MaxProbes: 128})
		if err != nil {
			t.Errorf("%s: %v", c.spec, err)
			continue
		}
		want := fmt.Sprintf("%s:0x%x", bin, c.off)
		if len(defs) != 1 || !strings.HasPrefix(defs[0].Target, want) {
			t.Errorf("%s: %v, want one uprobe at %s", c.spec, defs, want)
		}
	}
	amd := dwarftest.Fixture(t, "..", "app-gcc-O2-dwarf5")
	af, err := dwarfres.Open(amd)
	if err != nil {
		t.Fatal(err)
	}
	defer af.Close()
	if got := uprobeLocalEntry(af, &grammar.Point{Function: "work"}, 0x1000); got != 0 {
		t.Errorf("x86_64: local entry %d, want 0", got)
	}
}

// TestAtLocalEntry: the point and its scope's address move together.
func TestAtLocalEntry(t *testing.T) {
	sc := &dwarfres.Scope{Addr: 0x1000}
	p := atLocalEntry(point{addr: 0x1000, scope: sc}, 8)
	if p.addr != 0x1008 || p.scope.Addr != 0x1008 || sc.Addr != 0x1000 {
		t.Errorf("moved to %#x, scope %#x, original scope %#x; want 0x1008, 0x1008, 0x1000", p.addr, p.scope.Addr, sc.Addr)
	}
	if p := atLocalEntry(point{addr: 0x2000}, 8); p.addr != 0x2008 || p.scope != nil {
		t.Errorf("without a scope: %+v", p)
	}
}
