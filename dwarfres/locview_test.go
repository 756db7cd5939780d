package dwarfres

import (
	"debug/dwarf"
	"errors"
	"reflect"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestLocAtViews pins how locAt weighs location views: an entry whose range
// holds pc first (as without views), then the entry that holds pc at the
// earliest view, then the default location.
func TestLocAtViews(t *testing.T) {
	e := func(lo, hi, bv, ev uint64, reg byte) LocEntry {
		return LocEntry{Low: lo, High: hi, BeginView: bv, EndView: ev, Expr: []byte{0x50 + reg}}
	}
	def := LocEntry{Default: true, Expr: []byte{0x5f}}
	cases := []struct {
		name string
		list []LocEntry
		pc   uint64
		want byte // DW_OP_regN, 0 for none
	}{
		{"[X, X) views 2-4 holds at X", []LocEntry{e(0x10, 0x10, 2, 4, 3)}, 0x10, 0x53},
		{"[X, X) views 2-4 is nothing after X", []LocEntry{e(0x10, 0x10, 2, 4, 3)}, 0x11, 0},
		{"[X, X) views 0-0 is empty", []LocEntry{e(0x10, 0x10, 0, 0, 3)}, 0x10, 0},
		{"[X, X) views 3-3 is empty", []LocEntry{e(0x10, 0x10, 3, 3, 3)}, 0x10, 0},
		{"[X, X) views 4-2 is empty", []LocEntry{e(0x10, 0x10, 4, 2, 3)}, 0x10, 0},
		{"[W, X) up to view 2 holds at X", []LocEntry{e(0x08, 0x10, 0, 2, 4)}, 0x10, 0x54},
		{"[W, X) up to view 0 ends before X", []LocEntry{e(0x08, 0x10, 0, 0, 4)}, 0x10, 0},
		{"a range holding X wins over views", []LocEntry{e(0x10, 0x10, 0, 2, 1), e(0x10, 0x18, 2, 0, 2)}, 0x10, 0x52},
		{"the earliest view wins", []LocEntry{e(0x10, 0x10, 3, 5, 1), e(0x10, 0x10, 1, 3, 2)}, 0x10, 0x52},
		{"an entry ending at X starts at view 0", []LocEntry{e(0x10, 0x10, 1, 3, 1), e(0x08, 0x10, 0, 1, 2)}, 0x10, 0x52},
		{"views before the default location", []LocEntry{def, e(0x10, 0x10, 2, 4, 3)}, 0x10, 0x53},
		{"the default location elsewhere", []LocEntry{def, e(0x10, 0x10, 2, 4, 3)}, 0x11, 0x5f},
	}
	for _, c := range cases {
		expr, ok := locAt(c.list, c.pc)
		if got := byte(0); ok != (c.want != 0) || ok && (len(expr) != 1 || expr[0] != c.want) {
			if ok && len(expr) > 0 {
				got = expr[0]
			}
			t.Errorf("%s: locAt(%#x) = %#x, %v; want %#x", c.name, c.pc, got, ok, c.want)
		}
	}
}

// synViewSections are location lists in the three encodings gcc uses for
// views, each saying reg3 at [0x1010, 0x1010) views 2-4 (an inlined
// function's parameter at its entry) and reg4 in [0x1020, 0x1030):
//
//	DWARF 5, DW_AT_GNU_locviews: view pairs at v5views, the list at v5list
//	DWARF 5, DW_LLE_GNU_view_pair entries (incompat5): the list at v5pair
//	DWARF 4, DW_AT_GNU_locviews: .debug_loc, view pairs at 0, the list at 4
func synViewSections() (secs map[string][]byte, v5views, v5list, v5pair uint64) {
	views := dwarftest.ULEB(dwarftest.ULEB(dwarftest.ULEB(dwarftest.ULEB(nil, 2), 4), 0), 0)
	var l []byte
	l = dwarftest.LLE(l, dwarftest.LLEBaseAddress, []any{dwarftest.Addr8(0x1000)})
	l = dwarftest.LLE(l, dwarftest.LLEOffsetPair, []any{0x10, 0x10}, 0x53)
	l = dwarftest.LLE(l, dwarftest.LLEOffsetPair, []any{0x20, 0x30}, 0x54)
	l = dwarftest.LLE(l, dwarftest.LLEEndOfList, nil)
	var p []byte
	p = dwarftest.ULEB(dwarftest.ULEB(append(p, lleGNUViewPair), 2), 4) // no expression
	p = dwarftest.LLE(p, dwarftest.LLEStartLength, []any{dwarftest.Addr8(0x1010), 0}, 0x53)
	p = dwarftest.LLE(p, dwarftest.LLEStartLength, []any{dwarftest.Addr8(0x1020), 0x10}, 0x54)
	p = dwarftest.LLE(p, dwarftest.LLEEndOfList, nil)
	tab, at := dwarftest.Loclists(append(append([]byte(nil), views...), l...), p)
	var l4 []byte
	l4 = dwarftest.Loc4(l4, 0x10, 0x10, 0x53)
	l4 = dwarftest.Loc4(l4, 0x20, 0x30, 0x54)
	l4 = dwarftest.U64(dwarftest.U64(l4, 0), 0)
	return map[string][]byte{
		".debug_loclists": tab,
		".debug_loc":      append(append([]byte(nil), views...), l4...),
	}, at[0], at[0] + uint64(len(views)), at[1]
}

// TestSynthLocationViews: a variable described only at some views of the
// probe address has its location there, in each encoding; a malformed view
// list is an error, not a silent "optimized out".
func TestSynthLocationViews(t *testing.T) {
	secs, v5views, v5list, v5pair := synViewSections()
	locviews := func(off uint64) dwarftest.Attr { return dwarftest.A(attrGNULocviews, dwarftest.FormSecOffset, off) }
	at := []synAt{
		{addr: 0x1010, want: synReg(3)},
		{addr: 0x1014, err: ErrNoLocation},
		{addr: 0x1020, want: synReg(4)},
	}
	cases := []struct {
		name    string
		version int
		attrs   []dwarftest.Attr
		at      []synAt
	}{
		{"DWARF 5, DW_AT_GNU_locviews", 5, []dwarftest.Attr{dwarftest.A(dwarf.AttrLocation, dwarftest.FormSecOffset, v5list), locviews(v5views)}, at},
		{"DWARF 5, DW_LLE_GNU_view_pair", 5, []dwarftest.Attr{dwarftest.A(dwarf.AttrLocation, dwarftest.FormSecOffset, v5pair)}, at},
		{"DWARF 4, DW_AT_GNU_locviews", 4, []dwarftest.Attr{dwarftest.A(dwarf.AttrLocation, dwarftest.FormSecOffset, 4), locviews(0)}, at},
		{"DWARF 5, without its views", 5, []dwarftest.Attr{dwarftest.A(dwarf.AttrLocation, dwarftest.FormSecOffset, v5list)}, []synAt{
			{addr: 0x1010, err: ErrNoLocation},
		}},
		{"DWARF 5, views past the section", 5, []dwarftest.Attr{dwarftest.A(dwarf.AttrLocation, dwarftest.FormSecOffset, v5list), locviews(1 << 20)}, []synAt{
			{addr: 0x1010, err: ErrMalformed},
		}},
		{"DWARF 5, views cut short", 5, []dwarftest.Attr{dwarftest.A(dwarf.AttrLocation, dwarftest.FormSecOffset, v5list), locviews(uint64(len(secs[".debug_loclists"]) - 1))}, []synAt{
			{addr: 0x1010, err: ErrMalformed},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := dwarftest.D(dwarf.TagFormalParameter, append([]dwarftest.Attr{dwarftest.Name("v"), dwarftest.Type("int")}, c.attrs...)...)
			f := synFile(t, c.version, synLocUnit(c.version, nil, v, false), secs)
			for _, a := range c.at {
				s := synScope(t, f, "f", a.addr-synLo)
				got, err := s.Location(synEntry(t, s, "v"))
				if a.err != nil {
					if !errors.Is(err, a.err) {
						t.Errorf("at %#x: got %+v, %v; want an error wrapping %v", a.addr, got, err, a.err)
					}
					continue
				}
				if err != nil || !reflect.DeepEqual(got, a.want) {
					t.Errorf("at %#x: got %+v, %v; want %+v", a.addr, got, err, a.want)
				}
			}
		})
	}
}

// TestInlineParamsAtViews: gcc -O2 describes the parameters of views.c's
// inlined vw_fixup only at its entry, [X, X) with views (its body is
// folded into the caller's code). perf 6.1 says "optimized out"; with the
// views each parameter is in a register there, in each encoding.
func TestInlineParamsAtViews(t *testing.T) {
	for _, v := range []string{"views-gcc-O2-dwarf5", "views-gcc-O2-dwarf4", "views-gcc-O2-incompat5"} {
		t.Run(v, func(t *testing.T) {
			f, err := Open(needBin(t, v))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			ps, err := f.FindProbes(Query{Function: exactName("vw_fixup")})
			if err != nil || len(ps) != 2 {
				t.Fatalf("vw_fixup: %+v, %v; want its 2 inlined instances", ps, err)
			}
			for _, p := range ps {
				if p.Scope == nil {
					t.Fatalf("%s+%d: no scope", p.Func, p.Offset)
				}
				for _, name := range []string{"off", "phys"} {
					e, ok := p.Scope.Lookup(name)
					if !ok {
						t.Fatalf("%s+%d: no %s", p.Func, p.Offset, name)
					}
					pinShapeAtViews(t, p, e)
					loc, err := p.Scope.Location(e)
					if err != nil || loc.Kind != LocReg {
						t.Errorf("%s+%d: %s at %+v, %v; want a register", p.Func, p.Offset, name, loc, err)
					}
				}
			}
		})
	}
}

// pinShapeAtViews fails when the compiler no longer gives e's location at
// p only by views (the fixture would prove nothing): without its views,
// its list has nothing at the address.
func pinShapeAtViews(t *testing.T, p Probe, e Entry) {
	t.Helper()
	a, err := e.t.attrs(e.i)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := a.get(dwarf.AttrLocation)
	b, err := p.Scope.bindFor(e)
	if err != nil {
		t.Fatal(err)
	}
	list, single, err := b.locEntries(x)
	if err != nil || single {
		t.Fatalf("%s: %v, exprloc %v; want a location list", e.Name(), err, single)
	}
	bare := make([]LocEntry, len(list))
	for i, le := range list {
		bare[i] = LocEntry{Low: le.Low, High: le.High, Default: le.Default, Expr: le.Expr}
	}
	if expr, ok := locAt(bare, p.Addr); ok {
		t.Fatalf("%s at %#x: %x without views; the fixture no longer has the shape it tests (gcc changed?)", e.Name(), p.Addr, expr)
	}
	if withV, err := (unitLists{b.t.f, b.t.u}).withViews(a, list); err != nil {
		t.Fatal(err)
	} else if expr, ok := locAt(withV, p.Addr); !ok || len(expr) == 0 {
		t.Fatalf("%s at %#x: no location even with views", e.Name(), p.Addr)
	}
}
