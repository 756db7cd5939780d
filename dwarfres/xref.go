package dwarfres

// refTarget follows a reference attribute value to the DIE it names,
// wherever it lives: this unit, another unit of the same file, or the
// supplementary file (DW_FORM_GNU_ref_alt, DW_FORM_ref_sup4/8).
func (t *cuTree) refTarget(a attrVal) (Entry, bool) {
	switch {
	case isAltRef(a.form):
		alt, err := t.f.alt()
		if err != nil || alt == nil {
			return Entry{}, false
		}
		return alt.entryAt(a.v)
	case a.form.class() != classReference:
		return Entry{}, false
	}
	return t.entryAt(a.v)
}

// originAlt marks a die's Origin as an offset in the supplementary file
// (DW_FORM_GNU_ref_alt, DW_FORM_ref_sup4/8) rather than in its own file;
// no .debug_info offset reaches it.
const originAlt = 1 << 63

// isAltRef reports whether fm refers into the supplementary file.
func isAltRef(fm form) bool {
	return fm == formGNURefAlt || fm == formRefSup4 || fm == formRefSup8
}

// isOriginForm reports whether fm can name an abstract origin or
// specification: a reference into this file or the supplementary one.
func isOriginForm(fm form) bool { return fm.class() == classReference || isAltRef(fm) }

// originRef is the die.Origin value of a reference of form fm.
func originRef(fm form, v uint64) uint64 {
	if isAltRef(fm) {
		return v | originAlt
	}
	return v
}

// maxOriginHops bounds origin chains: a hostile file may make them loop,
// across units too.
const maxOriginHops = 16

// walkOrigins calls fn on DIE i, then on its abstract origin or
// specification, and so on, in this unit or (dwz) another unit or the
// supplementary file, until fn returns true: that DIE is returned.
func (t *cuTree) walkOrigins(i int, fn func(t *cuTree, j int) bool) (Entry, bool) {
	for n := 0; i >= 0 && n < maxOriginHops; n++ {
		if fn(t, i) {
			return Entry{t, i}, true
		}
		if j := t.origin(i); j >= 0 {
			i = j
			continue
		}
		e, ok := t.foreignOrigin(i)
		if !ok {
			break
		}
		t, i = e.t, e.i
	}
	return Entry{}, false
}

// integratedAny is walkOrigins for a question about the die alone.
func (t *cuTree) integratedAny(i int, has func(*die) bool) (Entry, bool) {
	return t.walkOrigins(i, func(t *cuTree, j int) bool { return has(&t.dies[j]) })
}

// foreignOrigin returns DIE i's origin when it lies outside this unit.
func (t *cuTree) foreignOrigin(i int) (Entry, bool) {
	d := &t.dies[i]
	if !d.HasOrigin || t.idx(d.Origin) >= 0 {
		return Entry{}, false
	}
	if d.Origin&originAlt != 0 {
		alt, err := t.f.alt()
		if err != nil || alt == nil {
			return Entry{}, false
		}
		return alt.entryAt(d.Origin &^ originAlt)
	}
	return t.f.entryAt(d.Origin)
}
