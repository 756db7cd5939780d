package dwarfres

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Split DWARF (gcc and clang -gsplit-dwarf): the binary keeps one skeleton
// unit per compilation unit (DW_UT_skeleton in DWARF 5, a compile unit with
// DW_AT_GNU_dwo_name in DWARF 4) with the line table, the address table and
// the unit's ranges; the DIEs live in a .dwo file per unit. Like libdw's
// dwarf_cu_dwp/dwo lookup, the .dwo is DW_AT_dwo_name under DW_AT_comp_dir,
// or that name next to the binary.
//
// The .dwo sections are appended to copies of the binary's own sections in
// a synthetic File attached as f.dbg: offsets into the binary's sections
// (skeletons, .debug_addr, .debug_line) stay valid, and each split unit
// records where its .dwo's sections start (its bases).

// Attribute codes of split DWARF (DWARF 5 and the GNU extension).
const (
	atDwoName       = dwarf.Attr(0x76)
	atGNUDwoName    = dwarf.Attr(0x2130)
	atGNUDwoID      = dwarf.Attr(0x2131)
	atGNURangesBase = dwarf.Attr(0x2132)
	atGNUAddrBase   = dwarf.Attr(0x2133)
)

const (
	utSkeleton     = 4
	utSplitCompile = 5
)

// ErrSplitDWARF: a skeleton unit's .dwo (or .dwp) is missing or is not
// the one the binary was built with. Errors wrapping it wrap ErrNoDebugInfo
// too.
var ErrSplitDWARF = errors.New("split DWARF file missing or mismatched")

// DWOError reports a split unit whose .dwo is missing or is not the one the
// skeleton was built with. It wraps ErrNoDebugInfo.
type DWOError struct {
	Binary string   // the binary with the skeleton unit
	Tried  []string // the paths looked at
	Want   uint64   // the skeleton's DWO id
	Got    uint64   // the .dwo's, when one was found with another id
	Found  string   // that .dwo
}

func (e *DWOError) Error() string {
	if e.Found != "" {
		return fmt.Sprintf("%s: split DWARF %s has DWO id %#x, the skeleton unit wants %#x", e.Binary, e.Found, e.Got, e.Want)
	}
	return fmt.Sprintf("%s: split DWARF file %s not found", e.Binary, joinTried(e.Tried))
}

func (e *DWOError) Unwrap() []error { return []error{ErrSplitDWARF, ErrNoDebugInfo} }

func joinTried(p []string) string {
	s := ""
	for i, x := range p {
		if i > 0 {
			s += " or "
		}
		s += x
	}
	return s
}

// skeleton is what a skeleton unit tells about its split unit.
type skeleton struct {
	u          unit    // the skeleton unit in the binary, root decoded
	ranges     []Range // the unit's code, from the skeleton
	dwoName    string
	compDir    string
	id         uint64
	addrBase   uint64
	rangesBase uint64 // DWARF 4: DW_AT_GNU_ranges_base
}

// splitInfo ties a split unit to its skeleton and to where its .dwo's
// sections start in the synthetic file.
type splitInfo struct {
	skel                            *skeleton
	strOffB, locB, rngB, rngSecBase uint64
	locSecBase                      uint64
	gnuLoc                          bool // DWARF 4: DW_LLE_GNU_* entries
}

// splitter is the job of attaching split DWARF: it replaces the skeleton
// units of f (the binary, or its separate debuginfo) by their split units,
// read from the .dwo or .dwp files found from binPath, the binary's path
// (units), and attaches the synthetic file holding their sections to f
// (attach, dwo.go).
type splitter struct {
	f       *File
	binPath string
}

// skeletonOf reports whether u is a skeleton unit and, if so, decodes it.
func (w splitter) skeletonOf(u *unit) (*skeleton, bool, error) {
	f := w.f
	if u.version >= 5 && u.utype != utSkeleton || u.version < 4 {
		return nil, false, nil
	}
	d, err := f.unitData(u)
	if err != nil {
		return nil, false, err
	}
	cu, err := d.Reader().Next()
	if err != nil || cu == nil {
		return nil, false, &DecodeError{Section: ".debug_info", Offset: u.off, Msg: "cannot read unit root"}
	}
	s := &skeleton{u: *u}
	s.dwoName, _ = cu.Val(atDwoName).(string)
	if s.dwoName == "" {
		s.dwoName, _ = cu.Val(atGNUDwoName).(string)
	}
	if s.dwoName == "" {
		return nil, false, nil
	}
	s.compDir, _ = cu.Val(dwarf.AttrCompDir).(string)
	if id, ok := cu.Val(atGNUDwoID).(int64); ok {
		s.id = uint64(id)
	} else {
		s.id = w.headerDwoID(u)
	}
	if v, ok := cu.Val(atGNUAddrBase).(int64); ok {
		s.addrBase = uint64(v)
	}
	if v, ok := cu.Val(atGNURangesBase).(int64); ok {
		s.rangesBase = uint64(v)
	}
	s.u.rootOnce = new(sync.Once)
	root, err := f.rootDIE(&s.u)
	if err != nil {
		return nil, false, err
	}
	s.addrBase = max(s.addrBase, s.u.addrB)
	if s.ranges, err = (unitLists{f, &s.u}).ranges(root); err != nil {
		return nil, false, err
	}
	return s, true, nil
}

// headerDwoID reads the DWO id of a DWARF 5 skeleton or split unit header
// (32-bit DWARF: length, version, unit type, address size, abbrev offset).
func (w splitter) headerDwoID(u *unit) uint64 {
	f := w.f
	var hdr [20]byte
	n := f.readInfo(hdr[:], u.off)
	if n < 20 {
		return 0
	}
	return f.Order.Uint64(hdr[12:20])
}

// dwoPaths is where the .dwo of s is looked for, in order: its name
// under its comp_dir (a relative comp_dir, -fdebug-prefix-map=DIR=., counts
// from the binary's directory, as gdb does), then its base name beside the
// binary.
func dwoPaths(binary string, s *skeleton) []string {
	var out []string
	add := func(p string) {
		for _, q := range out {
			if q == p {
				return
			}
		}
		out = append(out, p)
	}
	dir := filepath.Dir(binary)
	switch {
	case filepath.IsAbs(s.dwoName):
		add(s.dwoName)
	case filepath.IsAbs(s.compDir):
		add(filepath.Join(s.compDir, s.dwoName))
	default:
		add(filepath.Join(dir, s.compDir, s.dwoName))
	}
	add(filepath.Join(dir, filepath.Base(s.dwoName)))
	return out
}

// dwoSections are the sections of one .dwo (or of one unit of a .dwp).
type dwoSections struct {
	path                                               string
	info, abbrev, str, strOff, loclists, rnglists, loc []byte
}

func readDWO(path string) (*dwoSections, error) {
	ef, err := openELF(path)
	if err != nil {
		return nil, err
	}
	defer ef.Close()
	s := &dwoSections{path: path}
	dst := map[string]*[]byte{
		".debug_info.dwo": &s.info, ".debug_abbrev.dwo": &s.abbrev,
		".debug_str.dwo": &s.str, ".debug_str_offsets.dwo": &s.strOff,
		".debug_loclists.dwo": &s.loclists, ".debug_rnglists.dwo": &s.rnglists,
		".debug_loc.dwo": &s.loc,
	}
	// gcc -fdebug-types-section writes one .debug_info.dwo section per
	// type unit: sections of one name are read as one, in file order.
	for _, sec := range ef.Sections {
		d, ok := dst[sec.Name]
		if !ok || sec.Type == elf.SHT_NOBITS {
			continue
		}
		b, err := sec.Data()
		if err != nil {
			return nil, &DecodeError{Section: sec.Name, Msg: err.Error()}
		}
		*d = append(*d, b...)
	}
	if s.info == nil {
		return nil, fmt.Errorf("%s: %w (no .debug_info.dwo)", path, ErrNoDebugInfo)
	}
	return s, nil
}

// findDWO opens the .dwo of s and checks its id.
func findDWO(binary string, s *skeleton) (*dwoSections, error) {
	tried := dwoPaths(binary, s)
	for _, p := range tried {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		d, err := readDWO(p)
		if err != nil {
			return nil, err
		}
		if got := dwoID(d.info, s.u.version); got != s.id && got != 0 {
			return nil, &DWOError{Binary: binary, Want: s.id, Got: got, Found: p}
		}
		return d, nil
	}
	return nil, &DWOError{Binary: binary, Tried: tried, Want: s.id}
}

// dwoID is the DWO id of the split compile unit of a .dwo, from its DWARF
// 5 header (type units, -fdebug-types-section, may come first); 0 for
// DWARF 4, whose id is an attribute.
func dwoID(info []byte, version int) uint64 {
	if version < 5 {
		return 0
	}
	le := binary.LittleEndian
	for off := 0; off+20 <= len(info); {
		l := uint64(le.Uint32(info[off:]))
		if info[off+6] == utSplitCompile {
			return le.Uint64(info[off+12:])
		}
		if l >= 0xfffffff0 || l > uint64(len(info)-off-4) {
			break
		}
		off += 4 + int(l)
	}
	return 0
}

// units replaces skeleton units by their split units when w.f has any,
// attaching the synthetic file that holds the .dwo sections.
func (w splitter) units(us []unit) ([]unit, error) {
	f, binPath := w.f, w.binPath
	var skels []*skeleton
	for i := range us {
		s, ok, err := w.skeletonOf(&us[i])
		if err != nil {
			return nil, err
		}
		if ok {
			skels = append(skels, s)
		}
	}
	if len(skels) == 0 {
		return us, nil
	}
	if f.Order != binary.LittleEndian {
		return nil, fmt.Errorf("%s: %w (split DWARF on a big-endian target)", f.Path, ErrNoDebugInfo)
	}
	dwos := make([]*dwoSections, len(skels))
	pkg, err := openDWP(binPath)
	if err != nil {
		return nil, err
	}
	for i, s := range skels {
		if pkg != nil {
			dwos[i], err = pkg.unit(s)
		} else {
			dwos[i], err = findDWO(binPath, s)
		}
		if err != nil {
			return nil, err
		}
	}
	return w.attach(skels, dwos)
}
