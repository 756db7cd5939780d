package dwarfres

import "debug/dwarf"

// DWARF attributes debug/dwarf does not export; values from the DWARF 5
// standard, section 7.5.4.
const (
	atStrOffsetsBase = 0x72
	atAddrBase       = 0x73
	atRnglistsBase   = 0x74
	atLoclistsBase   = 0x8c
	atDataBitOffset  = 0x6b
)

type abbrevAttr struct {
	attr dwarf.Attr
	form form
	ic   int64 // DW_FORM_implicit_const value
}

type abbrev struct {
	tag      dwarf.Tag
	children bool
	attrs    []abbrevAttr
	plan     []planOp // how to read attrs (abbrevplan.go); nil: decode each
}

// abbrevTable is indexed by abbreviation code; codes are dense in practice.
type abbrevTable struct {
	dense []*abbrev
	other map[uint64]*abbrev
}

func (t abbrevTable) get(code uint64) *abbrev {
	if code < uint64(len(t.dense)) {
		return t.dense[code]
	}
	return t.other[code]
}

// abbrevTable parses (once) the abbreviation table at off.
func (f *File) abbrevTable(off uint64) (abbrevTable, error) {
	f.abbrevMu.Lock()
	t, ok := f.abbrevs[off]
	f.abbrevMu.Unlock()
	if ok {
		return t, nil
	}
	sec := f.sec(".debug_abbrev")
	if off >= uint64(len(sec)) {
		return t, &DecodeError{Section: ".debug_abbrev", Offset: off, Msg: "abbreviation table offset out of range"}
	}
	t, err := parseAbbrevs(&buf{sec: ".debug_abbrev", base: off, data: sec[off:], order: f.Order})
	if err != nil {
		return abbrevTable{}, err
	}
	f.abbrevMu.Lock()
	if len(f.abbrevs) >= maxAbbrevTables {
		clear(f.abbrevs)
	}
	f.abbrevs[off] = t
	f.abbrevMu.Unlock()
	return t, nil
}

// parseAbbrevs parses one table. Its abbreviations, their attributes and
// their plans each share one allocation: a vmlinux has a table per unit,
// half a million abbreviations in all, and the index's build parses
// every one.
func parseAbbrevs(b *buf) (abbrevTable, error) {
	type span struct{ attrs, plan [2]int }
	na, nattr := countAbbrevs(*b)
	var (
		codes = make([]uint64, 0, na)
		abbrs = make([]abbrev, 0, na)
		spans = make([]span, 0, na)
		attrs = make([]abbrevAttr, 0, nattr)
		plans = make([]planOp, 0, nattr)
	)
	for {
		code := b.uleb()
		if code == 0 || b.err != nil {
			break
		}
		a := abbrev{tag: dwarf.Tag(b.uleb()), children: b.u8() != 0}
		var s span
		s.attrs[0] = len(attrs)
		for {
			at, fm := b.uleb(), b.uleb()
			if b.err != nil {
				break
			}
			var ic int64
			if form(fm) == formImplicitConst {
				ic = b.sleb()
			}
			if at == 0 && fm == 0 {
				break
			}
			attrs = append(attrs, abbrevAttr{attr: dwarf.Attr(at), form: form(fm), ic: ic})
		}
		s.attrs[1] = len(attrs)
		s.plan[0] = len(plans)
		if p, ok := appendPlan(plans, attrs[s.attrs[0]:s.attrs[1]]); ok {
			plans = p
		}
		s.plan[1] = len(plans)
		codes, abbrs, spans = append(codes, code), append(abbrs, a), append(spans, s)
	}
	if b.err != nil {
		return abbrevTable{}, b.err
	}
	var t abbrevTable
	for i, code := range codes {
		a, s := &abbrs[i], spans[i]
		if s.attrs[1] > s.attrs[0] {
			a.attrs = attrs[s.attrs[0]:s.attrs[1]:s.attrs[1]]
		}
		if s.plan[1] > s.plan[0] {
			a.plan = plans[s.plan[0]:s.plan[1]:s.plan[1]]
		}
		t.put(code, a)
	}
	return t, nil
}

// countAbbrevs counts the abbreviations and attributes of the table b
// reads (a copy: parseAbbrevs reads it again), for parseAbbrevs to
// allocate them once.
func countAbbrevs(b buf) (abbrevs, attrs int) {
	for b.uleb() != 0 && b.err == nil {
		b.uleb()
		b.skip(1)
		for b.err == nil {
			at, fm := b.uleb(), b.uleb()
			if form(fm) == formImplicitConst {
				b.sleb()
			}
			if at == 0 && fm == 0 {
				break
			}
			attrs++
		}
		abbrevs++
	}
	return abbrevs, attrs
}

// put sets code's abbreviation.
func (t *abbrevTable) put(code uint64, a *abbrev) {
	if code < 1<<16 {
		if uint64(len(t.dense)) <= code {
			t.dense = append(t.dense, make([]*abbrev, code+1-uint64(len(t.dense)))...)
		}
		t.dense[code] = a
		return
	}
	if t.other == nil {
		t.other = map[uint64]*abbrev{}
	}
	t.other[code] = a
}

// maxAbbrevTables bounds the abbreviation tables a File keeps: gcc writes
// one per unit (10-20 KB parsed), a run of many specs reads those of
// thousands of units, and parsing one again costs microseconds.
const maxAbbrevTables = 256
