package probegen

import (
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen/grammar"
)

// TestPointBoundaryAnySource: a point's offset in its symbol is checked
// for an instruction boundary wherever it came from, not only when the
// user typed +OFFS: a wrong symbol map (an index that lied) once printed
// work+1 with exit 0. Offsets on a boundary pass; -V (anyOffset) checks
// nothing.
func TestPointBoundaryAnySource(t *testing.T) {
	f, err := dwarfres.Open(dwarftest.Fixture(t, "..", "app-gcc-O2-dwarf5"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	work := f.Symbols().Lookup("work")
	if len(work) != 1 {
		t.Fatalf("work: %v", work)
	}
	at := func(off uint64) dwarfres.Probe {
		return dwarfres.Probe{Addr: work[0].Start + off, Symbol: "work", Offset: off, InText: true}
	}
	p := &grammar.Point{Function: "work"}
	cases := []struct {
		o    ResolveOptions
		off  uint64
		want string
	}{
		{ResolveOptions{}, 2, "work+2 is in the middle of an instruction (instructions start at work+1 and work+4)"},
		{ResolveOptions{}, 3, "work+3 is in the middle of an instruction"},
		{ResolveOptions{}, 1, ""}, // mov %rsp,%rbp
		{ResolveOptions{}, 4, ""}, // push %rbx
		{ResolveOptions{}, 0, ""},
		{ResolveOptions{anyOffset: true}, 2, ""},
	}
	for _, c := range cases {
		err := checkPointBoundary(&c.o, f, p, at(c.off))
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("work+%d (anyOffset %v): %v, want %q", c.off, c.o.anyOffset, err, c.want)
		}
	}
}
