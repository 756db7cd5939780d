package dwarfres

import (
	"bytes"
	"debug/dwarf"
	"encoding/binary"
	"errors"
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
