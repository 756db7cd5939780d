package dwarfres

import "debug/dwarf"

// attrVal is one decoded attribute of a DIE read on demand: variables and
// types need attributes (locations, sizes, member offsets) that the
// DIE scan does not keep for every entry.
type attrVal struct {
	attr dwarf.Attr
	form form
	v    uint64
	blk  []byte // block, exprloc, data16 and inline string values
}

// attrSet is every attribute of one DIE, in abbreviation order.
type attrSet []attrVal

func (s attrSet) get(a dwarf.Attr) (attrVal, bool) {
	for _, x := range s {
		if x.attr == a {
			return x, true
		}
	}
	return attrVal{}, false
}

func (s attrSet) has(a dwarf.Attr) bool {
	_, ok := s.get(a)
	return ok
}

// udata returns an integer attribute (a constant form).
func (s attrSet) udata(a dwarf.Attr) (uint64, bool) {
	x, ok := s.get(a)
	if !ok || x.form.class() != classConstant {
		return 0, false
	}
	return x.v, true
}

// sdata returns a constant attribute as signed: data1..8 forms are sign
// extended from their width only when the producer meant them signed, which
// DWARF leaves to the attribute; perf (libdw's dwarf_formsdata) sign-extends
// data1/2/4 and so does this.
func (s attrSet) sdata(a dwarf.Attr) (int64, bool) {
	x, ok := s.get(a)
	if !ok {
		return 0, false
	}
	switch x.form {
	case formData1:
		return int64(int8(x.v)), true
	case formData2:
		return int64(int16(x.v)), true
	case formData4:
		return int64(int32(x.v)), true
	case formData8, formSdata, formUdata, formImplicitConst:
		return int64(x.v), true
	}
	return 0, false
}

// attrs decodes every attribute of DIE i.
func (t *cuTree) attrs(i int) (attrSet, error) {
	r := t.f.newReader(t.u)
	if r.err != nil {
		return nil, r.err
	}
	r.seek(t.dies[i].Off, int(t.dies[i].Depth))
	code := r.b.uleb()
	a := r.tab.get(code)
	if a == nil {
		return nil, r.failure(t.dies[i].Off, "unknown abbreviation code")
	}
	out := make(attrSet, 0, len(a.attrs))
	for k := range a.attrs {
		form, v, blk := r.value(&a.attrs[k])
		out = append(out, attrVal{attr: a.attrs[k].attr, form: form, v: v, blk: blk})
	}
	if r.b.err != nil {
		return nil, r.b.err
	}
	return out, nil
}

// attrIntegrated returns the attribute a of DIE i or, as libdw's
// dwarf_attr_integrate does, of its abstract origin or specification.
// A reference it returns counts in the unit attrIntegratedIn names.
func (t *cuTree) attrIntegrated(i int, a dwarf.Attr) (attrVal, bool) {
	_, x, ok := t.attrIntegratedIn(i, a)
	return x, ok
}

// attrIntegratedIn is attrIntegrated, also naming the unit holding the
// attribute: with dwz, an origin may be in another unit or file.
func (t *cuTree) attrIntegratedIn(i int, a dwarf.Attr) (*cuTree, attrVal, bool) {
	var x attrVal
	e, ok := t.walkOrigins(i, func(t *cuTree, j int) bool {
		s, err := t.attrs(j)
		if err != nil {
			return false
		}
		var found bool
		x, found = s.get(a)
		return found
	})
	return e.t, x, ok
}
