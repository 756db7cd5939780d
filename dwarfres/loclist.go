package dwarfres

// Location lists (DWARF 4 .debug_loc, DWARF 5 .debug_loclists): which
// location expression describes a variable at a given pc. debug/dwarf reads
// neither, and delve's reader resolves no DW_FORM_loclistx, so they are read
// here.

// DW_LLE_* from DWARF 5 section 7.7.3.
const (
	lleEndOfList       = 0
	lleBaseAddressx    = 1
	lleStartxEndx      = 2
	lleStartxLength    = 3
	lleOffsetPair      = 4
	lleDefaultLocation = 5
	lleBaseAddress     = 6
	lleStartEnd        = 7
	lleStartLength     = 8
	lleGNUViewPair     = 9 // DW_LLE_GNU_view_pair: gcc -gvariable-location-views=incompat5
)

// LocEntry is one entry of a location list: the expression valid in
// [Low, High), or everywhere not otherwise covered when Default.
// With gcc's location views the range runs from view BeginView at Low to
// view EndView at High (both 0 without views), so [X, X) with views 2-4
// is not empty: it holds at X, before the instruction there runs.
type LocEntry struct {
	Low, High          uint64
	BeginView, EndView uint64
	Default            bool
	Expr               []byte
}

// locList reads the location list of unit u at .debug_loclists offset off
// (or, for DWARF 2-4, .debug_loc offset off). For DW_FORM_loclistx pass
// index=true and the index in off: it is resolved through
// DW_AT_loclists_base. base is the unit's base address (DW_AT_low_pc).
func (l unitLists) locList(off uint64, index bool, locBase, base uint64) ([]LocEntry, error) {
	f, u := l.f, l.u
	if u.split != nil && !index {
		off += u.split.locSecBase
	}
	if u.split != nil && u.split.gnuLoc {
		return l.locListGNU(off)
	}
	if u.version < 5 {
		return l.locList4(off, base)
	}
	sec := f.sec(".debug_loclists")
	if index {
		o := locBase + off*uint64(u.offSize)
		if o+uint64(u.offSize) > uint64(len(sec)) {
			return nil, &DecodeError{Section: ".debug_loclists", Offset: o, Msg: "location list index out of range"}
		}
		b := buf{data: sec[o:], order: f.Order}
		off = locBase + b.uint(u.offSize)
	}
	if off >= uint64(len(sec)) {
		return nil, &DecodeError{Section: ".debug_loclists", Offset: off, Msg: "offset out of range"}
	}
	b := &buf{sec: ".debug_loclists", base: off, data: sec[off:], order: f.Order}
	r := &reader{f: f, u: u}
	var out []LocEntry
	var views [2]uint64 // of the next entry, from a DW_LLE_GNU_view_pair
	for b.err == nil {
		kind := b.u8()
		e := LocEntry{BeginView: views[0], EndView: views[1]}
		switch kind {
		case lleEndOfList:
			return out, b.err
		case lleGNUViewPair:
			views = [2]uint64{b.uleb(), b.uleb()}
			continue
		case lleBaseAddressx:
			base = r.addrx(b.uleb())
			continue
		case lleStartxEndx:
			e.Low, e.High = r.addrx(b.uleb()), r.addrx(b.uleb())
		case lleStartxLength:
			e.Low = r.addrx(b.uleb())
			e.High = e.Low + b.uleb()
		case lleOffsetPair:
			e.Low, e.High = base+b.uleb(), base+b.uleb()
		case lleDefaultLocation:
			e.Default = true
		case lleBaseAddress:
			base = b.uint(u.addrSize)
			continue
		case lleStartEnd:
			e.Low, e.High = b.uint(u.addrSize), b.uint(u.addrSize)
		case lleStartLength:
			e.Low = b.uint(u.addrSize)
			e.High = e.Low + b.uleb()
		default:
			b.fail("unknown location list entry kind")
			return nil, b.err
		}
		n := b.uleb()
		if n > uint64(len(b.data)-b.off) {
			b.fail("location expression past the end of the section")
			return nil, b.err
		}
		e.Expr = b.data[b.off : b.off+int(n)]
		b.off += int(n)
		if r.b.err != nil {
			return nil, r.b.err
		}
		views = [2]uint64{}
		out = append(out, e)
	}
	return out, b.err
}

func (l unitLists) locList4(off, base uint64) ([]LocEntry, error) {
	var out []LocEntry
	err := l.pairList(".debug_loc", off, base, func(lo, hi uint64, b *buf) {
		n := int(b.u16())
		if b.need(n) {
			out = append(out, LocEntry{Low: lo, High: hi, Expr: b.data[b.off : b.off+n]})
			b.off += n
		}
	})
	return out, err
}

// locAt picks the expression valid at pc: the first entry whose range
// holds it, else the entry holding pc at the earliest view (location views,
// see LocEntry), else a DW_LLE_default_location entry; ok is false when the
// variable has no location there (optimized out).
func locAt(list []LocEntry, pc uint64) (expr []byte, ok bool) {
	var def []byte
	hasDef := false
	view, first := -1, uint64(0)
	for i, e := range list {
		if e.Default {
			def, hasDef = e.Expr, true
			continue
		}
		if pc >= e.Low && pc < e.High {
			return e.Expr, true
		}
		if v, ok := e.viewAt(pc); ok && (view < 0 || v < first) {
			view, first = i, v
		}
	}
	if view >= 0 {
		return list[view].Expr, true
	}
	return def, hasDef
}

// viewAt tells whether an entry ending at pc still holds at some view of
// pc, and the first such view. Every view of pc is the machine state before
// the instruction at pc runs, which is where a probe at pc fires: gcc
// describes an inlined function's parameters only at its entry this way
// ([X, X) views 2-4) when its body is folded into the caller's code.
func (e LocEntry) viewAt(pc uint64) (uint64, bool) {
	switch {
	case e.High != pc || e.EndView == 0 || e.Low > pc:
		return 0, false
	case e.Low < pc:
		return 0, true
	case e.BeginView < e.EndView:
		return e.BeginView, true
	}
	return 0, false
}
