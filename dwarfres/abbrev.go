package dwarfres

import (
	"debug/dwarf"
	"sync"
)

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

// abbrevCache is the job of reading a .debug_abbrev: the tables units
// name by offset, each parsed once and kept (at most maxAbbrevTables), and
// a unit root's abbreviation alone (root). It reads the section of f, its
// File (the separate debuginfo's when one is attached).
type abbrevCache struct {
	f *File

	mu   sync.Mutex
	tabs map[uint64]abbrevTable
}

// sec is the .debug_abbrev the tables are read from.
func (c *abbrevCache) sec() []byte { return c.f.sec(".debug_abbrev") }

// table parses (once) the abbreviation table at off.
func (c *abbrevCache) table(off uint64) (abbrevTable, error) {
	c.mu.Lock()
	t, ok := c.tabs[off]
	c.mu.Unlock()
	if ok {
		return t, nil
	}
	sec := c.sec()
	if off >= uint64(len(sec)) {
		return t, &DecodeError{Section: ".debug_abbrev", Offset: off, Msg: "abbreviation table offset out of range"}
	}
	t, err := parseAbbrevs(&buf{sec: ".debug_abbrev", base: off, data: sec[off:], order: c.f.Order})
	if err != nil {
		return abbrevTable{}, err
	}
	c.mu.Lock()
	if len(c.tabs) >= maxAbbrevTables {
		clear(c.tabs)
	}
	c.tabs[off] = t
	c.mu.Unlock()
	return t, nil
}

// parseAbbrevs parses one table. Its abbreviations, their attributes and
// their plans each share one allocation: a vmlinux has a table per unit,
// half a million abbreviations in all.
func parseAbbrevs(b *buf) (abbrevTable, error) {
	var s abbrevScratch
	na, nattr := countAbbrevs(*b)
	s.codes, s.abbrs, s.spans = make([]uint64, 0, na), make([]abbrev, 0, na), make([]abbrevSpan, 0, na)
	s.attrs, s.plans = make([]abbrevAttr, 0, nattr), make([]planOp, 0, nattr)
	return s.parse(b, 0)
}

// abbrevScratch holds the arrays a parsed table lives in. The index's
// build parses every unit's table once, into one scratch per worker
// reused from unit to unit: a table parsed there lasts until the next.
type abbrevScratch struct {
	codes []uint64
	abbrs []abbrev
	spans []abbrevSpan
	attrs []abbrevAttr
	plans []planOp
	dense []*abbrev
}

// abbrevSpan is where an abbreviation's attributes and plan are in the
// scratch's arrays, until they stop growing.
type abbrevSpan struct{ attrs, plan [2]int }

// parse parses the table b reads into s's arrays: all of it, or with
// until (not 0) up to the abbreviation of that code.
func (s *abbrevScratch) parse(b *buf, until uint64) (abbrevTable, error) {
	s.codes, s.abbrs, s.spans, s.attrs, s.plans = s.codes[:0], s.abbrs[:0], s.spans[:0], s.attrs[:0], s.plans[:0]
	for {
		code := b.uleb()
		if code == 0 || b.err != nil {
			break
		}
		a := abbrev{tag: dwarf.Tag(b.uleb()), children: b.u8() != 0}
		var sp abbrevSpan
		sp.attrs[0] = len(s.attrs)
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
			s.attrs = append(s.attrs, abbrevAttr{attr: dwarf.Attr(at), form: form(fm), ic: ic})
		}
		sp.attrs[1] = len(s.attrs)
		sp.plan[0] = len(s.plans)
		if p, ok := appendPlan(s.plans, s.attrs[sp.attrs[0]:sp.attrs[1]]); ok {
			s.plans = p
		}
		sp.plan[1] = len(s.plans)
		s.codes, s.abbrs, s.spans = append(s.codes, code), append(s.abbrs, a), append(s.spans, sp)
		if code == until {
			break
		}
	}
	if b.err != nil {
		return abbrevTable{}, b.err
	}
	clear(s.dense)
	t := abbrevTable{dense: s.dense[:0]}
	for i, code := range s.codes {
		a, sp := &s.abbrs[i], s.spans[i]
		if sp.attrs[1] > sp.attrs[0] {
			a.attrs = s.attrs[sp.attrs[0]:sp.attrs[1]:sp.attrs[1]]
		}
		if sp.plan[1] > sp.plan[0] {
			a.plan = s.plans[sp.plan[0]:sp.plan[1]:sp.plan[1]]
		}
		t.put(code, a)
	}
	s.dense = t.dense
	return t, nil
}

// root is the table a unit's root is read with: the cached table
// at off, else one holding the root's abbreviation (code) alone, the
// others stepped over: a scan reading the roots of thousands of units
// would otherwise parse (and cache, and evict) every unit's table whole.
// nil when it cannot be read: table then says why.
func (c *abbrevCache) root(off, code uint64) *abbrevTable {
	c.mu.Lock()
	t, ok := c.tabs[off]
	c.mu.Unlock()
	if ok {
		return &t
	}
	sec := c.sec()
	if off >= uint64(len(sec)) || code == 0 {
		return nil
	}
	b := &buf{sec: ".debug_abbrev", base: off, data: sec[off:], order: c.f.Order}
	for {
		start := b.off
		c := b.uleb()
		if c == 0 || b.err != nil {
			return nil
		}
		if c == code {
			b.off = start
			break
		}
		skipAbbrev(b)
	}
	var s abbrevScratch
	t, err := s.parse(b, code)
	if err != nil || t.get(code) == nil {
		return nil
	}
	return &t
}

// skipAbbrev steps over an abbreviation's tag, children flag and
// attributes, its code read, and says how many attributes it has.
func skipAbbrev(b *buf) (attrs int) {
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
	return attrs
}

// countAbbrevs counts the abbreviations and attributes of the table b
// reads (a copy: parseAbbrevs reads it again), for parseAbbrevs to
// allocate them once.
func countAbbrevs(b buf) (abbrevs, attrs int) {
	for b.uleb() != 0 && b.err == nil {
		attrs += skipAbbrev(&b)
		abbrevs++
	}
	return abbrevs, attrs
}

// put sets code's abbreviation.
func (t *abbrevTable) put(code uint64, a *abbrev) {
	if code < 1<<16 {
		if n := uint64(len(t.dense)); n <= code {
			if code < uint64(cap(t.dense)) { // a scratch's, cleared
				t.dense = t.dense[:code+1]
			} else {
				t.dense = append(t.dense, make([]*abbrev, code+1-n)...)
			}
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
