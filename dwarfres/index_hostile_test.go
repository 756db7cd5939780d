package dwarfres

import (
	"encoding/binary"
	"os"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// rewriteIndex decodes the index at path, lets edit change it, and writes
// it back well-formed: same key, checksum recomputed.
func rewriteIndex(t *testing.T, f *File, path string, edit func(ix *Index)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	key, _, _ := indexer{f}.indexKey()
	ix, err := decodeIndex(b, key)
	if err != nil {
		t.Fatal(err)
	}
	edit(ix)
	if err := os.WriteFile(path, encodeIndex(ix, key), 0o644); err != nil {
		t.Fatal(err)
	}
}

// symEntries calls fn with each text symbol entry of the symbol record
// (elfsym's layout: 24 bytes of header, a count, u32 entries: numbers
// in the symbol table).
func symEntries(syms []byte, fn func(e []byte)) {
	n := int(binary.LittleEndian.Uint32(syms[24:]))
	for i := 0; i < n; i++ {
		fn(syms[28+4*i : 28+4*(i+1)])
	}
}

// hostileEdits change an index of app-*'s binaries as someone writing
// the cache could, keeping it well-formed.
func hostileEdits(o *elfobj.Object) []struct {
	name string
	edit func(ix *Index)
} {
	data, strtab := o.SymbolTable()
	nameOf := func(e []byte) string {
		s, _ := o.RawSymAt(data, binary.LittleEndian.Uint32(e))
		return string(elfobj.StrAt(strtab, s.Name))
	}
	// numberOf is the number of the first symbol named name of the table.
	numberOf := func(name string) (num uint32) {
		for i := uint32(1); num == 0; i++ {
			s, ok := o.RawSymAt(data, i)
			if !ok {
				panic(name + " not in the table")
			}
			if string(elfobj.StrAt(strtab, s.Name)) == name {
				num = i
			}
		}
		return num
	}
	swap := func(a, b string) func(ix *Index) {
		return func(ix *Index) {
			var ea, eb []byte
			symEntries(ix.syms, func(e []byte) {
				switch nameOf(e) {
				case a:
					ea = e
				case b:
					eb = e
				}
			})
			x := binary.LittleEndian.Uint32(ea)
			binary.LittleEndian.PutUint32(ea, binary.LittleEndian.Uint32(eb))
			binary.LittleEndian.PutUint32(eb, x)
		}
	}
	replace := func(a, b string) func(ix *Index) {
		return func(ix *Index) {
			symEntries(ix.syms, func(e []byte) {
				if nameOf(e) == a {
					binary.LittleEndian.PutUint32(e, numberOf(b))
				}
			})
		}
	}
	return []struct {
		name string
		edit func(ix *Index)
	}{
		{"entries swapped", swap("work", "compute")},
		{"entry replaced by another function", replace("work", "compute")},
		{"entry replaced by a data symbol", replace("work", "items")},
		{"entry replaced by a file symbol", replace("compute", "app_util2.c")},
		{"postings cut", func(ix *Index) {
			for tab := range ix.tabs {
				tt := &ix.tabs[tab]
				for i := 0; i < tt.len(); i++ {
					if n, _, _, _ := ix.entry(tt, i); string(n) == "work" {
						binary.LittleEndian.PutUint32(tt.ents[i*entSize+12:], 0)
					}
				}
			}
		}},
	}
}

// TestIndexHostileButWellFormed: an index of the right binary whose
// contents were changed and checksum recomputed (a cache someone else
// wrote) cannot change an answer: its symbols are checked against the
// symbol table (shifted addresses, renamed entries: the table is read
// instead), and a function its postings hide although the binary has it
// is found by the scan.
func TestIndexHostileButWellFormed(t *testing.T) {
	bin := needBin(t, "app-gcc-O2-dwarf5")
	o, err := elfobj.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	for _, c := range hostileEdits(o) {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			plain, g := openPair(t, bin)
			_, r := EnsureIndex(plain, IndexOptions{Dir: dir})
			rewriteIndex(t, plain, r.Path, c.edit)
			g.UseIndex(IndexOptions{Dir: dir})
			for _, fn := range []string{"work", "compute"} {
				q := Query{Function: exactName(fn)}
				if a, b := probesString(plain.FindProbes(q)), probesString(g.FindProbes(q)); a != b {
					t.Errorf("%s: scan %s, index %s", fn, a, b)
				}
			}
		})
	}
}
