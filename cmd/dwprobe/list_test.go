package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/listing"
	"github.com/dwprobe/dwprobe/tracefs"
)

// TestListOpensEachBinaryOnce: -l over 2,000 probes on two binaries
// opens each binary's debuginfo once (and no kernel's: no kprobe is
// listed), and each line is what mapping its probe alone gives. Mapping stays one lookup
// per probe (dwarfres.PointMapper decodes each unit once; see its test),
// so listing is linear in probes and binaries.
func TestListOpensEachBinaryOnce(t *testing.T) {
	bins := []string{fixture(t, "app-gcc-O2-dwarf5"), fixture(t, "app-gcc-O0-dwarf4")}
	fsys, _ := fakeTracefs(t)
	var lines []string
	for b, bin := range bins {
		f, err := dwarfres.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		text := f.ELF.Section(".text")
		f.Close()
		for i := 0; i < 1000; i++ {
			off := text.Offset + uint64(i)%text.Size
			lines = append(lines, fmt.Sprintf("p:b%d/e%d %s:%#x x=%%di", b, i, bin, off))
		}
	}
	if _, err := fsys.Add(parsedDefs(t, tracefs.UProbe, lines...)); err != nil {
		t.Fatal(err)
	}
	opens := map[string]int{}
	old := openDebuginfo
	t.Cleanup(func() { openDebuginfo = old })
	openDebuginfo = func(o *options) (*probegen.Target, error) {
		opens[o.exec+o.vmlinux]++
		return old(o)
	}
	noKernel := filepath.Join(t.TempDir(), "no-vmlinux")
	out, _, err := dw("-q", "-k", noKernel, "-l")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(got) != len(lines) {
		t.Fatalf("-l printed %d lines for %d probes", len(got), len(lines))
	}
	for _, bin := range bins {
		if opens[bin] != 1 {
			t.Errorf("%s opened %d times for 1000 probes; want once", bin, opens[bin])
		}
	}
	if len(opens) != len(bins) {
		t.Errorf("debuginfo opened: %v; want the two binaries only (no kprobes listed)", opens)
	}
	// -l sorts the listing: line i is the i-th definition in that order.
	evs, err := fsys.List(tracefs.UProbe)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(evs, func(a, b tracefs.Event) int { return strings.Compare(a.Raw, b.Raw) })
	for i := 0; i < len(evs); i += 97 {
		if want := listAlone(t, evs[i]); got[i] != want {
			t.Errorf("-l line %d:\n %s\nmapped alone:\n %s", i, got[i], want)
		}
	}
}

// listAlone is e's -l line mapped back with a File of its own.
func listAlone(t *testing.T, e tracefs.Event) string {
	t.Helper()
	tp, err := listing.ParseTracePoint(e.Target, true, false)
	if err != nil {
		t.Fatal(err)
	}
	f, err := dwarfres.Open(tp.Module)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return listing.EventLine(e.Group, e.Name, tp.Describe(f.NewPointMapper()), tp.Module, []string{"x"})
}
