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
	b := &buf{sec: ".debug_abbrev", base: off, data: sec[off:], order: f.Order}
	for {
		code := b.uleb()
		if code == 0 || b.err != nil {
			break
		}
		a := &abbrev{tag: dwarf.Tag(b.uleb()), children: b.u8() != 0}
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
			a.attrs = append(a.attrs, abbrevAttr{attr: dwarf.Attr(at), form: form(fm), ic: ic})
		}
		a.plan = planAttrs(a.attrs)
		if code < 1<<16 {
			for uint64(len(t.dense)) <= code {
				t.dense = append(t.dense, nil)
			}
			t.dense[code] = a
		} else {
			if t.other == nil {
				t.other = map[uint64]*abbrev{}
			}
			t.other[code] = a
		}
	}
	if b.err != nil {
		return abbrevTable{}, b.err
	}
	f.abbrevMu.Lock()
	if len(f.abbrevs) >= maxAbbrevTables {
		clear(f.abbrevs)
	}
	f.abbrevs[off] = t
	f.abbrevMu.Unlock()
	return t, nil
}

// maxAbbrevTables bounds the abbreviation tables a File keeps: gcc writes
// one per unit (10-20 KB parsed), a run of many specs reads those of
// thousands of units, and parsing one again costs microseconds.
const maxAbbrevTables = 256
