package dwarfres

// unitLists reads the lists a unit's attributes point into: address
// ranges (DWARF 2-4 .debug_ranges, DWARF 5 .debug_rnglists, ranges.go),
// location lists (.debug_loc, .debug_loclists, loclist.go; split DWARF 4's
// .debug_loc.dwo, splitloc.go) and gcc's location views (locview.go:
// withViews gives a location list its views). It
// is a value made where a list is read: the File whose sections hold the
// lists (the separate debuginfo's when attached) and the unit whose
// header (version, address size, bases) says how to read them.
type unitLists struct {
	f *File
	u *unit
}
