package dwarfres

import (
	"bytes"
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/dwarfres/elfsym"
)

// fuzzIndexSeed is the index file of a small synthetic unit.
func fuzzIndexSeed(t testing.TB) []byte {
	cu := dwarftest.D(dwarf.TagCompileUnit, dwarftest.Name("synth.c"), dwarftest.A(dwarf.AttrLanguage, dwarftest.FormData1, 0x0c)).With(
		dwarftest.D(dwarf.TagSubprogram, dwarftest.Name("inl"), dwarftest.A(dwarf.AttrInline, dwarftest.FormData1, 3)).As("inl"),
		dwarftest.D(dwarf.TagSubprogram, dwarftest.A(dwarf.AttrAbstractOrigin, dwarftest.FormRef4, dwarftest.Ref("inl")), dwarftest.Low(0x1000), dwarftest.High(0x10)),
		dwarftest.D(dwarf.TagVariable, dwarftest.Name("gvar")),
	)
	ix, err := indexer{synFile(t, 4, cu, nil)}.buildIndex(nil)
	if err != nil {
		t.Fatal(err)
	}
	return encodeIndex(ix, fuzzKey)
}

const fuzzKey = "build-id 00"

// FuzzIndex feeds mutated index files to the reader. As they come, they
// must be refused with a typed error unless they are a genuine index (one
// that writes back to the same bytes): garbage never passes the checks.
// With their checksum fixed up, so that the structure decoder and the
// lookups (the symbol map's too) see them, nothing may panic either.
func FuzzIndex(f *testing.F) {
	seed := fuzzIndexSeed(f)
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Add([]byte(indexMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		ix, err := decodeIndex(b, fuzzKey)
		if err != nil {
			if !errors.Is(err, ErrIndexCorrupt) && !errors.Is(err, ErrIndexForeign) && !errors.Is(err, ErrIndexVersion) {
				t.Fatalf("untyped error %v", err)
			}
		} else if !bytes.Equal(encodeIndex(ix, fuzzKey), b) {
			t.Fatalf("a file that is not an index passed the checks")
		}
		if len(b) < indexHdrSize {
			return
		}
		b = bytes.Clone(b)
		binary.LittleEndian.PutUint32(b[24:], indexSum(b, b[indexHdrSize:]))
		if ix, err = decodeIndex(b, fuzzKey); err != nil {
			return
		}
		for tab := 0; tab < numTabs; tab++ {
			ix.lookup(tab, "inl", definingOnly)
			ix.matching(tab, func(string) bool { return true }, allUnits)
		}
		ix.candidates(Query{Function: exactName("gvar")}, sourceName{})
		ix.candidates(Query{File: "synth.c"}, sourceName{name: "synth.c"})
		ix.nameUnits("inl")
		decodeUnits(ix.hdrs, ix.infoSize, ix.units)
		if st, ok := elfsym.Decode(memFile(nil).Object, ix.syms); ok {
			st.At(0)
			st.Lookup("inl")
			st.AddrOf("inl")
		}
	})
}

// FuzzIndexWellFormed feeds an index of a real binary edited as someone
// writing the cache would, keeping it well-formed: each 5 bytes of the
// input xor one byte of the file past its header (u32 position, value),
// the checksum recomputed. Whatever the edits, an answer read through the
// index must be the binary's or refused: every symbol the decoded map
// gives is one the symbol table gives (decoding refuses the record
// otherwise), and every probe address is one the scan finds (the index
// only narrows which units are read; it can hide, never invent).
func FuzzIndexWellFormed(f *testing.F) {
	bin := dwarftest.Fixture(f, "..", "app-gcc-O2-dwarf5")
	plain, err := Open(bin)
	if err != nil {
		f.Fatal(err)
	}
	defer plain.Close()
	good, key := wellFormedSeed(f, plain)
	scan := map[string]map[uint64]bool{}
	fns := []string{"work", "compute", "item_score", "main"}
	for _, fn := range fns {
		ps, _ := plain.FindProbes(Query{Function: exactName(fn)})
		scan[fn] = map[uint64]bool{}
		for _, p := range ps {
			scan[fn][p.Addr] = true
		}
	}
	table := map[Sym]bool{}
	elfsym.Load(plain.Object).Each(func(s Sym) { table[s] = true })
	f.Add([]byte{})
	f.Add([]byte{0, 1, 0, 0, 0x10})
	f.Fuzz(func(t *testing.T, edits []byte) {
		b := bytes.Clone(good)
		body := b[indexHdrSize:]
		for ; len(edits) >= 5; edits = edits[5:] {
			body[int(binary.LittleEndian.Uint32(edits))%len(body)] ^= edits[4]
		}
		binary.LittleEndian.PutUint32(b[24:], indexSum(b, body))
		ix, err := decodeIndex(b, key)
		if err != nil {
			return // refused
		}
		if st, ok := elfsym.Decode(plain.Object, ix.syms); ok {
			st.Each(func(s Sym) {
				if !table[s] {
					t.Fatalf("symbol %+v is not the table's", s)
				}
			})
		}
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, mustIndexName(t, plain)), b, 0o644)
		g, err := Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		g.UseIndex(IndexOptions{Dir: dir})
		for _, fn := range fns {
			ps, _ := g.FindProbes(Query{Function: exactName(fn)})
			for _, p := range ps {
				if !scan[fn][p.Addr] {
					t.Fatalf("%s: %#x is not one of the scan's addresses", fn, p.Addr)
				}
			}
		}
	})
}

// wellFormedSeed is f's index file, built in memory, and its key.
func wellFormedSeed(t testing.TB, f *File) ([]byte, string) {
	ix, err := indexer{f}.buildIndex(nil)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := indexer{f}.indexKey()
	if err != nil {
		t.Fatal(err)
	}
	return encodeIndex(ix, key), key
}
