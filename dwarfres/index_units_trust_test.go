package dwarfres

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"
)

// dropEntry removes name's entry and its postings from table tab, if it
// has one, the offsets of the entries after it moved down: a rewrite as
// consistent as the build's.
func dropEntry(ix *Index, tab int, name string) {
	t := &ix.tabs[tab]
	le := binary.LittleEndian
	for i := 0; i < t.len(); i++ {
		n, _, _, _ := ix.entry(t, i)
		if string(n) != name {
			continue
		}
		po := le.Uint32(t.ents[i*entSize+8:])
		end := uint32(len(t.posts))
		if i+1 < t.len() {
			end = le.Uint32(t.ents[(i+1)*entSize+8:])
		}
		t.posts = append(t.posts[:po:po], t.posts[end:]...)
		t.ents = append(t.ents[:i*entSize:i*entSize], t.ents[(i+1)*entSize:]...)
		for j := i; j < t.len(); j++ {
			le.PutUint32(t.ents[j*entSize+8:], le.Uint32(t.ents[j*entSize+8:])-(end-po))
		}
		return
	}
}

// cutPostings sets the count of name's postings in every table to n,
// leaving the bytes of the others where they were.
func cutPostings(ix *Index, name string, n uint32) {
	for tab := range ix.tabs {
		t := &ix.tabs[tab]
		for i := 0; i < t.len(); i++ {
			if nm, _, cnt, _ := ix.entry(t, i); string(nm) == name && cnt > int(n) {
				binary.LittleEndian.PutUint32(t.ents[i*entSize+12:], n)
			}
		}
	}
}

// TestIndexUnitLevelLies: an index of the right binary whose unit-level
// data was rewritten, its checksum recomputed (issue 34, finding 5: a
// posting list cut to 10 of its units dropped 1,797 of kmalloc's 1,810
// inlined points, exit 0, no note; an emptied file table or a unit
// header record off by one failed valid line and variable specs until
// the file was deleted), changes no answer: a posting list that does not
// fill its space is caught as it is read, a unit record is checked
// against the header .debug_info has (and the index rebuilt), and a
// name or file the index does not know is looked for by the scan before
// "not found". Each rewrite but the consistent ones is reported.
func TestIndexUnitLevelLies(t *testing.T) {
	bin := needBin(t, "app-gcc-O2-dwarf5")
	queries := []Query{
		{Function: exactName("clampi")}, // inline-only, in every unit
		{Function: exactName("item_score")},
		{Function: exactName("work")},
		{Function: namePattern("clamp*")},
		{File: "app_util2.c", Line: 52, HasLine: true},
	}
	lines := []LineQuery{
		{File: "app_util2.c", Start: 1, End: math.MaxInt32},
		{Function: "clampi", End: math.MaxInt32},
	}
	cases := []struct {
		name     string
		edit     func(ix *Index)
		reported bool
	}{
		{"inline postings cut", func(ix *Index) { cutPostings(ix, "clampi", 1) }, true},
		{"postings cut", func(ix *Index) { cutPostings(ix, "item_score", 1) }, true},
		{"entry dropped consistently", func(ix *Index) {
			for _, tab := range []int{tabFunc, tabOrigin, tabVar} {
				dropEntry(ix, tab, "clampi")
			}
		}, false},
		{"file table emptied", func(ix *Index) { ix.tabs[tabFile] = indexTable{} }, false},
		{"file table entries dropped", func(ix *Index) { ix.tabs[tabFile].ents = nil }, true},
		{"unit header record off by one", func(ix *Index) {
			us, ok := decodeUnits(ix.hdrs, ix.infoSize, ix.units)
			if !ok {
				panic("record does not decode")
			}
			us[len(us)-1].dieOff++
			ix.hdrs = encodeUnits(us)
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			plain, g := openPair(t, bin)
			_, r := EnsureIndex(plain, IndexOptions{Dir: dir})
			rewriteIndex(t, plain, r.Path, c.edit)
			var notes []IndexReport
			g.UseIndex(IndexOptions{Dir: dir, Note: func(r IndexReport) { notes = append(notes, r) }})
			for _, q := range queries {
				if a, b := probesString(plain.FindProbes(q)), probesString(g.FindProbes(q)); a != b {
					t.Errorf("%s %s:%d: scan %s\nindex %s", q.fn(), q.File, q.Line, a, b)
				}
			}
			for _, q := range lines {
				a, aerr := plain.FindLineRange(q)
				b, berr := g.FindLineRange(q)
				if fmt.Sprint(a, aerr) != fmt.Sprint(b, berr) {
					t.Errorf("line range %+v: scan %v %v\nindex %v %v", q, a, aerr, b, berr)
				}
			}
			if c.reported != (len(notes) == 1 && errors.Is(errors.Join(notes[0].Stale, notes[0].Err), ErrIndexCorrupt)) || len(notes) > 1 {
				t.Errorf("notes %+v, want one saying the index is corrupt: %v", notes, c.reported)
			}
		})
	}
}
