package dwarfres

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestLineFileCountPastHeader: a DWARF 5 line table claiming 2^40 files
// is refused as malformed. debug/dwarf allocates the table before reading
// it: found by FuzzBinary, the process died out of memory, which no
// recover catches.
func TestLineFileCountPastHeader(t *testing.T) {
	f := openCorrupted(t, "app-gcc-O2-dwarf5", func(bin []byte) ([]byte, error) { return dwarftest.LineFileCount(bin, 1<<40) })
	var de *DecodeError
	if _, err := f.FindProbes(Query{Function: "work", Line: 4, HasLine: true}); !errors.As(err, &de) {
		t.Errorf("-D work:4: %v; want a DecodeError", err)
	}
	if _, err := f.FindLineRange(LineQuery{File: "app_util.c", End: 1 << 30}); !errors.As(err, &de) {
		t.Errorf("-L app_util.c: %v; want a DecodeError", err)
	}
}

// TestLineDirFormUnknown: a DWARF 5 line header whose directory entries
// have a form debug/dwarf does not decode is refused as malformed.
// debug/dwarf reads such entries as zero bytes, then takes a file count
// from the directories' bytes: found by FuzzBinary, a count of 2^21 empty
// files took 15 s to tabulate.
func TestLineDirFormUnknown(t *testing.T) {
	f := openCorrupted(t, "app-gcc-O2-dwarf5", func(bin []byte) ([]byte, error) { return dwarftest.LineDirForm(bin, 0x2e) })
	var de *DecodeError
	_, err := f.FindProbes(Query{Function: "work", Line: 4, HasLine: true})
	if !errors.As(err, &de) || !strings.Contains(de.Msg, "directory entry form 0x2e") {
		t.Errorf("-D work:4: %v; want a DecodeError on the directory form", err)
	}
}

// openCorrupted opens a copy of fixture name passed through corrupt.
func openCorrupted(t *testing.T, name string, corrupt func([]byte) ([]byte, error)) *File {
	t.Helper()
	bin, err := os.ReadFile(needBin(t, name))
	if err != nil {
		t.Fatal(err)
	}
	bad, err := corrupt(bin)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name+"-corrupt")
	if err := os.WriteFile(p, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestLineFilesWithoutContent: a DWARF 5 file table of entries without
// any form is refused, as libdw refuses it: nothing bounds how many such
// entries debug/dwarf allocates.
func TestLineFilesWithoutContent(t *testing.T) {
	f := openCorrupted(t, "app-gcc-O2-dwarf5", func(bin []byte) ([]byte, error) { return dwarftest.LineFileCount(bin, 1) })
	var de *DecodeError
	_, err := f.FindProbes(Query{Function: "work", Line: 4, HasLine: true})
	if !errors.As(err, &de) || !strings.Contains(de.Msg, "1 file name entries without content") {
		t.Errorf("-D work:4: %v; want a DecodeError on the empty entries", err)
	}
}
