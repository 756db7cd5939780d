package dwarfres

import "testing"

// TestPointMapperDecodesEachUnitOnce: mapping every byte of .text back
// (-l with thousands of probes) decodes each unit at most once, and
// answers as a one-shot ProbePointAt does. Before PointMapper, every
// address decoded its unit again: listing was a unit decode per probe.
func TestPointMapperDecodesEachUnitOnce(t *testing.T) {
	for _, v := range []string{"app-gcc-O2-dwarf5", "app-clang-O2-dwarf4", "app-gcc-O0-dwarf4"} {
		f, err := Open(needBin(t, v))
		if err != nil {
			t.Fatal(err)
		}
		text := f.ELF.Section(".text")
		units, err := f.unitsList()
		if err != nil {
			t.Fatal(err)
		}
		m := f.NewPointMapper()
		mapped := 0
		for round := 0; round < 2; round++ {
			for a := text.Addr; a < text.Addr+text.Size; a++ {
				got, ok, err := m.ProbePointAt(a)
				if round == 0 && a%7 == 0 {
					want, wok, werr := f.ProbePointAt(a)
					if got != want || ok != wok || (err == nil) != (werr == nil) {
						t.Fatalf("%s %#x: mapper %+v %v %v, one-shot %+v %v %v", v, a, got, ok, err, want, wok, werr)
					}
				}
				if ok {
					mapped++
				}
			}
		}
		if mapped == 0 || m.decoded == 0 {
			t.Fatalf("%s: nothing mapped", v)
		}
		if m.decoded != len(m.trees) || m.decoded > len(units) {
			t.Errorf("%s: %d lookups decoded %d units (%d distinct, %d in the file); want each unit once", v, mapped, m.decoded, len(m.trees), len(units))
		}
		f.Close()
	}
}

// TestRealFuncIndexMatchesScan: the sorted function spans find the same
// subprogram as perf's scan in DIE order, for every address of every unit.
func TestRealFuncIndexMatchesScan(t *testing.T) {
	for _, v := range variants {
		f, err := Open(needBin(t, v))
		if err != nil {
			t.Fatal(err)
		}
		units, _ := f.unitsList()
		text := f.ELF.Section(".text")
		for i := range units {
			if !units[i].holdsCode() {
				continue
			}
			tr, err := f.decodeUnit(&units[i])
			if err != nil {
				t.Fatal(err)
			}
			for a := text.Addr; a < text.Addr+text.Size; a++ {
				if got, want := tr.realFunc(a), realFuncScan(tr, a); got != want {
					t.Fatalf("%s unit %d %#x: realFunc %d, scan %d", v, i, a, got, want)
				}
			}
		}
		f.Close()
	}
}

// realFuncScan is die_find_realfunc as perf writes it: the first
// top-level subprogram in DIE order whose ranges hold pc.
func realFuncScan(t *cuTree, pc uint64) int {
	for i := 1; i < len(t.dies); i++ {
		d := &t.dies[i]
		if d.Depth == 1 && d.Tag == tagSubprogram && (d.HasLow || d.HasRanges) && t.hasPC(i, pc) {
			return i
		}
	}
	return -1
}
