package dwarfres

import "debug/dwarf"

// GCC location views (-gvariable-location-views, gcc's default with -O2
// -g): view numbers tell apart the source positions that share one address,
// and a location list entry runs from a view of its start to a view of its
// end. DWARF 5 lists carry them as DW_LLE_GNU_view_pair entries (only with
// =incompat5, read by locList); by default gcc puts one pair per entry
// before the list, in the same section, at DW_AT_GNU_locviews.

// attrGNULocviews is DW_AT_GNU_locviews: the offset of a location list's
// view pairs.
const attrGNULocviews dwarf.Attr = 0x2137

// locSection is the section holding unit u's location lists (and their
// view pairs).
func locSection(u *unit) string {
	if u.version < 5 {
		return ".debug_loc"
	}
	return ".debug_loclists"
}

// viewPairs reads n (begin, end) view pairs, two ULEB128s each, at offset
// off of unit u's location section.
func (l unitLists) viewPairs(off uint64, n int) ([][2]uint64, error) {
	f, u := l.f, l.u
	name := locSection(u)
	sec := f.sec(name)
	if u.split != nil {
		off += u.split.locSecBase
	}
	if off >= uint64(len(sec)) || uint64(n) > uint64(len(sec))-off {
		return nil, &DecodeError{Section: name, Offset: off, Msg: "location views out of range"}
	}
	b := &buf{sec: name, base: off, data: sec[off:], order: f.Order}
	out := make([][2]uint64, 0, n)
	for i := 0; i < n && b.err == nil; i++ {
		out = append(out, [2]uint64{b.uleb(), b.uleb()})
	}
	return out, b.err
}

// withViews gives the entries of list, the location list of a DIE with
// attributes a, the view numbers its DW_AT_GNU_locviews holds, if any.
func (l unitLists) withViews(a attrSet, list []LocEntry) ([]LocEntry, error) {
	x, ok := a.get(attrGNULocviews)
	if !ok || len(list) == 0 {
		return list, nil
	}
	if x.form != formSecOffset && x.form != formData4 && x.form != formData8 {
		return nil, &DecodeError{Section: ".debug_info", Offset: l.u.off, Msg: "DW_AT_GNU_locviews is not a section offset"}
	}
	views, err := l.viewPairs(x.v, len(list))
	if err != nil {
		return nil, err
	}
	out := make([]LocEntry, len(list))
	for i, e := range list {
		e.BeginView, e.EndView = views[i][0], views[i][1]
		out[i] = e
	}
	return out, nil
}

// exprAtViews is exprAt for a variable with attributes a: its location
// list with its views, so that a location holding only at some views of pc
// counts there.
func (s *treeScope) exprAtViews(a attrSet, x attrVal, pc uint64) ([]byte, bool, error) {
	list, single, err := s.locEntries(x)
	if err != nil {
		return nil, false, err
	}
	if single {
		return x.blk, true, nil
	}
	if list, err = (unitLists{s.t.f, s.t.u}).withViews(a, list); err != nil {
		return nil, false, err
	}
	e, ok := locAt(list, pc)
	return e, ok, nil
}
