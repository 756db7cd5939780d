package dwarfres

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
	"github.com/dwprobe/dwprobe/dwarfres/locate"
)

// altLink is a file's supplementary DWARF file: the dwz common file named
// by .gnu_debugaltlink (DW_FORM_GNU_ref_alt, DW_FORM_GNU_strp_alt point
// into it) or by DWARF 5's .debug_sup (DW_FORM_ref_sup4/8,
// DW_FORM_strp_sup). It is opened once, when first needed.
type altLink struct {
	once sync.Once
	file *File
	err  error
	// dirs are the debug directories searched by build-id and under .dwz
	// (a Locator's, DWPROBE_DEBUGINFO_PATH and --symfs included); nil
	// means locate.DefaultDebugDir.
	dirs []string
	// fetch, when not nil, fetches a file by build-id when no candidate
	// has it (a Locator's debuginfod, see altFetch).
	fetch func(buildID string) (string, []string, error)
}

// AltFileError reports a supplementary (dwz) file that was not found, or
// whose build-id is not the one the link asks for (Other is set). It
// wraps ErrNoDebugInfo, and ErrBuildIDMismatch for a file of another
// build.
type AltFileError struct {
	Name    string   // the path the link names
	BuildID string   // the build-id it wants, hex; "" for .debug_sup without one
	Tried   []string // every path tried, in order
	// Other is the first candidate that is a supplementary file, of
	// another build (OtherID: its build-id, "" for none): a common file
	// of another build of the package, not a missing one.
	Other, OtherID string
}

func (e *AltFileError) Error() string {
	id := cmp.Or(e.BuildID, "none")
	if e.Other != "" {
		return fmt.Sprintf("%v: dwz supplementary file %s is of build-id %s, not %s (another build's common file; tried %s)",
			ErrBuildIDMismatch, e.Other, cmp.Or(e.OtherID, "none"), id, strings.Join(e.Tried, ", "))
	}
	return fmt.Sprintf("%v: dwz supplementary file %s (build-id %s) not found (tried %s)",
		ErrNoDebugInfo, e.Name, id, strings.Join(e.Tried, ", "))
}

func (e *AltFileError) Unwrap() []error {
	if e.Other != "" {
		return []error{ErrNoDebugInfo, ErrBuildIDMismatch}
	}
	return []error{ErrNoDebugInfo}
}

// dwarfFile is the File holding the DWARF: the separate debuginfo when one
// is attached. Its links name paths relative to itself.
func (f *File) dwarfFile() *File {
	if f.dbg != nil {
		return f.dbg
	}
	return f
}

// altName returns the supplementary file the object o links to: its path
// and the id wanted (hex), from .gnu_debugaltlink or DWARF 5's .debug_sup
// (sup true); ok is false when there is no link (or o is itself the
// supplementary file).
func altName(o *elfobj.Object) (name, id string, sup, ok bool) {
	if b := o.RawSection(".gnu_debugaltlink"); len(b) > 0 {
		name, id, ok = parseAltLink(b)
		return name, id, false, ok
	}
	isSup, name, id, ok := parseSup(o.RawSection(".debug_sup"))
	return name, id, true, ok && !isSup && name != ""
}

// parseAltLink decodes .gnu_debugaltlink: a path, NUL, the build-id
// (returned as hex).
func parseAltLink(b []byte) (name, id string, ok bool) {
	i := bytes.IndexByte(b, 0)
	if i <= 0 {
		return "", "", false
	}
	return string(b[:i]), hex.EncodeToString(b[i+1:]), true
}

// parseSup decodes .debug_sup (DWARF 5, section 7.3.6): version,
// is_supplementary, a file name, and a checksum (ULEB128 length, bytes),
// returned as hex.
func parseSup(b []byte) (isSup bool, name, sum string, ok bool) {
	if len(b) < 4 {
		return false, "", "", false
	}
	rest := b[3:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return false, "", "", false
	}
	cb := &buf{sec: ".debug_sup", data: rest[i+1:]}
	n := cb.uleb()
	if cb.err == nil && n <= uint64(len(cb.data)-cb.off) {
		sum = hex.EncodeToString(cb.data[cb.off : cb.off+int(n)])
	}
	return b[2] != 0, string(rest[:i]), sum, true
}

// altID is the id a supplementary file o answers to: its .debug_sup
// checksum for a DWARF 5 link, else its GNU build-id.
func altID(o *elfobj.Object, sup bool) string {
	if sup {
		_, _, sum, _ := parseSup(o.RawSection(".debug_sup"))
		return sum
	}
	return o.BuildID()
}

// hasAlt reports whether the DWARF refers to a supplementary file, found
// or not.
func (f *File) hasAlt() bool {
	a, err := f.alt()
	return a != nil || err != nil
}

// alt returns the supplementary file, opening it on first use; nil and no
// error when the DWARF has no link. Errors are *AltFileError.
func (f *File) alt() (*File, error) {
	d := f.dwarfFile()
	d.altf.once.Do(func() {
		name, id, sup, ok := altName(d.Object)
		if !ok {
			return
		}
		dirs := f.altf.dirs
		if dirs == nil {
			dirs = []string{locate.DefaultDebugDir}
		}
		from, err := filepath.Abs(d.Path) // the error names absolute paths
		if err != nil {
			from = d.Path
		}
		cands := locate.AltCandidates(from, name, id, dirs)
		d.altf.file, d.altf.err = openAlt(cands, name, id, sup)
		if d.altf.err != nil && f.altf.fetch != nil && !sup && id != "" {
			d.altf.file, d.altf.err = fetchAlt(f.altf.fetch, cands, name, id)
		}
	})
	return d.altf.file, d.altf.err
}

// openAlt opens the first candidate that is an ELF with DWARF and, when
// the link names one, the id wanted (sup: a .debug_sup checksum).
func openAlt(paths []string, name, id string, sup bool) (*File, error) {
	e := &AltFileError{Name: name, BuildID: id, Tried: paths}
	for _, p := range paths {
		a, err := Open(p)
		var nr *elfobj.NotRegularError
		if errors.As(err, &nr) {
			return nil, err // a FIFO or device planted there: name it
		}
		if err != nil {
			continue
		}
		if !a.HasDWARF() || id != "" && altID(a.Object, sup) != id {
			if a.HasDWARF() && e.Other == "" {
				e.Other, e.OtherID = p, altID(a.Object, sup)
			}
			a.Close()
			continue
		}
		return a, nil
	}
	return nil, e
}

// altSec is a section of the supplementary file, nil when there is none.
func (f *File) altSec(name string) []byte {
	a, err := f.alt()
	if err != nil || a == nil {
		return nil
	}
	return a.sec(name)
}

// fetchAlt fetches the supplementary file of build-id id after the local
// candidates failed: a server's failure is the error (naming its URL);
// none having the file is the *AltFileError, the URLs among the places
// tried.
func fetchAlt(fetch func(string) (string, []string, error), cands []string, name, id string) (*File, error) {
	p, tried, err := fetch(id)
	if err != nil {
		return nil, err
	}
	if p == "" {
		return nil, &AltFileError{Name: name, BuildID: id, Tried: append(cands, tried...)}
	}
	return openAlt([]string{p}, name, id, false)
}
