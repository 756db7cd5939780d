package dwarfres

// refTarget follows a reference attribute value to the DIE it names,
// wherever it lives: this unit, another unit of the same file, or the
// supplementary file (DW_FORM_GNU_ref_alt, DW_FORM_ref_sup4/8).
func (t *cuTree) refTarget(a attrVal) (Entry, bool) {
	switch {
	case a.form == formGNURefAlt || a.form == formRefSup4 || a.form == formRefSup8:
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
