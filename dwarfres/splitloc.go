package dwarfres

// DW_LLE_GNU_* entry kinds of the pre-standard split location lists in a
// DWARF 4 .debug_loc.dwo (gcc -gdwarf-4 -gsplit-dwarf; binutils'
// display_loc_list_dwo): addresses are .debug_addr indices.
const (
	lleGNUEnd         = 0
	lleGNUBase        = 1
	lleGNUStartEnd    = 2
	lleGNUStartLength = 3
)

// locListGNU reads the DWARF 4 split location list at off in .debug_loc
// (the .dwo's, appended there by splitter.attach).
func (l unitLists) locListGNU(off uint64) ([]LocEntry, error) {
	f, u := l.f, l.u
	sec := f.sec(".debug_loc")
	if off >= uint64(len(sec)) {
		return nil, &DecodeError{Section: ".debug_loc.dwo", Offset: off, Msg: "offset out of range"}
	}
	b := &buf{sec: ".debug_loc.dwo", base: off, data: sec[off:], order: f.Order}
	r := &reader{f: f, u: u}
	var out []LocEntry
	var views [2]uint64
	for b.err == nil {
		e := LocEntry{BeginView: views[0], EndView: views[1]}
		switch b.u8() {
		case lleGNUEnd:
			return out, b.err
		case lleGNUViewPair:
			views = [2]uint64{b.uleb(), b.uleb()}
			continue
		case lleGNUBase:
			b.uleb() // entries below carry absolute addresses
			continue
		case lleGNUStartEnd:
			e.Low, e.High = r.addrx(b.uleb()), r.addrx(b.uleb())
		case lleGNUStartLength:
			e.Low = r.addrx(b.uleb())
			e.High = e.Low + uint64(b.u32())
		default:
			b.fail("unknown split location list entry kind")
			return nil, b.err
		}
		n := int(b.u16())
		if !b.need(n) {
			return nil, b.err
		}
		e.Expr = b.data[b.off : b.off+n]
		b.off += n
		if r.b.err != nil {
			return nil, r.b.err
		}
		views = [2]uint64{}
		out = append(out, e)
	}
	return out, b.err
}
