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
// (elfsym's layout: 24 bytes of header, a count, 24-byte entries whose
// name offset is at 4 and start at 8).
func symEntries(syms []byte, fn func(e []byte)) {
	n := int(binary.LittleEndian.Uint32(syms[24:]))
	for i := 0; i < n; i++ {
		fn(syms[28+24*i : 28+24*(i+1)])
	}
}

// hostileEdits change an index of app-*'s binaries as someone writing
// the cache could, keeping it well-formed.
func hostileEdits(strtab []byte) []struct {
	name string
	edit func(ix *Index)
} {
	nameOf := func(e []byte) string { return string(elfobj.StrAt(strtab, binary.LittleEndian.Uint32(e[4:]))) }
	return []struct {
		name string
		edit func(ix *Index)
	}{
		{"addresses shifted", func(ix *Index) {
			symEntries(ix.syms, func(e []byte) { binary.LittleEndian.PutUint64(e[8:], binary.LittleEndian.Uint64(e[8:])-16) })
		}},
		{"entry renamed", func(ix *Index) {
			var other uint32
			symEntries(ix.syms, func(e []byte) {
				if nameOf(e) == "compute" {
					other = binary.LittleEndian.Uint32(e[4:])
				}
			})
			symEntries(ix.syms, func(e []byte) {
				if nameOf(e) == "work" {
					binary.LittleEndian.PutUint32(e[4:], other)
				}
			})
		}},
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
	_, strtab := o.SymbolTable()
	for _, c := range hostileEdits(strtab) {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			plain, g := openPair(t, bin)
			_, r := plain.EnsureIndex(IndexOptions{Dir: dir})
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
