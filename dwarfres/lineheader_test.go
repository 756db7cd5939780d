package dwarfres

import (
	"errors"
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
	if _, err := f.FindProbes(Query{Function: exactName("work"), Line: 4, HasLine: true}); !errors.As(err, &de) {
		t.Errorf("-D work:4: %v; want a DecodeError", err)
	}
	if _, err := f.FindLineRange(LineQuery{File: "app_util.c", End: 1 << 30}); !errors.As(err, &de) {
		t.Errorf("-L app_util.c: %v; want a DecodeError", err)
	}
}

// TestLineHeaderRefused: DWARF 5 line headers libdw refuses are refused as
// malformed. A directory form debug/dwarf does not decode: it reads such
// entries as zero bytes, then takes a file count from the directories'
// bytes (found by FuzzBinary: a count of 2^21 empty files took 15 s to
// tabulate). Entries without any form: nothing bounds their count.
func TestLineHeaderRefused(t *testing.T) {
	for _, c := range []struct {
		name    string
		corrupt func([]byte) ([]byte, error)
		msg     string
	}{
		{"unknown directory form", func(b []byte) ([]byte, error) { return dwarftest.LineDirForm(b, 0x2e) }, "directory entry form 0x2e"},
		{"files without content", func(b []byte) ([]byte, error) { return dwarftest.LineFileCount(b, 1) }, "1 file name entries without content"},
	} {
		f := openCorrupted(t, "app-gcc-O2-dwarf5", c.corrupt)
		var de *DecodeError
		_, err := f.FindProbes(Query{Function: exactName("work"), Line: 4, HasLine: true})
		if !errors.As(err, &de) || !strings.Contains(de.Msg, c.msg) {
			t.Errorf("%s: -D work:4: %v; want a DecodeError %q", c.name, err, c.msg)
		}
	}
}

// openCorrupted opens a copy of fixture name passed through corrupt.
func openCorrupted(t *testing.T, name string, corrupt func([]byte) ([]byte, error)) *File {
	t.Helper()
	f, err := Open(dwarftest.CopyEdited(t, needBin(t, name), filepath.Join(t.TempDir(), name+"-corrupt"), 0o644, corrupt))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
