package dwarfres

// definingUnits is the units of cands that define q's function, from the
// index; ok is false without one, or where it cannot say.
func (s unitScan) definingUnits(q Query, cands []int) ([]int, bool) {
	f := s.f
	if ix := f.index(); ix != nil && !q.scan {
		return ix.definingUnits(q, cands)
	}
	return nil, false
}

// definesFunc reports whether C unit u has a top-level subprogram that is
// not a declaration and whose name (its own, or through its abstract
// origin or specification within the unit, as cuTree.name) matches q: the
// only subprograms a function query probes there. A candidate unit often
// only declares the function (every caller's unit does, and the index and
// the reference scan name them all), and reading the top-level DIEs,
// skipping their children, costs a fraction of decoding the unit. Units
// of other languages (nested functions, scoped and mangled names) say
// true: they are decoded.
func (s unitScan) definesFunc(u *unit, q Query) (bool, error) {
	f := s.f
	if _, err := f.rootDIE(u); err != nil {
		return false, err
	}
	if !u.cOnly() || needsDecodedUnit(q.fn()) || isMangled(q.fn()) {
		return true, nil
	}
	match := q.Function.Match
	r, done := f.copyReader(u)
	defer done()
	var d die
	if !r.next(&d) { // root
		return false, r.err
	}
	for r.next(&d) {
		if d.Depth < 1 {
			break
		}
		if d.Tag == tagSubprogram && !d.Declaration && match(s.integratedName(u, r, d)) {
			return true, nil
		}
		r.skipChildren(&d)
	}
	return false, r.err
}

// integratedName is cuTree.name for a DIE read by r outside a decoded
// unit: DW_AT_name, following origins (at most 8) within the unit, read
// with a copy of r.
func (s unitScan) integratedName(u *unit, r *reader, d die) string {
	f := s.f
	for n := 0; n < 8; n++ {
		if d.HasName() {
			return f.rawName(u, &d)
		}
		if !d.HasOrigin || d.Origin < u.dieOff || d.Origin >= u.end {
			return ""
		}
		o := *r
		o.seek(d.Origin, 0)
		if !o.next(&d) {
			return ""
		}
	}
	return ""
}
