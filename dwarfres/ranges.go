package dwarfres

// Range is a half-open address range [Low, High).
type Range struct{ Low, High uint64 }

// ranges returns the address ranges of d (low/high or DW_AT_ranges).
func (l unitLists) ranges(d *die) ([]Range, error) {
	f, u := l.f, l.u
	if u.splitCU() && d.Depth == 0 {
		return u.split.skel.ranges, nil
	}
	if d.HasLow && d.HasHigh {
		return []Range{{d.LowPC, d.HighPC}}, nil
	}
	if d.HasLow && !d.HasRanges {
		return []Range{{d.LowPC, d.LowPC + 1}}, nil
	}
	if !d.HasRanges {
		return nil, nil
	}
	root, err := f.rootDIE(u)
	if err != nil {
		return nil, err
	}
	base := root.LowPC
	off := d.rangesVal
	if u.split != nil && d.rangesForm == formSecOffset {
		off += u.split.rangesSecBase(u)
	}
	if u.version < 5 {
		return l.ranges4(off, base)
	}
	if d.rangesForm == formRnglistx {
		sec := f.sec(".debug_rnglists")
		o := u.rngB + off*uint64(u.offSize)
		if o+uint64(u.offSize) > uint64(len(sec)) {
			return nil, &DecodeError{Section: ".debug_rnglists", Offset: o, Msg: "range list index out of range"}
		}
		b := buf{data: sec[o:], order: f.Order}
		off = u.rngB + b.uint(u.offSize)
	}
	return l.ranges5(off, base)
}

func (l unitLists) ranges4(off, base uint64) ([]Range, error) {
	var out []Range
	err := l.pairList(".debug_ranges", off, base, func(lo, hi uint64, _ *buf) {
		if lo != hi {
			out = append(out, Range{lo, hi})
		}
	})
	return out, err
}

// pairList walks a DWARF 2-4 list of address pairs (.debug_ranges,
// .debug_loc): base-address selection entries, the (0, 0) end, and for each
// other entry fn with the rebased range and the cursor after the pair (where
// .debug_loc keeps its expression).
func (l unitLists) pairList(name string, off, base uint64, fn func(lo, hi uint64, b *buf)) error {
	f, u := l.f, l.u
	sec := f.sec(name)
	if off >= uint64(len(sec)) {
		return &DecodeError{Section: name, Offset: off, Msg: "offset out of range"}
	}
	b := &buf{sec: name, base: off, data: sec[off:], order: f.Order}
	max := ^uint64(0)
	if u.addrSize == 4 {
		max = 0xffffffff
	}
	for b.err == nil {
		lo, hi := b.uint(u.addrSize), b.uint(u.addrSize)
		if b.err != nil {
			break
		}
		if lo == 0 && hi == 0 {
			return nil
		}
		if lo == max {
			base = hi
			continue
		}
		fn(base+lo, base+hi, b)
	}
	return b.err
}

// DW_RLE_* from DWARF 5 section 7.25.
const (
	rleEndOfList    = 0
	rleBaseAddressx = 1
	rleStartxEndx   = 2
	rleStartxLength = 3
	rleOffsetPair   = 4
	rleBaseAddress  = 5
	rleStartEnd     = 6
	rleStartLength  = 7
)

func (l unitLists) ranges5(off, base uint64) ([]Range, error) {
	f, u := l.f, l.u
	sec := f.sec(".debug_rnglists")
	if off >= uint64(len(sec)) {
		return nil, &DecodeError{Section: ".debug_rnglists", Offset: off, Msg: "offset out of range"}
	}
	b := &buf{sec: ".debug_rnglists", base: off, data: sec[off:], order: f.Order}
	r := &reader{f: f, u: u}
	var out []Range
	for b.err == nil {
		kind := b.u8()
		var lo, hi uint64
		switch kind {
		case rleEndOfList:
			return out, b.err
		case rleBaseAddressx:
			base = r.addrx(b.uleb())
			continue
		case rleStartxEndx:
			lo, hi = r.addrx(b.uleb()), r.addrx(b.uleb())
		case rleStartxLength:
			lo = r.addrx(b.uleb())
			hi = lo + b.uleb()
		case rleOffsetPair:
			lo, hi = base+b.uleb(), base+b.uleb()
		case rleBaseAddress:
			base = b.uint(u.addrSize)
			continue
		case rleStartEnd:
			lo, hi = b.uint(u.addrSize), b.uint(u.addrSize)
		case rleStartLength:
			lo = b.uint(u.addrSize)
			hi = lo + b.uleb()
		default:
			b.fail("unknown range list entry kind")
		}
		if r.b.err != nil {
			return nil, r.b.err
		}
		if b.err == nil && lo != hi {
			out = append(out, Range{lo, hi})
		}
	}
	return out, b.err
}

func inRanges(rs []Range, pc uint64) bool {
	for _, r := range rs {
		if pc >= r.Low && pc < r.High {
			return true
		}
	}
	return false
}
