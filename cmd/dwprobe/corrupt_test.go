package main

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// appVariants are the app fixtures with uncompressed DWARF (gcc, clang;
// -O0, -O2; DWARF 4, 5).
var appVariants = []string{
	"app-gcc-O0-dwarf4", "app-gcc-O0-dwarf5", "app-gcc-O2-dwarf4", "app-gcc-O2-dwarf5",
	"app-clang-O0-dwarf4", "app-clang-O0-dwarf5", "app-clang-O2-dwarf4", "app-clang-O2-dwarf5",
}

// resolutionArgs are commands that reach every reader a resolution calls:
// probe search, line tables, scopes, locations and their "available at
// line ..." hint, types, -V, -L, -F.
var resolutionArgs = [][]string{
	{"-D", "work:3 o"},
	{"-D", "work i"},
	{"-D", "work sum p->name:string p->box.min.x"},
	{"-D", "work:5 i sum"},
	{"-D", "sum_list:7 it sc total"},
	{"-D", "compute%return $retval"},
	{"-D", "item_score $vars"},
	{"-D", "app_util.c:52"},
	{"-V", "work:5"},
	{"-V", "histogram", "--range", "--externs"},
	{"-L", "work"},
	{"-L", "app_util.c:40-60"},
	{"-F", "*"},
}

// noCrash fails when a run of dwprobe panicked (exit 2, a stack trace)
// instead of answering or refusing with one error line.
func noCrash(t *testing.T, args []string) {
	t.Helper()
	_, errs, code := runBin(t, args...)
	// A Go panic exits 2 (the usage status too, which these commands are
	// not); a spec that does not resolve (3) or malformed input (4) is an
	// answer.
	if code == 2 || code > 4 || strings.Contains(errs, "panic") || strings.Contains(errs, "goroutine ") {
		t.Errorf("dwprobe %q: exit %d:\n%s", args, code, errs)
		return
	}
	if code != 0 && !strings.HasPrefix(errs, "dwprobe: ") {
		t.Errorf("dwprobe %q: error %q", args, errs)
	}
}

// TestCorruptLineFileTable is issue 11's crash: line programs whose file
// table is empty (a few bytes of .debug_line overwritten) made the
// "variable has no location" hint index the table out of range
// (Scope.LinesIn).
func TestCorruptLineFileTable(t *testing.T) {
	dir := t.TempDir()
	for _, v := range appVariants {
		t.Run(v, func(t *testing.T) {
			p := dwarftest.CopyEdited(t, needApp(t, v), filepath.Join(dir, v+"-nofiles"), 0o755, dwarftest.EmptyLineFiles)
			for _, a := range resolutionArgs {
				noCrash(t, append([]string{"-x", p}, a...))
			}
		})
	}
}

// TestResolutionNoCrash runs the same commands on the intact fixtures:
// -L FUNC on a unit with a string offsets table (clang DWARF 5) once
// crashed in a worker goroutine, out of reach of the readers' recover.
func TestResolutionNoCrash(t *testing.T) {
	for _, v := range appVariants {
		t.Run(v, func(t *testing.T) {
			p := needApp(t, v)
			for _, a := range resolutionArgs {
				noCrash(t, append([]string{"-x", p}, a...))
			}
		})
	}
}

// needApp is fixture, skipping (failing under DWPROBE_REQUIRE_ALL) when a
// clang variant could not be built.
func needApp(t *testing.T, name string) string {
	t.Helper()
	if strings.Contains(name, "clang") {
		dwarftest.NeedTool(t, "clang")
	}
	return fixture(t, name)
}

// TestCorruptUnitNamesFile: a unit of the -x (or -k) file whose DIEs do
// not decode is reported with the file's name before the section and
// offset, whichever command reaches it; it said "malformed .debug_info
// at offset 0x3132e58" of a vmlinux, naming no file (issue 34).
func TestCorruptUnitNamesFile(t *testing.T) {
	dir := t.TempDir()
	bad := dwarftest.CopyEdited(t, fixture(t, "app-gcc-O2-dwarf5"), filepath.Join(dir, "app-bad"), 0o755, func(b []byte) ([]byte, error) {
		ef, err := elf.NewFile(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		s := ef.Section(".debug_info")
		first := binary.LittleEndian.Uint32(b[s.Offset:])
		at := s.Offset + 4 + uint64(first) + 12 // the second unit's first DIE (DWARF 5, 32-bit)
		b[at], b[at+1] = 0x7f, 0                // an abbreviation code it does not have
		return b, nil
	})
	for _, args := range [][]string{{"-D", "work"}, {"-V", "work"}, {"-L", "work"}, {"-L", "app_util.c:40-60"}, {"-D", "app_util.c:52"}} {
		_, errs, code := runBin(t, append([]string{"-x", bad}, args...)...)
		if code != exitInput || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, bad+": malformed .debug_info at offset 0x") {
			t.Errorf("%q: exit %d, stderr %q; want exit 4 naming %s", args, code, errs, bad)
		}
	}
}
