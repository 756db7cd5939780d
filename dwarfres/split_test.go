package dwarfres

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// splitDir builds the split DWARF fixtures (testdata/scripts/
// splitfixtures.sh) beside the others and returns their directory.
func splitDir(t *testing.T) string {
	t.Helper()
	return dwarftest.SplitFixtures(t, "../testdata/scripts/splitfixtures.sh", filepath.Join(fixtures(t), "split"))
}

// cuIndex returns the .debug_cu_index of a .dwp.
func cuIndex(t testing.TB, path string) []byte {
	t.Helper()
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	b, err := ef.Section(".debug_cu_index").Data()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSplitFindProbes: each form finds what the built-in debuginfo finds,
// and a .dwp's index (version 2 from binutils' dwp and from llvm-dwp for
// DWARF 4, version 5 for DWARF 5) has one row per unit.
func TestSplitFindProbes(t *testing.T) {
	dir := splitDir(t)
	for _, c := range []struct {
		form, ref  string
		dwpVersion int
	}{
		{"split-gcc-dwarf4", "ref-gcc-dwarf4", 0}, {"split-gcc-dwarf5", "ref-gcc-dwarf5", 0},
		{"split-clang-dwarf4", "ref-clang-dwarf4", 0}, {"split-clang-dwarf5", "ref-clang-dwarf5", 0},
		{"dwp-gcc-dwarf4", "ref-gcc-dwarf4", 2}, {"dwp-gcc-dwarf5", "ref-gcc-dwarf5", 5},
		{"dwp-clang-dwarf4", "ref-clang-dwarf4", 2}, {"dwp-clang-dwarf5", "ref-clang-dwarf5", 5},
		{"dwp-gnu-gcc-dwarf4", "ref-gcc-dwarf4", 2},
		{"split-types-gcc-dwarf5", "ref-types-gcc-dwarf5", 0}, {"split-types-clang-dwarf5", "ref-types-clang-dwarf5", 0},
	} {
		bin := filepath.Join(dir, c.form, "app")
		if c.dwpVersion != 0 {
			x, err := parseDWPIndex(cuIndex(t, bin+".dwp"))
			if err != nil || x.version != c.dwpVersion || len(x.rows) != 3 {
				t.Errorf("%s: index %+v, %v; want version %d with 3 units", c.form, x, err, c.dwpVersion)
			}
		}
		for _, fn := range []string{"checksum", "sum_list", "util_checksum", "item_score"} {
			got, want := probeAddrs(t, bin, fn), probeAddrs(t, filepath.Join(dir, c.ref, "app"), fn)
			if got != want || got == "" {
				t.Errorf("%s %s: %q, built-in %q", c.form, fn, got, want)
			}
		}
	}
}

func probeAddrs(t *testing.T, bin, fn string) string {
	t.Helper()
	f, err := Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ps, err := f.FindProbes(Query{Function: exactName(fn)})
	if err != nil {
		t.Fatalf("%s %s: %v", bin, fn, err)
	}
	var s []string
	for _, p := range ps {
		s = append(s, fmt.Sprintf("%s@%s:%#x", p.RealName, p.Func, p.Addr))
	}
	return strings.Join(s, " ")
}

// TestSplitBadDWO: a missing .dwo names both paths looked at; a .dwo of
// another unit names both DWO ids. Both wrap ErrSplitDWARF and
// ErrNoDebugInfo.
func TestSplitBadDWO(t *testing.T) {
	dir := splitDir(t)
	for _, c := range []struct {
		form    string
		missing bool
	}{{"nodwo-gcc-dwarf5", true}, {"baddwo-gcc-dwarf5", false}} {
		f, err := Open(filepath.Join(dir, c.form, "app"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.FindProbes(Query{Function: exactName("checksum")})
		f.Close()
		var de *DWOError
		if !errors.As(err, &de) || !errors.Is(err, ErrSplitDWARF) || !errors.Is(err, ErrNoDebugInfo) {
			t.Fatalf("%s: %v; want a *DWOError", c.form, err)
		}
		wantPath := filepath.Join(dir, c.form, "app-app_util.dwo")
		if c.missing && (len(de.Tried) == 0 || de.Tried[0] != wantPath) {
			t.Errorf("%s: tried %q, want %s first", c.form, de.Tried, wantPath)
		}
		if !c.missing && (de.Found != wantPath || de.Got == de.Want || de.Got == 0) {
			t.Errorf("%s: %+v; want a mismatch at %s", c.form, de, wantPath)
		}
	}
}

// dwpIndex5 is a hand-made version 5 index: one unit (DWO id 0x1234) with
// columns INFO and ABBREV, two hash slots.
func dwpIndex5() []byte {
	le := binary.LittleEndian
	var b []byte
	b = le.AppendUint32(b, 5)
	b = le.AppendUint32(b, 2) // columns
	b = le.AppendUint32(b, 1) // units
	b = le.AppendUint32(b, 2) // slots
	b = le.AppendUint64(b, 0x1234)
	b = le.AppendUint64(b, 0)
	b = le.AppendUint32(b, 1)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, sectInfo)
	b = le.AppendUint32(b, sectAbbrev)
	b = le.AppendUint32(b, 0) // offsets
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, 16) // sizes
	b = le.AppendUint32(b, 8)
	return b
}

func TestParseDWPIndex(t *testing.T) {
	x, err := parseDWPIndex(dwpIndex5())
	if err != nil || x.rows[0x1234] != 0 || len(x.cols) != 2 {
		t.Fatalf("%+v, %v", x, err)
	}
	if c, err := x.contribution(0, sectInfo, make([]byte, 10)); err == nil {
		t.Errorf("contribution past the end: %d bytes, no error", len(c))
	}
	for _, bad := range [][]byte{nil, dwpIndex5()[:40], append([]byte{3}, dwpIndex5()[1:]...)} {
		if _, err := parseDWPIndex(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("%x: %v, want ErrMalformed", bad, err)
		}
	}
}

// FuzzDWP: parsing any .debug_cu_index, and reading every contribution it
// names from a section of any size, never panics; the index's rows all
// exist.
func FuzzDWP(f *testing.F) {
	f.Add(dwpIndex5(), 16)
	for _, form := range []string{"dwp-gcc-dwarf4", "dwp-gcc-dwarf5", "dwp-gnu-gcc-dwarf4"} {
		p := filepath.Join(dwarftest.FixtureDir(".."), "split", form, "app.dwp")
		if ef, err := elf.Open(p); err == nil {
			if s := ef.Section(".debug_cu_index"); s != nil {
				if b, err := s.Data(); err == nil {
					f.Add(b, 4096)
				}
			}
			ef.Close()
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		x, err := parseDWPIndex(b)
		if err != nil {
			return
		}
		sec := make([]byte, n&0xffff)
		for _, r := range x.rows {
			if r < 0 || r >= len(x.offs) {
				t.Fatalf("row %d of %d", r, len(x.offs))
			}
			for _, id := range x.cols {
				x.contribution(r, int(id), sec)
			}
		}
	})
}

// TestSplitHostileDWP: a package whose sections are garbage gives an error
// or an answer, never a panic (recovered panics read as ErrMalformed
// without a *DecodeError).
func TestSplitHostileDWP(t *testing.T) {
	src := filepath.Join(splitDir(t), "dwp-gcc-dwarf5")
	bin, err := os.ReadFile(filepath.Join(src, "app"))
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := os.ReadFile(filepath.Join(src, "app.dwp"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range []string{".debug_cu_index", ".debug_info.dwo", ".debug_abbrev.dwo", ".debug_str_offsets.dwo", ".debug_loclists.dwo", ".debug_rnglists.dwo"} {
		for _, fill := range []byte{0x00, 0xff, 0x5a} {
			dir := t.TempDir()
			p := filepath.Join(dir, "app")
			if err := os.WriteFile(p, bin, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p+".dwp", dwarftest.Garble(t, pkg, sec, fill), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, fn := range []string{"checksum", "sum_list"} {
				ps, err := f.FindProbes(Query{Function: exactName(fn)})
				for _, pr := range ps { // locations: outside FindProbes' recover
					if pr.Scope != nil {
						for _, v := range pr.Scope.Vars(true) {
							pr.Scope.Location(v)
						}
					}
				}
				var de *DecodeError
				if errors.Is(err, ErrMalformed) && !errors.As(err, &de) {
					t.Errorf("%s garbled with %#x, %s: %v", sec, fill, fn, err)
				}
			}
			f.Close()
		}
	}
}

func TestDWOPaths(t *testing.T) {
	for _, c := range []struct {
		name, compDir string
		want          []string
	}{
		{"a.dwo", "/src", []string{"/src/a.dwo", "/bin/a.dwo"}},
		{"obj/a.dwo", "/src", []string{"/src/obj/a.dwo", "/bin/a.dwo"}},
		{"/abs/a.dwo", "/src", []string{"/abs/a.dwo", "/bin/a.dwo"}},
		{"a.dwo", ".", []string{"/bin/a.dwo"}},
		{"a.dwo", "", []string{"/bin/a.dwo"}},
		{"a.dwo", "build", []string{"/bin/build/a.dwo", "/bin/a.dwo"}},
	} {
		got := dwoPaths("/bin/app", &skeleton{dwoName: c.name, compDir: c.compDir})
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s under %q: %q, want %q", c.name, c.compDir, got, c.want)
		}
	}
}

// TestSplitGNUDWPDwarf5: binutils' dwp packs DWARF 5 split units into a
// package with an empty index and no .debug_info.dwo; dwprobe names the
// package and what it lacks (it used to fall back to the symbol table
// and say "no debuginfo scope at this probe point").
func TestSplitGNUDWPDwarf5(t *testing.T) {
	dwp := dwarftest.NeedTool(t, "dwp")
	src := filepath.Join(splitDir(t), "split-gcc-dwarf5")
	dir := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	var dwos []string
	for _, e := range ents {
		dwarftest.CopyFile(t, filepath.Join(src, e.Name()), filepath.Join(dir, e.Name()), 0o755)
		if strings.HasSuffix(e.Name(), ".dwo") {
			dwos = append(dwos, e.Name())
		}
	}
	cmd := exec.Command(dwp, append([]string{"-o", "app.dwp"}, dwos...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dwp: %v\n%s", err, out)
	}
	for _, d := range dwos {
		os.Remove(filepath.Join(dir, d))
	}
	f, err := Open(filepath.Join(dir, "app"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = f.FindProbes(Query{Function: exactName("checksum")})
	pkg := filepath.Join(dir, "app.dwp")
	if ef, oerr := elf.Open(pkg); oerr == nil && ef.Section(".debug_info.dwo") != nil {
		// Some builds of binutils' dwp do package these units: then the
		// package is read, or refused naming it and the unit it lacks.
		ef.Close()
		if err != nil && (!errors.Is(err, ErrSplitDWARF) || !strings.Contains(err.Error(), pkg)) {
			t.Errorf("FindProbes with binutils' DWARF 5 package holding units: %v", err)
		}
		return
	}
	var de *DWPError
	if !errors.As(err, &de) || de.Path != pkg || !strings.Contains(de.Lacks, "no .debug_info.dwo") ||
		!errors.Is(err, ErrSplitDWARF) {
		t.Errorf("FindProbes with binutils' DWARF 5 package: %v", err)
	}
}
