package dwarfres

import (
	"debug/elf"
	"encoding/binary"
	"path/filepath"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// memFile builds a File over in-memory sections, for fuzzing the readers
// without an ELF container.
func memFile(secs map[string][]byte) *File { return memFileOrder(secs, binary.LittleEndian) }

// memFileOrder is memFile for a target of byte order order.
func memFileOrder(secs map[string][]byte, order binary.ByteOrder) *File {
	m := map[string][]byte{}
	for _, n := range []string{".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_line_str",
		".debug_rnglists", ".debug_ranges", ".debug_addr", ".debug_str_offsets", ".debug_loclists", ".debug_loc", ".debug_frame"} {
		m[n] = secs[n]
	}
	return newFile(elfobj.FromSections("fuzz", &elf.File{}, order, m))
}

// fuzzSeed returns the DWARF sections of a small fixture, if built.
func fuzzSeed(name string) map[string][]byte {
	f, err := Open(filepath.Join(dwarftest.FixtureDir(".."), name))
	if err != nil {
		return nil
	}
	defer f.Close()
	out := map[string][]byte{}
	for _, n := range []string{".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_line_str", ".debug_rnglists", ".debug_addr", ".debug_str_offsets", ".debug_loclists", ".debug_frame"} {
		out[n] = append([]byte(nil), f.sec(n)...)
	}
	return out
}

// FuzzReaders feeds mutated .debug_info, .debug_abbrev, .debug_line and
// .debug_loclists to the probe search, line-range and variable readers
// (scopes, locations, types): they must return an error or a result, never
// panic or hang.
func FuzzReaders(f *testing.F) {
	base := fuzzSeed("app-gcc-O2-dwarf5")
	clang := fuzzSeed("app-clang-O2-dwarf5")
	for _, s := range []map[string][]byte{base, clang} {
		if s != nil {
			f.Add(s[".debug_info"], s[".debug_abbrev"], s[".debug_line"], s[".debug_loclists"])
		}
	}
	f.Add([]byte{7, 0, 0, 0, 5, 0, 1, 8, 0, 0, 0}, []byte{1, 0x11, 0, 0, 0, 0}, []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, info, abbrev, line, loclists []byte) {
		if len(info)+len(abbrev)+len(line)+len(loclists) > 1<<18 {
			return
		}
		secs := map[string][]byte{}
		for k, v := range base {
			secs[k] = v
		}
		secs[".debug_info"], secs[".debug_abbrev"], secs[".debug_line"], secs[".debug_loclists"] = info, abbrev, line, loclists
		mf := memFile(secs)
		exerciseQuery(t, mf, "work", "p", "sum", "i", "app_counter")
		mf.FindProbes(Query{Function: exactName("work"), Line: 2, HasLine: true})
		mf.FindProbes(Query{File: "app_util.c", Line: 40, HasLine: true})
		mf.FindLineRange(LineQuery{Function: "sum_list", End: 1 << 30})
	})
}

// FuzzDecodeLocation: any expression decodes to a location or an error,
// never a panic.
func FuzzDecodeLocation(f *testing.F) {
	for _, s := range [][]byte{{0x55}, {0x77, 0x78}, {0x91, 0x6c}, {0x03, 0, 0, 0, 0x82, 0xff, 0xff, 0xff, 0xff}, {0xa3, 1, 0x55, 0x9f}, {0x9e, 2, 1, 2}, {0x53, 0x93, 8}} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr []byte) {
		loc, err := decodeLocation(expr, 8, binary.LittleEndian, func(i uint64) (uint64, error) { return i, nil })
		if (err == nil) == (loc.Kind == 0) {
			t.Fatalf("decodeLocation(%x) = %+v, %v", expr, loc, err)
		}
	})
}

// exerciseQuery looks fn up, then asks of every point its variables and
// those named: an error comes with no result.
func exerciseQuery(t *testing.T, f *File, fn string, names ...string) {
	ps, err := f.FindProbes(Query{Function: exactName(fn)})
	if err != nil && ps != nil && len(ps) == 0 {
		t.Fatalf("error with an empty non-nil result")
	}
	for _, p := range ps {
		if p.Scope == nil {
			continue
		}
		for _, a := range p.Scope.Available(true) {
			exerciseVar(p.Scope, a.Var)
		}
		for _, n := range names {
			if v, ok := p.Scope.Lookup(n); ok {
				exerciseVar(p.Scope, v)
			}
		}
	}
}

// exerciseVar asks every question probe arguments ask of a variable.
func exerciseVar(s *Scope, v Entry) {
	s.Location(v)
	s.PerfRanges(v)
	s.LocatedLater(v)
	s.LinesIn(s.Ranges(v), 4)
	v.TypeName()
	tp, ok := v.RealType(true)
	for n := 0; ok && n < 8; n++ { // types can refer to themselves
		tp.ByteSize()
		tp.Signed()
		tp.ArrayLen()
		for _, m := range tp.children() {
			m.MemberOffset()
			m.BitField()
			m.TypeName()
		}
		tp.FindMember("name")
		tp, ok = tp.RealType(true)
	}
}
