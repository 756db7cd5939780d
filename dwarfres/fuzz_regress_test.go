package dwarfres

import (
	"debug/dwarf"
	"reflect"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// Regressions found by FuzzReaders; each crasher is also kept as a seed in
// testdata/fuzz/FuzzReaders.

// TestLinesInFileNumberPastTable: a line-table row naming a file number the
// file table has not got (FuzzReaders f232f2ce7a213cdc) is skipped by
// LinesIn, which used to index past the table and panic.
func TestLinesInFileNumberPastTable(t *testing.T) {
	secs, _ := synSections()
	v := dwarftest.D(dwarf.TagVariable, dwarftest.Name("v"), dwarftest.Type("int"), dwarftest.Loc(0x55))
	f := synFile(t, 4, synLocUnit(4, nil, v, false), secs)
	s := synScope(t, f, "f", 0x10)
	tr := synTree(t, s)
	tr.linesOnce.Do(func() {
		tr.lines = &lineTable{files: []string{"synth.c"}, rows: []lineRow{
			{Addr: 0x1008, File: 7, Line: 3, Stmt: true},
			{Addr: 0x1010, File: 0, Line: 5, Stmt: true},
			{Addr: 0x1040, EndSeq: true},
		}}
	})
	file, lines := s.LinesIn([]Range{{synLo, synEnd}}, 4)
	if file != "synth.c" || !reflect.DeepEqual(lines, []int{5}) {
		t.Errorf("LinesIn = %q, %v; want synth.c [5]", file, lines)
	}
}
