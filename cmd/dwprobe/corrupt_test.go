package main

import (
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
