package dwarfres

import (
	"debug/dwarf"
	"fmt"
)

// die is the subset of a debugging information entry that probe resolution
// needs. Strings are kept as (form, value) and resolved on demand: a scan
// over thousands of DIEs should not allocate a name for each. It holds no
// pointers and only what every DIE may carry (112 bytes): a decoded unit of
// a vmlinux has hundreds of thousands of them, and a pointer-free array
// costs the garbage collector nothing to scan. What only a unit's root
// carries (bases, DW_AT_comp_dir) stays in the reader.
type die struct {
	Off     uint64 // section offset
	nameVal uint64 // for DW_FORM_string, the string's section offset
	Origin  uint64 // DW_AT_abstract_origin or DW_AT_specification target
	LowPC   uint64
	HighPC  uint64 // absolute after decode
	EntryPC uint64
	Sibling uint64

	rangesVal uint64
	Tag       dwarf.Tag
	Depth     int32 // 0 for the unit root
	Parent    int32 // index of the parent in a decoded unit, -1 for the root
	DeclFile  int32
	DeclLine  int32
	CallFile  int32
	CallLine  int32

	nameForm   form
	rangesForm form

	Children     bool
	OriginIsSpec bool
	HasOrigin    bool
	HasLow       bool
	HasHigh      bool
	HasEntry     bool
	HasRanges    bool
	Inline       bool // DW_AT_inline present
	Declaration  bool
	HasCallFile  bool
	HasCallLine  bool
	Lazy         bool   // children not decoded: cuTree.body
	Lang         uint16 // DW_AT_language, on unit roots
}

// rootAttrs are the attributes only a unit's root DIE carries.
type rootAttrs struct {
	compDirForm, stmtForm                  form
	compDirVal, stmtVal                    uint64
	strOffBase, addrBase, rngBase, locBase uint64
}

// reader walks the DIEs of one unit in order.
type reader struct {
	f     *File
	u     *unit
	b     buf
	tab   abbrevTable
	depth int
	err   error
	// root receives the root-only attributes of the DIEs read; highRel
	// says the DIE being read has DW_AT_high_pc as an offset.
	root    rootAttrs
	highRel bool
}

func (f *File) newReader(u *unit) *reader { return f.newReaderTab(u, nil) }

// newReaderTab is newReader with u's abbreviation table, when tab is not
// nil (the index's build parses them itself: abbrevScratch).
func (f *File) newReaderTab(u *unit, tab *abbrevTable) *reader {
	info := f.sec(".debug_info")
	r := &reader{f: f, u: u, b: buf{sec: ".debug_info", base: u.dieOff, data: info[u.dieOff:u.end], order: f.Order}}
	if tab != nil {
		r.tab = *tab
	} else {
		r.tab, r.err = f.abbrevs.table(u.abbrevOff)
	}
	return r
}

func (r *reader) failure(off uint64, msg string) error {
	return &DecodeError{Section: ".debug_info", Offset: off, Msg: msg}
}

// seek positions the reader at section offset off with the given depth.
func (r *reader) seek(off uint64, depth int) {
	r.b.off = int(off - r.b.base)
	r.depth = depth
}

// next decodes the next non-null DIE into d. It returns false at the end of
// the unit or on error (r.err). Null entries only adjust the depth.
func (r *reader) next(d *die) bool {
	if r.err != nil {
		return false
	}
	for {
		if r.b.off >= len(r.b.data) {
			return false
		}
		off := r.b.pos()
		code := r.b.uleb()
		if r.b.err != nil {
			r.err = r.b.err
			return false
		}
		if code == 0 {
			r.depth--
			continue
		}
		a := r.tab.get(code)
		if a == nil {
			r.err = r.failure(off, fmt.Sprintf("unknown abbreviation code %d", code))
			return false
		}
		*d = die{Off: off, Tag: a.tag, Children: a.children, Depth: int32(r.depth), Parent: -1}
		r.highRel = false
		if a.plan != nil {
			r.runPlan(d, a)
		} else {
			for i := range a.attrs {
				r.attr(d, &a.attrs[i])
			}
		}
		if r.b.err != nil {
			r.err = r.b.err
			return false
		}
		if d.HasHigh && r.highRel {
			d.HighPC += d.LowPC
		}
		if a.children {
			r.depth++
		}
		return true
	}
}

// skipChildren moves past d's children using DW_AT_sibling when present,
// else by walking them; the reader is left just after d's closing null.
func (r *reader) skipChildren(d *die) {
	if !d.Children {
		return
	}
	if d.Sibling > d.Off && d.Sibling <= r.u.end {
		r.seek(d.Sibling, int(d.Depth))
		return
	}
	var c die
	for r.depth > int(d.Depth) && r.err == nil && r.b.off < len(r.b.data) {
		if r.b.data[r.b.off] == 0 { // a null entry closes one level
			r.b.off++
			r.depth--
			continue
		}
		if !r.next(&c) {
			return
		}
		if c.Children && c.Sibling > c.Off && c.Sibling <= r.u.end {
			r.seek(c.Sibling, int(c.Depth))
		}
	}
}

// attr decodes one attribute, storing those probe resolution needs.
func (r *reader) attr(d *die, aa *abbrevAttr) {
	form, v, _ := r.value(aa)
	r.store(d, aa.attr, form, v)
}

// value decodes one attribute's value: integers, references (as section
// offsets), string offsets and indexes in v; inline strings and blocks
// (exprloc included) in blk, which aliases the section. An inline string's
// v is its section offset.
func (r *reader) value(aa *abbrevAttr) (fm form, v uint64, blk []byte) {
	b := &r.b
	u := r.u
	fm = aa.form
	if fm == formIndirect {
		fm = form(b.uleb())
	}
	var inl []byte
	switch fm {
	case formAddr:
		v = b.uint(u.addrSize)
	case formAddrx, formGNUAddrIndex:
		v = r.addrx(b.uleb())
	case formAddrx1:
		v = r.addrx(uint64(b.u8()))
	case formAddrx2:
		v = r.addrx(uint64(b.u16()))
	case formAddrx3:
		v = r.addrx(uint64(b.u24()))
	case formAddrx4:
		v = r.addrx(uint64(b.u32()))
	case formBlock1:
		inl = r.block(uint64(b.u8()))
	case formBlock2:
		inl = r.block(uint64(b.u16()))
	case formBlock4:
		inl = r.block(uint64(b.u32()))
	case formBlock, formExprloc:
		inl = r.block(b.uleb())
	case formData1, formRef1, formFlag, formStrx1:
		v = uint64(b.u8())
	case formData2, formRef2, formStrx2:
		v = uint64(b.u16())
	case formStrx3:
		v = uint64(b.u24())
	case formData4, formRef4, formRefSup4, formStrx4:
		v = uint64(b.u32())
	case formData8, formRef8, formRefSig8, formRefSup8:
		v = b.u64()
	case formData16:
		inl = r.block(16)
	case formSdata:
		v = uint64(b.sleb())
	case formUdata, formRefUdata, formStrx, formGNUStrIndex, formLoclistx, formRnglistx:
		v = b.uleb()
	case formString:
		start := b.off
		v = b.pos()
		b.skipCstr()
		if b.off > start {
			inl = b.data[start : b.off-1]
		}
	case formStrp, formLineStrp, formSecOffset, formStrpSup, formGNUStrpAlt, formGNURefAlt:
		v = b.uint(u.offSize)
	case formRefAddr:
		if u.version <= 2 {
			v = b.uint(u.addrSize)
		} else {
			v = b.uint(u.offSize)
		}
	case formFlagPresent:
		v = 1
	case formImplicitConst:
		v = uint64(aa.ic)
	default:
		b.fail(fmt.Sprintf("unknown attribute form %#x", fm))
		return fm, 0, nil
	}
	if fm.unitRelative() {
		v += u.off // a section offset from here on
	}
	return fm, v, inl
}

// block returns the next n bytes of the unit as a block attribute value.
func (r *reader) block(n uint64) []byte {
	b := &r.b
	if n > uint64(len(b.data)-b.off) {
		b.fail("block length past end of unit")
		return nil
	}
	blk := b.data[b.off : b.off+int(n)]
	b.off += int(n)
	return blk
}

// store keeps the attributes probe resolution needs in d, and the root's
// own in r.root.
func (r *reader) store(d *die, at dwarf.Attr, fm form, v uint64) {
	switch at {
	case dwarf.AttrName:
		d.nameForm, d.nameVal = fm, v
	case dwarf.AttrCompDir:
		r.root.compDirForm, r.root.compDirVal = fm, v
	case dwarf.AttrStmtList:
		r.root.stmtForm, r.root.stmtVal = fm, v
	case dwarf.AttrAbstractOrigin:
		d.Origin, d.HasOrigin, d.OriginIsSpec = originRef(fm, v), isOriginForm(fm), false
	case dwarf.AttrSpecification:
		if !d.HasOrigin {
			d.Origin, d.HasOrigin, d.OriginIsSpec = originRef(fm, v), isOriginForm(fm), true
		}
	case dwarf.AttrLowpc:
		d.LowPC, d.HasLow = v, true
	case dwarf.AttrHighpc:
		d.HighPC, d.HasHigh, r.highRel = v, true, fm.class() != classAddress
	case dwarf.AttrEntrypc:
		d.EntryPC, d.HasEntry = v, true
		if fm.class() != classAddress {
			// DWARF 5 allows entry_pc as an offset from low_pc.
			d.EntryPC += d.LowPC
		}
	case dwarf.AttrRanges:
		d.rangesVal, d.rangesForm, d.HasRanges = v, fm, true
	case dwarf.AttrInline:
		d.Inline = true
	case dwarf.AttrDeclaration:
		d.Declaration = v != 0
	case dwarf.AttrDeclFile:
		d.DeclFile = int32(v)
	case dwarf.AttrDeclLine:
		d.DeclLine = int32(v)
	case dwarf.AttrCallFile:
		d.CallFile, d.HasCallFile = int32(v), true
	case dwarf.AttrCallLine:
		d.CallLine, d.HasCallLine = int32(v), true
	case dwarf.AttrSibling:
		d.Sibling = v
	case dwarf.AttrLanguage:
		d.Lang = uint16(v)
	case atStrOffsetsBase:
		r.root.strOffBase = v
	case atAddrBase:
		r.root.addrBase = v
	case atRnglistsBase:
		r.root.rngBase = v
	case atLoclistsBase:
		r.root.locBase = v
	}
}

// addrx resolves an index into .debug_addr using the unit's DW_AT_addr_base.
// The root DIE's own addrx forms are resolved before the base is known; no
// producer we know emits those.
func (r *reader) addrx(i uint64) uint64 {
	sec := r.f.sec(".debug_addr")
	base := r.u.addrB
	if base == 0 && r.u.version >= 5 {
		base = 8 // first table's header
	}
	off := base + i*uint64(r.u.addrSize)
	if off+uint64(r.u.addrSize) > uint64(len(sec)) {
		r.b.fail("address index out of range of .debug_addr")
		return 0
	}
	b := buf{data: sec[off:], order: r.f.Order}
	return b.uint(r.u.addrSize)
}

// dieString resolves a string attribute value.
func (f *File) dieString(u *unit, fm form, v uint64) string {
	var sec []byte
	switch fm {
	case 0:
		return ""
	case formStrp:
		sec = f.sec(".debug_str")
	case formGNUStrpAlt, formStrpSup: // dwz: the supplementary file's
		sec = f.altSec(".debug_str")
	case formLineStrp:
		sec = f.sec(".debug_line_str")
	case formStrx, formStrx1, formStrx2, formStrx3, formStrx4, formGNUStrIndex:
		so := f.sec(".debug_str_offsets")
		base := u.strOffB
		if base == 0 && u.version >= 5 {
			base = 8
		}
		o := base + v*uint64(u.offSize)
		if o+uint64(u.offSize) > uint64(len(so)) {
			return ""
		}
		b := buf{data: so[o:], order: f.Order}
		v = b.uint(u.offSize)
		sec = f.sec(".debug_str")
	default:
		return ""
	}
	s, _ := cstrAt(sec, v)
	return s
}

// rawName returns a DIE's own DW_AT_name (not following origins).
func (f *File) rawName(u *unit, d *die) string {
	if d.nameForm == formString {
		s, _ := cstrAt(f.sec(".debug_info"), d.nameVal)
		return s
	}
	return f.dieString(u, d.nameForm, d.nameVal)
}

// HasName reports whether the DIE itself carries DW_AT_name.
func (d *die) HasName() bool { return d.nameForm != 0 }
