package dwarfres

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// A DWARF package (BINARY.dwp, made by binutils' dwp or llvm-dwp) holds the
// .dwo sections of every unit, concatenated, with .debug_cu_index telling
// where each unit's contribution to each section lies, by DWO id. The
// index format is version 2 (the GNU extension for DWARF 4) or 5 (DWARF 5
// section 7.3.5); both are read here.

// DW_SECT_* column ids. Version 2 numbers LOC 5 and has no RNGLISTS;
// version 5 has LOCLISTS at 5 and RNGLISTS at 8.
const (
	sectInfo       = 1
	sectAbbrev     = 3
	sectLoc        = 5 // v2 DW_SECT_LOC, v5 DW_SECT_LOCLISTS
	sectStrOffsets = 6
	sectRnglists   = 8 // v5 only (v2's 8 is DW_SECT_MACRO)
)

// dwpIndex is a parsed .debug_cu_index.
type dwpIndex struct {
	version int
	cols    []uint32       // section id of each column
	rows    map[uint64]int // DWO id -> row (0-based)
	offs    [][]uint32     // per row, per column
	sizes   [][]uint32     // per row, per column
}

// parseDWPIndex decodes a .debug_cu_index (or .debug_tu_index) section.
func parseDWPIndex(sec []byte) (*dwpIndex, error) {
	bad := func(msg string) error { return &DecodeError{Section: ".debug_cu_index", Msg: msg} }
	if len(sec) < 16 {
		return nil, bad("short header")
	}
	le := binary.LittleEndian
	x := &dwpIndex{rows: map[uint64]int{}}
	switch v := le.Uint32(sec); v {
	case 2, 5:
		x.version = int(v)
	default:
		return nil, bad(fmt.Sprintf("unsupported index version %d", v))
	}
	ncol, nunit, nslot := uint64(le.Uint32(sec[4:])), uint64(le.Uint32(sec[8:])), uint64(le.Uint32(sec[12:]))
	// Slots hold an 8-byte id and a 4-byte row; each row 2*ncol words;
	// plus a header row of ncol words.
	need := 16 + nslot*12 + ncol*4 + nunit*ncol*8
	if nunit == 0 && nslot == 0 {
		return x, nil // empty: binutils' dwp of DWARF 5 units writes this
	}
	if ncol == 0 || ncol > 16 || nunit > nslot || nslot > uint64(len(sec)) || need > uint64(len(sec)) {
		return nil, bad("table sizes past the end of the section")
	}
	ids := sec[16:]
	idx := ids[nslot*8:]
	hdr := idx[nslot*4:]
	for c := uint64(0); c < ncol; c++ {
		x.cols = append(x.cols, le.Uint32(hdr[c*4:]))
	}
	offs := hdr[ncol*4:]
	sizes := offs[nunit*ncol*4:]
	for r := uint64(0); r < nunit; r++ {
		o, s := make([]uint32, ncol), make([]uint32, ncol)
		for c := uint64(0); c < ncol; c++ {
			o[c] = le.Uint32(offs[(r*ncol+c)*4:])
			s[c] = le.Uint32(sizes[(r*ncol+c)*4:])
		}
		x.offs, x.sizes = append(x.offs, o), append(x.sizes, s)
	}
	for i := uint64(0); i < nslot; i++ {
		row := uint64(le.Uint32(idx[i*4:]))
		if row == 0 {
			continue
		}
		if row > nunit {
			return nil, bad(fmt.Sprintf("slot %d names row %d of %d", i, row, nunit))
		}
		x.rows[le.Uint64(ids[i*8:])] = int(row - 1)
	}
	return x, nil
}

// contribution is the part of sec that column id of row r names, nil when
// the unit has none in that section.
func (x *dwpIndex) contribution(r, id int, sec []byte) ([]byte, error) {
	for c, col := range x.cols {
		if int(col) != id {
			continue
		}
		o, n := uint64(x.offs[r][c]), uint64(x.sizes[r][c])
		if o+n > uint64(len(sec)) {
			return nil, &DecodeError{Section: ".debug_cu_index", Offset: o, Msg: "contribution past the end of its section"}
		}
		return sec[o : o+n], nil
	}
	return nil, nil
}

// dwpPackage is an opened BINARY.dwp: its index and whole sections.
type dwpPackage struct {
	path  string
	index *dwpIndex
	whole dwoSections // the package's sections, whole
}

// openDWP opens BINARY.dwp next to the binary, nil when there is none.
// A package with no unit in it is an error naming it and what it lacks,
// not debuginfo missing (which would fall back to the symbol table).
func openDWP(binary string) (*dwpPackage, error) {
	path := binary + ".dwp"
	if _, err := os.Stat(path); err != nil {
		return nil, nil
	}
	x, err := readDWPIndex(path)
	if err != nil {
		return nil, err
	}
	whole, err := readDWO(path)
	if err != nil && !errors.Is(err, ErrNoDebugInfo) {
		return nil, err
	}
	if noInfo := err != nil; noInfo || len(x.rows) == 0 {
		// binutils' dwp writes DWARF 5 split units this way: an index
		// with no unit and no .debug_info.dwo (llvm-dwp packs them).
		return nil, &DWPError{Path: path, Lacks: dwpLacks(noInfo, len(x.rows) == 0)}
	}
	return &dwpPackage{path: path, index: x, whole: *whole}, nil
}

// readDWPIndex reads the .debug_cu_index of the package at path.
func readDWPIndex(path string) (*dwpIndex, error) {
	ef, err := openELF(path)
	if err != nil {
		return nil, err
	}
	defer ef.Close()
	s := ef.Section(".debug_cu_index")
	if s == nil {
		return nil, fmt.Errorf("%s: %w: no .debug_cu_index", path, ErrSplitDWARF)
	}
	b, err := s.Data()
	if err != nil {
		return nil, &DecodeError{Section: ".debug_cu_index", Msg: err.Error()}
	}
	x, err := parseDWPIndex(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return x, nil
}

// unit is the package's part for skeleton s, found by its DWO id.
func (p *dwpPackage) unit(s *skeleton) (*dwoSections, error) {
	r, ok := p.index.rows[s.id]
	if !ok {
		return nil, &DWOError{Binary: p.path, Want: s.id, Tried: []string{fmt.Sprintf("%s (no unit with DWO id %#x)", p.path, s.id)}}
	}
	w := &p.whole
	d := &dwoSections{path: p.path, str: w.str}
	locCol, loc := sectLoc, &d.loc
	if p.index.version == 5 {
		loc = &d.loclists
	}
	for _, c := range []struct {
		id  int
		src []byte
		dst *[]byte
	}{
		{sectInfo, w.info, &d.info}, {sectAbbrev, w.abbrev, &d.abbrev},
		{sectStrOffsets, w.strOff, &d.strOff}, {locCol, pick(p.index.version == 5, w.loclists, w.loc), loc},
	} {
		var err error
		if *c.dst, err = p.index.contribution(r, c.id, c.src); err != nil {
			return nil, fmt.Errorf("%s: %w", p.path, err)
		}
	}
	if p.index.version == 5 {
		var err error
		if d.rnglists, err = p.index.contribution(r, sectRnglists, w.rnglists); err != nil {
			return nil, fmt.Errorf("%s: %w", p.path, err)
		}
	}
	if d.info == nil {
		return nil, fmt.Errorf("%s: %w: unit %#x has no .debug_info.dwo contribution", p.path, ErrSplitDWARF, s.id)
	}
	return d, nil
}

// DWPError is a split DWARF package (.dwp) with no unit in it. It wraps
// ErrSplitDWARF and ErrNoDebugInfo.
type DWPError struct {
	Path  string
	Lacks string // "no .debug_info.dwo section", ...
}

func (e *DWPError) Error() string {
	return fmt.Sprintf("split DWARF package %s has %s (made by binutils' dwp from DWARF 5 units? llvm-dwp packages them)", e.Path, e.Lacks)
}

func (e *DWPError) Unwrap() []error { return []error{ErrSplitDWARF, ErrNoDebugInfo} }

// dwpLacks says what an empty package lacks.
func dwpLacks(noInfo, noUnits bool) string {
	switch {
	case noInfo && noUnits:
		return "no .debug_info.dwo section and no unit in its .debug_cu_index"
	case noInfo:
		return "no .debug_info.dwo section"
	}
	return "no unit in its .debug_cu_index"
}

func pick(c bool, a, b []byte) []byte {
	if c {
		return a
	}
	return b
}
