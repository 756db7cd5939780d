package dwarfres

import (
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestAskedAnswersEarly: a Query's Asked addresses get their FuncAt and
// ProbePointAt answers while their unit is decoded, the same answers a
// File that never ran the query gives.
func TestAskedAnswersEarly(t *testing.T) {
	for _, v := range []string{"app-gcc-O2-dwarf5", "app-clang-O2-dwarf5", "app-gcc-O0-dwarf4"} {
		checkAsked(t, needBin(t, v), "work", func(uint64) bool { return true })
	}
}

// TestAskedAnswersEarlyKernel is TestAskedAnswersEarly for a probe in a
// thousand units, most of which the tree cache lets go before the
// answers are asked for.
func TestAskedAnswersEarlyKernel(t *testing.T) {
	path := dwarftest.NeedCorpus(t, "6.12/amd64/vmlinux")
	checkAsked(t, path, "kmalloc_noprof", func(a uint64) bool { return a%16 == 3 })
}

func checkAsked(t *testing.T, path, fn string, asked func(uint64) bool) {
	t.Helper()
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ps, err := f.FindProbes(Query{Function: exactName(fn), MaxProbes: 100000, Asked: asked})
	if err != nil || len(ps) == 0 {
		t.Fatalf("%s: %s: %v %v", path, fn, ps, err)
	}
	fresh, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	n := 0
	for _, p := range ps {
		if !asked(p.Addr) {
			continue
		}
		n++
		if _, ok := f.asked.get(p.Addr); !ok {
			t.Errorf("%s: %#x: not answered early", path, p.Addr)
		}
		fd, ok, err := f.FuncAt(p.Addr)
		wfd, wok, werr := fresh.FuncAt(p.Addr)
		if fd != wfd || ok != wok || err != werr {
			t.Errorf("%s: FuncAt(%#x) = %+v, %v, %v; want %+v, %v, %v", path, p.Addr, fd, ok, err, wfd, wok, werr)
		}
		pt, ok, err := f.ProbePointAt(p.Addr)
		wpt, wok, werr := fresh.ProbePointAt(p.Addr)
		if pt != wpt || ok != wok || err != werr {
			t.Errorf("%s: ProbePointAt(%#x) = %+v, %v, %v; want %+v, %v, %v", path, p.Addr, pt, ok, err, wpt, wok, werr)
		}
	}
	if n == 0 {
		t.Fatalf("%s: %s: no probe asked about", path, fn)
	}
}
