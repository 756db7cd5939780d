package dwarfres

import (
	"debug/dwarf"
	"fmt"
	"sort"
	"sync"
)

// unit is one compilation unit header plus what its root DIE says.
type unit struct {
	off, end  uint64 // section offsets: header start, one past the end
	dieOff    uint64 // first DIE
	version   int
	addrSize  int
	offSize   int
	utype     uint8
	abbrevOff uint64

	rootOnce *sync.Once // a pointer so units can live in a slice
	root     die
	rootErr  error
	strOffB  uint64 // DW_AT_str_offsets_base
	addrB    uint64 // DW_AT_addr_base
	rngB     uint64 // DW_AT_rnglists_base
	locB     uint64 // DW_AT_loclists_base
	name     string
	compDir  string
	lineRef  lineRef    // the root's line table and directory, as written (linefiles.go)
	split    *splitInfo // a split DWARF unit: its skeleton and .dwo bases
}

const (
	utCompile = 1
	utType    = 2
	utPartial = 3
)

// holdsCode reports whether the unit is a compile or partial unit: type
// units and skeletons describe no functions.
func (u *unit) holdsCode() bool {
	return u.utype == utCompile || u.utype == utPartial || u.utype == utSplitCompile
}

// DW_LANG values dwarf_getfuncs treats as C (elfutils 0.188); C17 is
// there too, for producers that write it.
const (
	langC89 = 0x1
	langC   = 0x2
	langC99 = 0xc
	langC11 = 0x1d
	langC17 = 0x2c
)

// cOnly reports whether the unit is C, whose functions all sit at the top
// level; the root must have been decoded (rootDIE).
func (u *unit) cOnly() bool {
	switch u.root.Lang {
	case langC89, langC, langC99, langC11, langC17:
		return true
	}
	return false
}

// unitsList scans the unit headers of .debug_info (cheap: one hop per unit);
// skeleton units are replaced by their split units (splitter).
func (f *File) unitsList() ([]unit, error) {
	f.unitsOnce.Do(f.scanUnits)
	f.splitOnce.Do(func() {
		if f.unitsErr == nil {
			// Skeletons in separate debuginfo: their .dwo files are
			// still looked for from the binary.
			g := f
			if f.dbg != nil {
				g = f.dbg
			}
			f.units, f.unitsErr = splitter{g, f.Path}.units(f.units)
		}
	})
	return f.units, f.unitsErr
}

// scanUnits reads the unit headers into f.units.
func (f *File) scanUnits() { f.loadUnits(nil) }

// loadUnits sets f.units to hdrs, the headers an index holds, or, with
// none, to those read from .debug_info.
func (f *File) loadUnits(hdrs []unit) {
	info, err := f.section(".debug_info")
	if err != nil { // corrupt (a compressed section that does not decode), not missing
		f.unitsErr = fmt.Errorf("%s: %w", f.dwarfFile().Path, err)
		return
	}
	if info == nil {
		f.unitsErr = ErrNoDebugInfo
		return
	}
	if _, err := f.alt(); err != nil { // a dwz file without its common file
		f.unitsErr = err
		return
	}
	defer func() { f.headers = f.units }()
	if hdrs != nil {
		f.units = hdrs
		return
	}
	// Headers are read with pread rather than through the mapping:
	// touching one page per unit would fault in (and keep resident)
	// most of a vmlinux's .debug_info via fault-around.
	var hdrBuf [32]byte
	for off := uint64(0); off < uint64(len(info)); {
		data := hdrBuf[:f.readInfo(hdrBuf[:], off)]
		b := &buf{sec: ".debug_info", base: off, data: data, order: f.Order}
		u := unit{off: off, offSize: 4, rootOnce: new(sync.Once)}
		l := uint64(b.u32())
		if l == 0xffffffff {
			l = b.u64()
			u.offSize = 8
		} else if l >= 0xfffffff0 {
			f.unitsErr = &DecodeError{Section: ".debug_info", Offset: off, Msg: "reserved unit length"}
			return
		}
		hdr := uint64(b.off)
		if l > uint64(len(info))-off-hdr || l < 7 {
			f.unitsErr = &DecodeError{Section: ".debug_info", Offset: off, Msg: "unit length past end of section"}
			return
		}
		u.end = off + hdr + l
		u.version = int(b.u16())
		if u.version < 2 || u.version > 5 {
			f.unitsErr = &DecodeError{Section: ".debug_info", Offset: off, Msg: "unsupported DWARF version"}
			return
		}
		if u.version >= 5 {
			u.utype = b.u8()
			u.addrSize = int(b.u8())
			u.abbrevOff = b.uint(u.offSize)
			switch u.utype {
			case 4, 5: // skeleton, split_compile: dwo id
				b.skip(8)
			case utType, 6: // type units: signature + type offset
				b.skip(8 + u.offSize)
			}
		} else {
			u.utype = utCompile
			u.abbrevOff = b.uint(u.offSize)
			u.addrSize = int(b.u8())
		}
		if b.err != nil {
			f.unitsErr = b.err
			return
		}
		u.dieOff = off + uint64(b.off)
		f.units = append(f.units, u)
		off = u.end
	}
}

// unitIndex returns the index of the unit containing section offset off,
// or -1.
func (f *File) unitIndex(off uint64) int {
	us, _ := f.unitsList()
	i := sort.Search(len(us), func(i int) bool { return us[i].end > off })
	if i < len(us) && us[i].off <= off {
		return i
	}
	return -1
}

// rootDIE decodes the unit's root DIE and the bases DWARF 5 forms need.
func (f *File) rootDIE(u *unit) (*die, error) { return f.rootDIETab(u, nil) }

// rootDIETab is rootDIE with u's abbreviation table, when tab is not nil.
func (f *File) rootDIETab(u *unit, tab *abbrevTable) (*die, error) {
	u.rootOnce.Do(func() {
		// Bases must be known before decoding strx forms of the root
		// itself; DWARF 5 producers put them first or use strp.
		r := f.rootReader(u, tab)
		if r.err != nil {
			u.rootErr = r.err
			return
		}
		if !r.next(&u.root) {
			u.rootErr = r.failure(u.dieOff, "missing root DIE")
			return
		}
		u.strOffB = r.root.strOffBase
		u.addrB = r.root.addrBase
		u.rngB = r.root.rngBase
		u.locB = r.root.locBase
		if u.version >= 5 && u.addrB != 0 {
			// clang writes the root's DW_AT_low_pc as DW_FORM_addrx,
			// before DW_AT_addr_base: decode it again with the base known.
			r = f.rootReader(u, tab)
			if !r.next(&u.root) {
				u.rootErr = r.failure(u.dieOff, "missing root DIE")
				return
			}
		}
		if u.split != nil {
			u.applySplit()
		}
		u.name = f.dieString(u, u.root.nameForm, u.root.nameVal)
		u.compDir = f.dieString(u, r.root.compDirForm, r.root.compDirVal)
		u.lineRef = lineRef{r.root.stmtForm, r.root.stmtVal, r.root.compDirForm, r.root.compDirVal}
	})
	return &u.root, u.rootErr
}

// rootReader is newReader over a pread copy of the unit's first bytes
// when its root DIE fits in them: a query touching a thousand units' roots
// through the mapping would fault in (and keep in its RSS) 64 KB around
// each.
func (f *File) rootReader(u *unit, tab *abbrevTable) *reader {
	b := make([]byte, min(u.end-u.dieOff, 1024))
	b = b[:f.readInfo(b, u.dieOff)]
	if tab == nil {
		code := buf{data: b}
		tab = f.abbrevs.root(u.abbrevOff, code.uleb())
	}
	r := f.newReaderTab(u, tab)
	if r.err != nil {
		return r
	}
	c := *r
	c.b.data = b
	var d die
	if !c.next(&d) && uint64(len(b)) < u.end-u.dieOff {
		return r // a root larger than the copy
	}
	c = *r
	c.b.data = b
	return &c
}

// Tag names used by the walkers.
const (
	tagSubprogram = dwarf.TagSubprogram
	tagInlined    = dwarf.TagInlinedSubroutine
)
