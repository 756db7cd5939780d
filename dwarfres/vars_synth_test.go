package dwarfres

import (
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// Synthetic DWARF: units, location lists, address tables and call-frame
// information assembled by hand, so that each rule of variable-location
// resolution is pinned without a compiler (which emits each form only when
// it pleases). Everything is 32-bit DWARF with 8-byte addresses, little
// endian unless a test says otherwise.

// synFile is memFile over the unit and the other sections given, for a
// little-endian target.
func synFile(t testing.TB, version int, root *dwarftest.DIE, secs map[string][]byte) *File {
	t.Helper()
	all := map[string][]byte{}
	for k, v := range secs {
		all[k] = v
	}
	all[".debug_info"], all[".debug_abbrev"] = dwarftest.Unit(t, binary.LittleEndian, version, root)
	return memFile(all)
}

// synFileBE is synFile for a big-endian target (s390x, ppc64).
func synFileBE(t testing.TB, version int, root *dwarftest.DIE) *File {
	t.Helper()
	secs := map[string][]byte{}
	secs[".debug_info"], secs[".debug_abbrev"] = dwarftest.Unit(t, binary.BigEndian, version, root)
	return memFileOrder(secs, binary.BigEndian)
}

// synScope is the scope FindProbes gives for fn+off: the public route
// from a query to the variables of an address.
func synScope(t testing.TB, f *File, fn string, off uint64) *Scope {
	t.Helper()
	ps, err := f.FindProbes(Query{Function: exactName(fn), Offset: off})
	if err != nil || len(ps) != 1 || ps[0].Scope == nil {
		t.Fatalf("FindProbes(%s+%#x) = %+v, %v; want one probe with a scope", fn, off, ps, err)
	}
	return ps[0].Scope
}

// synTree is the decoded unit of the scope (the cached one: tiny
// synthetic units are never evicted).
func synTree(t testing.TB, s *Scope) *cuTree {
	t.Helper()
	b, err := s.bind()
	if err != nil {
		t.Fatal(err)
	}
	return b.t
}

// synEntry finds a DIE of the scope's unit by name (whether Lookup would
// or not).
func synEntry(t testing.TB, s *Scope, name string) Entry {
	t.Helper()
	tr := synTree(t, s)
	for i := range tr.dies {
		if tr.dies[i].HasName() && tr.rawNameAt(i) == name {
			return Entry{tr, i}
		}
	}
	t.Fatalf("no DIE named %q", name)
	return Entry{}
}

// The layout every location case shares: the unit covers [0x1000,
// 0x1100), f covers [0x1000, 0x1040) and has an FDE there.
const (
	synLo  = 0x1000
	synEnd = 0x1040
)

// synSections are the lists and tables the location cases refer to.
func synSections() (secs map[string][]byte, v5list []uint64) {
	// DWARF 4 .debug_loc, offsets relative to the unit's low_pc 0x1000:
	//   [0x1004, 0x1010) reg5
	//   base selection 0x1020
	//   [0x1020, 0x1030) breg7 8
	//   [0x1030, 0x1034) empty (optimized out)
	var l4 []byte
	l4 = dwarftest.Loc4(l4, 0x4, 0x10, 0x55)
	l4 = dwarftest.U64(dwarftest.U64(l4, ^uint64(0)), 0x1020)
	l4 = dwarftest.Loc4(l4, 0x0, 0x10, 0x77, 8)
	l4 = dwarftest.Loc4(l4, 0x10, 0x14)
	l4 = dwarftest.U64(dwarftest.U64(l4, 0), 0)

	// DWARF 5: .debug_addr[0..2] = 0x1000, 0x1008, 0x1010.
	addr := dwarftest.AddrTable(0x1000, 0x1008, 0x1010)
	// List 0, every DW_LLE_* kind:
	var l0 []byte
	l0 = dwarftest.LLE(l0, dwarftest.LLEBaseAddressx, []any{0})                                                  // base 0x1000
	l0 = dwarftest.LLE(l0, dwarftest.LLEOffsetPair, []any{2, 4}, 0x50)                                           // [0x1002, 0x1004) reg0
	l0 = dwarftest.LLE(l0, dwarftest.LLEStartxEndx, []any{1, 2}, 0x51)                                           // [0x1008, 0x1010) reg1
	l0 = dwarftest.LLE(l0, dwarftest.LLEStartxLength, []any{2, 4}, 0x52)                                         // [0x1010, 0x1014) reg2
	l0 = dwarftest.LLE(l0, dwarftest.LLEBaseAddress, []any{dwarftest.Addr8(0x1020)})                             // base 0x1020
	l0 = dwarftest.LLE(l0, dwarftest.LLEOffsetPair, []any{0, 4}, 0x53)                                           // [0x1020, 0x1024) reg3
	l0 = dwarftest.LLE(l0, dwarftest.LLEStartEnd, []any{dwarftest.Addr8(0x1024), dwarftest.Addr8(0x1028)}, 0x54) // reg4
	l0 = dwarftest.LLE(l0, dwarftest.LLEStartLength, []any{dwarftest.Addr8(0x1028), 4}, 0x55)                    // [0x1028, 0x102c) reg5
	l0 = dwarftest.LLE(l0, dwarftest.LLEOffsetPair, []any{0xc, 0x10})                                            // [0x102c, 0x1030) empty
	l0 = dwarftest.LLE(l0, dwarftest.LLEDefaultLocation, nil, 0x56)                                              // elsewhere reg6
	l0 = dwarftest.LLE(l0, dwarftest.LLEEndOfList, nil)
	// List 1, nothing at f's entry: [0x1008, 0x1010) reg5, [0x1020, 0x1030) reg4.
	var l1 []byte
	l1 = dwarftest.LLE(l1, dwarftest.LLEStartxLength, []any{1, 8}, 0x55)
	l1 = dwarftest.LLE(l1, dwarftest.LLEStartEnd, []any{dwarftest.Addr8(0x1020), dwarftest.Addr8(0x1030)}, 0x54)
	l1 = dwarftest.LLE(l1, dwarftest.LLEEndOfList, nil)
	// List 2, nothing inside f: [0x1050, 0x1060) reg1.
	var l2 []byte
	l2 = dwarftest.LLE(l2, dwarftest.LLEStartEnd, []any{dwarftest.Addr8(0x1050), dwarftest.Addr8(0x1060)}, 0x51)
	l2 = dwarftest.LLE(l2, dwarftest.LLEEndOfList, nil)
	ll, at := dwarftest.Loclists(l0, l1, l2)
	return map[string][]byte{
		".debug_loc":      l4,
		".debug_addr":     addr,
		".debug_loclists": ll,
		".debug_frame":    dwarftest.Frame(synLo, synEnd),
	}, at
}

// synLocUnit is the unit of one location case: a base type, f with its
// frame base (if any) and v, a child of f or, with global, of the unit.
func synLocUnit(version int, frameBase []dwarftest.Attr, v *dwarftest.DIE, global bool) *dwarftest.DIE {
	f := dwarftest.D(dwarf.TagSubprogram, append([]dwarftest.Attr{dwarftest.Name("f"), dwarftest.Flag(dwarf.AttrExternal), dwarftest.Low(synLo), dwarftest.High(synEnd - synLo)}, frameBase...)...)
	cu := dwarftest.D(dwarf.TagCompileUnit, dwarftest.Name("synth.c"), dwarftest.A(dwarf.AttrLanguage, dwarftest.FormData1, 0x0c), dwarftest.Low(synLo), dwarftest.High(0x100))
	cu.With(dwarftest.D(dwarf.TagBaseType, dwarftest.Name("int"), dwarftest.A(dwarf.AttrByteSize, dwarftest.FormData1, 4), dwarftest.A(dwarf.AttrEncoding, dwarftest.FormData1, dwAteSigned)).As("int"))
	if global {
		cu.With(v, f)
	} else {
		cu.With(f.With(v))
	}
	return cu
}

// synAt is one probe address of a location case and what v resolves to
// there: want, or an error wrapping err.
type synAt struct {
	addr uint64
	want Loc
	err  error
}

func synReg(r uint64) Loc { return Loc{Kind: LocReg, Reg: r} }

func synMem(r uint64, off ...int64) Loc { return Loc{Kind: LocMem, Reg: r, Derefs: off} }

// TestSynthLocation pins each rule of Scope.Location: one variable v per
// case, its location attribute, and what it resolves to at addresses of f.
func TestSynthLocation(t *testing.T) {
	le := binary.LittleEndian
	secs, v5 := synSections()
	cfa := []dwarftest.Attr{dwarftest.A(dwarf.AttrFrameBase, dwarftest.FormExprloc, []byte{0x9c})} // DW_OP_call_frame_cfa
	addrOp := le.AppendUint64([]byte{0x03}, 0x601000)                                              // DW_OP_addr 0x601000
	global := Loc{Kind: LocMem, Addr: 0x601000, HasAddr: true, Derefs: []int64{0}, Sym: "v"}
	cases := []struct {
		name      string
		version   int
		tag       dwarf.Tag        // default DW_TAG_variable
		attrs     []dwarftest.Attr // of v, besides its name and type
		frameBase []dwarftest.Attr
		global    bool
		at        []synAt
	}{
		{name: "reg5", attrs: []dwarftest.Attr{dwarftest.Loc(0x55)}, at: []synAt{{addr: 0x1010, want: synReg(5)}}},
		{name: "breg7 16", attrs: []dwarftest.Attr{dwarftest.Loc(dwarftest.SLEB([]byte{0x77}, 16)...)}, at: []synAt{{addr: 0x1010, want: synMem(7, 16)}}},
		{name: "block1 form (DWARF 2-3 style)", attrs: []dwarftest.Attr{dwarftest.A(dwarf.AttrLocation, dwarftest.FormBlock1, []byte{0x55})}, at: []synAt{{addr: 0x1010, want: synReg(5)}}},
		// fbreg against DW_OP_call_frame_cfa: the CFA rule at the address,
		// rsp+8 at the entry and rsp+16 after the push.
		{name: "fbreg -20, CFA frame base", attrs: []dwarftest.Attr{dwarftest.Loc(dwarftest.SLEB([]byte{0x91}, -20)...)}, frameBase: cfa, at: []synAt{
			{addr: 0x1000, want: synMem(7, -12)},
			{addr: 0x1001, want: synMem(7, -4)},
			{addr: 0x1030, want: synMem(7, -4)},
		}},
		{name: "fbreg -20, frame base reg6", attrs: []dwarftest.Attr{dwarftest.Loc(dwarftest.SLEB([]byte{0x91}, -20)...)},
			frameBase: []dwarftest.Attr{dwarftest.A(dwarf.AttrFrameBase, dwarftest.FormExprloc, []byte{0x56})},
			at:        []synAt{{addr: 0x1010, want: synMem(6, -20)}}},
		{name: "fbreg -20, frame base breg6 16", attrs: []dwarftest.Attr{dwarftest.Loc(dwarftest.SLEB([]byte{0x91}, -20)...)},
			frameBase: []dwarftest.Attr{dwarftest.A(dwarf.AttrFrameBase, dwarftest.FormExprloc, dwarftest.SLEB([]byte{0x76}, 16))},
			at:        []synAt{{addr: 0x1010, want: synMem(6, -4)}}},
		// A frame base given by the DWARF 4 list: reg5, then breg7 8, then
		// nothing.
		{name: "fbreg -20, frame base list", attrs: []dwarftest.Attr{dwarftest.Loc(dwarftest.SLEB([]byte{0x91}, -20)...)},
			frameBase: []dwarftest.Attr{dwarftest.A(dwarf.AttrFrameBase, dwarftest.FormSecOffset, 0)},
			at: []synAt{
				{addr: 0x1008, want: synMem(5, -20)},
				{addr: 0x1024, want: synMem(7, -12)},
				{addr: 0x1010, err: ErrNoLocation},
			}},
		{name: "fbreg without a frame base", attrs: []dwarftest.Attr{dwarftest.Loc(dwarftest.SLEB([]byte{0x91}, -20)...)}, at: []synAt{{addr: 0x1010, err: ErrLocation}}},
		// fbreg N; stack_value is the address of the slot, not its content.
		{name: "fbreg -20 stack_value, CFA frame base", attrs: []dwarftest.Attr{dwarftest.Loc(append(dwarftest.SLEB([]byte{0x91}, -20), 0x9f)...)}, frameBase: cfa, at: []synAt{
			{addr: 0x1000, want: Loc{Kind: LocRegOffset, Reg: 7, Offset: -12}},
			{addr: 0x1010, want: Loc{Kind: LocRegOffset, Reg: 7, Offset: -4}},
		}},
		{name: "breg3 216 stack_value", attrs: []dwarftest.Attr{dwarftest.Loc(append(dwarftest.SLEB([]byte{0x73}, 216), 0x9f)...)}, at: []synAt{{addr: 0x1010, want: Loc{Kind: LocRegOffset, Reg: 3, Offset: 216}}}},
		{name: "call_frame_cfa as a variable", attrs: []dwarftest.Attr{dwarftest.Loc(0x9c)}, at: []synAt{{addr: 0x1010, err: ErrLocation}}},
		// Globals: the symbol is the variable's name.
		{name: "addr, external global", global: true, attrs: []dwarftest.Attr{dwarftest.Flag(dwarf.AttrExternal), dwarftest.Loc(addrOp...)}, at: []synAt{{addr: 0x1010, want: global}}},
		{name: "addr, static global", global: true, attrs: []dwarftest.Attr{dwarftest.Loc(addrOp...)}, at: []synAt{{addr: 0x1010, want: global}}},
		{name: "addr, static local", attrs: []dwarftest.Attr{dwarftest.Loc(addrOp...)}, at: []synAt{{addr: 0x1010, want: global}}},
		{name: "external declaration", global: true, attrs: []dwarftest.Attr{dwarftest.Flag(dwarf.AttrExternal), dwarftest.Flag(dwarf.AttrDeclaration)},
			at: []synAt{{addr: 0x1010, want: Loc{Kind: LocMem, Sym: "v", Derefs: []int64{0}}}}},
		{name: "no location", attrs: nil, at: []synAt{{addr: 0x1010, err: ErrNoLocation}}},
		// Constants: data1..4 are sign extended (libdw's dwarf_formsdata).
		{name: "const_value data1 0xff", attrs: []dwarftest.Attr{dwarftest.A(dwarf.AttrConstValue, dwarftest.FormData1, 0xff)}, at: []synAt{{addr: 0x1010, want: Loc{Kind: LocConst, Const: -1}}}},
		{name: "const_value data4", attrs: []dwarftest.Attr{dwarftest.A(dwarf.AttrConstValue, dwarftest.FormData4, 0x12345678)}, at: []synAt{{addr: 0x1010, want: Loc{Kind: LocConst, Const: 0x12345678}}}},
		{name: "const_value data4 negative", attrs: []dwarftest.Attr{dwarftest.A(dwarf.AttrConstValue, dwarftest.FormData4, 0xfffffffe)}, at: []synAt{{addr: 0x1010, want: Loc{Kind: LocConst, Const: -2}}}},
		{name: "const_value sdata", attrs: []dwarftest.Attr{dwarftest.A(dwarf.AttrConstValue, dwarftest.FormSdata, int64(-300))}, at: []synAt{{addr: 0x1010, want: Loc{Kind: LocConst, Const: -300}}}},
		{name: "const_value udata", attrs: []dwarftest.Attr{dwarftest.A(dwarf.AttrConstValue, dwarftest.FormUdata, 300)}, at: []synAt{{addr: 0x1010, want: Loc{Kind: LocConst, Const: 300}}}},
		{name: "const_value block", attrs: []dwarftest.Attr{dwarftest.A(dwarf.AttrConstValue, dwarftest.FormBlock1, []byte{1, 2})}, at: []synAt{{addr: 0x1010, err: ErrLocation}}},
		{name: "lit0 stack_value", attrs: []dwarftest.Attr{dwarftest.Loc(0x30, 0x9f)}, at: []synAt{{addr: 0x1010, want: Loc{Kind: LocConst}}}},
		{name: "implicit_value", attrs: []dwarftest.Attr{dwarftest.Loc(0x9e, 4, 0x2a, 0, 0, 0)}, at: []synAt{{addr: 0x1010, want: Loc{Kind: LocConst, Const: 42}}}},
		// An entry value is the register itself at f's entry only.
		{name: "entry_value(reg5) stack_value", tag: dwarf.TagFormalParameter, attrs: []dwarftest.Attr{dwarftest.Loc(0xa3, 1, 0x55, 0x9f)}, at: []synAt{
			{addr: 0x1000, want: synReg(5)},
			{addr: 0x1010, err: ErrNoLocation},
		}},
		{name: "GNU_entry_value(reg4) stack_value", attrs: []dwarftest.Attr{dwarftest.Loc(0xf3, 1, 0x54, 0x9f)}, at: []synAt{{addr: 0x1000, want: synReg(4)}}},
		{name: "two pieces", attrs: []dwarftest.Attr{dwarftest.Loc(0x53, 0x93, 4, 0x54, 0x93, 4)}, at: []synAt{{addr: 0x1010, err: ErrLocation}}},
		{name: "one piece", attrs: []dwarftest.Attr{dwarftest.Loc(0x53, 0x93, 4)}, at: []synAt{{addr: 0x1010, want: synReg(3)}}},
		// DWARF 4 .debug_loc, a local variable: no fuzz at the entry.
		{name: "debug_loc, variable", attrs: []dwarftest.Attr{dwarftest.A(dwarf.AttrLocation, dwarftest.FormSecOffset, 0)}, at: []synAt{
			{addr: 0x1000, err: ErrNoLocation},
			{addr: 0x1004, want: synReg(5)},
			{addr: 0x100f, want: synReg(5)},
			{addr: 0x1010, err: ErrNoLocation}, // gap
			{addr: 0x1024, want: synMem(7, 8)}, // after the base selection
			{addr: 0x1030, err: ErrNoLocation}, // empty expression
			{addr: 0x1038, err: ErrNoLocation},
		}},
		// perf's fentry fuzz: a parameter without a location at the entry
		// takes its first location further on.
		{name: "debug_loc, parameter", tag: dwarf.TagFormalParameter, attrs: []dwarftest.Attr{dwarftest.A(dwarf.AttrLocation, dwarftest.FormSecOffset, 0)}, at: []synAt{
			{addr: 0x1000, want: synReg(5)},
			{addr: 0x1001, err: ErrNoLocation}, // only at the entry
			{addr: 0x1010, err: ErrNoLocation},
		}},
		{name: "loclistx, every DW_LLE kind", version: 5, attrs: []dwarftest.Attr{dwarftest.A(dwarf.AttrLocation, dwarftest.FormLoclistx, 0)}, at: []synAt{
			{addr: 0x1000, want: synReg(6)}, // default_location
			{addr: 0x1002, want: synReg(0)}, // offset_pair on base_addressx
			{addr: 0x1003, want: synReg(0)},
			{addr: 0x1004, want: synReg(6)},
			{addr: 0x1008, want: synReg(1)}, // startx_endx
			{addr: 0x1013, want: synReg(2)}, // startx_length
			{addr: 0x1014, want: synReg(6)},
			{addr: 0x1020, want: synReg(3)}, // offset_pair on base_address
			{addr: 0x1027, want: synReg(4)}, // start_end
			{addr: 0x102b, want: synReg(5)}, // start_length
			{addr: 0x102c, err: ErrNoLocation},
			{addr: 0x1030, want: synReg(6)},
		}},
		{name: "sec_offset, every DW_LLE kind", version: 5, attrs: []dwarftest.Attr{dwarftest.A(dwarf.AttrLocation, dwarftest.FormSecOffset, v5[0])}, at: []synAt{
			{addr: 0x1000, want: synReg(6)},
			{addr: 0x1003, want: synReg(0)},
			{addr: 0x100f, want: synReg(1)},
			{addr: 0x1012, want: synReg(2)},
			{addr: 0x1021, want: synReg(3)},
			{addr: 0x1024, want: synReg(4)},
			{addr: 0x1028, want: synReg(5)},
			{addr: 0x102f, err: ErrNoLocation},
		}},
		{name: "loclistx, variable not at the entry", version: 5, attrs: []dwarftest.Attr{dwarftest.A(dwarf.AttrLocation, dwarftest.FormLoclistx, 1)}, at: []synAt{
			{addr: 0x1000, err: ErrNoLocation},
			{addr: 0x1008, want: synReg(5)},
			{addr: 0x1018, err: ErrNoLocation},
			{addr: 0x1024, want: synReg(4)},
		}},
		{name: "loclistx, parameter not at the entry", version: 5, tag: dwarf.TagFormalParameter, attrs: []dwarftest.Attr{dwarftest.A(dwarf.AttrLocation, dwarftest.FormLoclistx, 1)}, at: []synAt{
			{addr: 0x1000, want: synReg(5)}, // the first later location, not reg4
			{addr: 0x1018, err: ErrNoLocation},
		}},
		{name: "sec_offset, parameter located outside f only", version: 5, tag: dwarf.TagFormalParameter, attrs: []dwarftest.Attr{dwarftest.A(dwarf.AttrLocation, dwarftest.FormSecOffset, v5[2])}, at: []synAt{
			{addr: 0x1000, err: ErrNoLocation},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			version := c.version
			if version == 0 {
				version = 4
			}
			tag := c.tag
			if tag == 0 {
				tag = dwarf.TagVariable
			}
			v := dwarftest.D(tag, append([]dwarftest.Attr{dwarftest.Name("v"), dwarftest.Type("int")}, c.attrs...)...)
			f := synFile(t, version, synLocUnit(version, c.frameBase, v, c.global), secs)
			for _, a := range c.at {
				s := synScope(t, f, "f", a.addr-synLo)
				v := synEntry(t, s, "v")
				// Lookup finds v when it has a location, a constant
				// value or is external (perf's __die_find_variable_cb).
				hasValue := false
				for _, x := range c.attrs {
					hasValue = hasValue || x.At == dwarf.AttrLocation || x.At == dwarf.AttrConstValue || x.At == dwarf.AttrExternal
				}
				if e, ok := s.Lookup("v"); ok != hasValue || ok && e != v {
					t.Errorf("at %#x: Lookup(v) found it: %v; want %v", a.addr, ok, hasValue)
				}
				got, err := s.Location(v)
				if a.err != nil {
					other := ErrLocation
					if a.err == ErrLocation {
						other = ErrNoLocation
					}
					if !errors.Is(err, a.err) || errors.Is(err, other) {
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

// synScopeUnit is a unit for scope questions: f with parameters, locals,
// two lexical blocks and an inlined instance of inl, plus two globals.
//
//	f      [0x1000, 0x1080)  frame base reg6
//	  a       param  reg5
//	  b       param  .debug_loc [0x1010, 0x1020) reg4
//	  x       local  .debug_loc [0x1030, 0x1040) reg3
//	  nolocal local  no location
//	  block [0x1020, 0x1030): inner  breg6 -8
//	  block [0x1040, 0x1050): other  reg1
//	  inl   [0x1060, 0x1070): ip (origin) reg3, il (origin) const 7
func synScopeUnit(t *testing.T) *File {
	var l4 []byte
	l4 = dwarftest.Loc4(l4, 0x10, 0x20, 0x54)
	l4 = dwarftest.U64(dwarftest.U64(l4, 0), 0)
	xList := len(l4)
	l4 = dwarftest.Loc4(l4, 0x30, 0x40, 0x53)
	l4 = dwarftest.U64(dwarftest.U64(l4, 0), 0)
	v := func(tag dwarf.Tag, name string, attrs ...dwarftest.Attr) *dwarftest.DIE {
		return dwarftest.D(tag, append([]dwarftest.Attr{dwarftest.Name(name), dwarftest.Type("int")}, attrs...)...)
	}
	cu := dwarftest.D(dwarf.TagCompileUnit, dwarftest.Name("synth.c"), dwarftest.Low(0x1000), dwarftest.High(0x100)).With(
		dwarftest.D(dwarf.TagBaseType, dwarftest.Name("int"), dwarftest.A(dwarf.AttrByteSize, dwarftest.FormData1, 4), dwarftest.A(dwarf.AttrEncoding, dwarftest.FormData1, dwAteSigned)).As("int"),
		dwarftest.D(dwarf.TagSubprogram, dwarftest.Name("inl"), dwarftest.A(dwarf.AttrInline, dwarftest.FormData1, 3)).As("inl").With(
			v(dwarf.TagFormalParameter, "ip").As("ip"),
			v(dwarf.TagVariable, "il").As("il"),
		),
		v(dwarf.TagVariable, "gext", dwarftest.Flag(dwarf.AttrExternal), dwarftest.Loc(binary.LittleEndian.AppendUint64([]byte{0x03}, 0x601000)...)),
		v(dwarf.TagVariable, "gdecl", dwarftest.Flag(dwarf.AttrExternal), dwarftest.Flag(dwarf.AttrDeclaration)),
		dwarftest.D(dwarf.TagSubprogram, dwarftest.Name("f"), dwarftest.Flag(dwarf.AttrExternal), dwarftest.Low(0x1000), dwarftest.High(0x80), dwarftest.A(dwarf.AttrFrameBase, dwarftest.FormExprloc, []byte{0x56})).With(
			v(dwarf.TagFormalParameter, "a", dwarftest.Loc(0x55)),
			v(dwarf.TagFormalParameter, "b", dwarftest.A(dwarf.AttrLocation, dwarftest.FormSecOffset, 0)),
			v(dwarf.TagVariable, "x", dwarftest.A(dwarf.AttrLocation, dwarftest.FormSecOffset, xList)),
			v(dwarf.TagVariable, "nolocal"),
			dwarftest.D(dwarf.TagLexDwarfBlock, dwarftest.Low(0x1020), dwarftest.High(0x10)).With(v(dwarf.TagVariable, "inner", dwarftest.Loc(0x76, 0x78))),
			dwarftest.D(dwarf.TagLexDwarfBlock, dwarftest.Low(0x1040), dwarftest.High(0x10)).With(v(dwarf.TagVariable, "other", dwarftest.Loc(0x51))),
			dwarftest.D(dwarf.TagInlinedSubroutine, dwarftest.A(dwarf.AttrAbstractOrigin, dwarftest.FormRef4, dwarftest.Ref("inl")), dwarftest.Low(0x1060), dwarftest.High(0x10),
				dwarftest.A(dwarf.AttrCallFile, dwarftest.FormData1, 1), dwarftest.A(dwarf.AttrCallLine, dwarftest.FormData1, 10)).With(
				dwarftest.D(dwarf.TagFormalParameter, dwarftest.A(dwarf.AttrAbstractOrigin, dwarftest.FormRef4, dwarftest.Ref("ip")), dwarftest.Loc(0x53)),
				dwarftest.D(dwarf.TagVariable, dwarftest.A(dwarf.AttrAbstractOrigin, dwarftest.FormRef4, dwarftest.Ref("il")), dwarftest.A(dwarf.AttrConstValue, dwarftest.FormData1, 7)),
			),
		),
	)
	return synFile(t, 4, cu, map[string][]byte{".debug_loc": l4})
}

func synNames(es []Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// TestSynthLookup pins perf's find_variable: the scope and the nested
// scopes (lexical blocks, inlined instances) holding the address, then the
// unit's variables.
func TestSynthLookup(t *testing.T) {
	f := synScopeUnit(t)
	for _, c := range []struct {
		off   uint64
		found []string
		not   []string
	}{
		{0x24, []string{"a", "b", "x", "inner", "gext", "gdecl"}, []string{"other", "ip", "il", "nolocal", "nosuch"}},
		{0x44, []string{"other"}, []string{"inner"}},
		{0x64, []string{"ip", "il", "a"}, []string{"inner", "other"}}, // the inlined instance, nested in f
	} {
		s := synScope(t, f, "f", c.off)
		for _, n := range c.found {
			if e, ok := s.Lookup(n); !ok || e.Name() != n {
				t.Errorf("f+%#x: Lookup(%s) not found", c.off, n)
			}
		}
		for _, n := range c.not {
			if _, ok := s.Lookup(n); ok {
				t.Errorf("f+%#x: Lookup(%s) found; want not", c.off, n)
			}
		}
	}
	s := synScope(t, f, "f", 0x24)
	if e, _ := s.Lookup("inner"); !synLocIs(s, e, synMem(6, -8)) {
		t.Error("inner: want -8(reg6)")
	}
	if e, _ := s.Lookup("gext"); !synLocIs(s, e, Loc{Kind: LocMem, Addr: 0x601000, HasAddr: true, Derefs: []int64{0}, Sym: "gext"}) {
		t.Error("gext: want its address and symbol")
	}
	// The inlined instance as the probe's scope: its parameter by the
	// abstract origin's name; f's own parameters are out of reach there.
	ps, err := f.FindProbes(Query{Function: exactName("inl")})
	if err != nil || len(ps) != 1 || ps[0].Addr != 0x1060 || ps[0].Func != "f" || ps[0].RealName != "inl" {
		t.Fatalf("FindProbes(inl) = %+v, %v", ps, err)
	}
	in := ps[0].Scope
	if e, ok := in.Lookup("ip"); !ok || e.Tag() != dwarf.TagFormalParameter || !synLocIs(in, e, synReg(3)) {
		t.Error("inl: ip: want its concrete parameter in reg3")
	}
	if e, ok := in.Lookup("il"); !ok || !synLocIs(in, e, Loc{Kind: LocConst, Const: 7}) {
		t.Error("inl: il: want the constant 7")
	}
	if _, ok := in.Lookup("a"); ok {
		t.Error("inl: Lookup(a) found f's parameter; perf searches the inlined scope, then the unit")
	}
}

func synLocIs(s *Scope, e Entry, want Loc) bool {
	if e == (Entry{}) {
		return false
	}
	got, err := s.Location(e)
	return err == nil && reflect.DeepEqual(got, want)
}

// TestSynthVarLists pins Vars ($params, $vars), Available (-V) and the
// ranges a variable has a location in (--range).
func TestSynthVarLists(t *testing.T) {
	f := synScopeUnit(t)
	entry := synScope(t, f, "f", 0)
	if got, want := synNames(entry.Vars(false)), []string{"a", "b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("$params at f: %v, want %v (b by the fentry fuzz)", got, want)
	}
	if got, want := synNames(entry.Vars(true)), []string{"a", "b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("$vars at f: %v, want %v", got, want)
	}
	s := synScope(t, f, "f", 0x24)
	if got, want := synNames(s.Vars(false)), []string{"a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("$params at f+0x24: %v, want %v", got, want)
	}
	if got, want := synNames(s.Vars(true)), []string{"a", "inner"}; !reflect.DeepEqual(got, want) {
		t.Errorf("$vars at f+0x24: %v, want %v", got, want)
	}
	type avail struct {
		name string
		ext  bool
		err  error
	}
	var got []avail
	for _, a := range s.Available(true) {
		var err error
		switch {
		case errors.Is(a.Err, ErrNoLocation):
			err = ErrNoLocation
		case a.Err != nil:
			err = a.Err
		}
		got = append(got, avail{a.Var.Name(), a.External, err})
	}
	want := []avail{
		{"a", false, nil}, {"b", false, ErrNoLocation}, {"x", false, ErrNoLocation}, {"nolocal", false, ErrNoLocation},
		{"inner", false, nil}, {"gext", true, nil}, {"gdecl", true, nil},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Available(externs):\n got %v\nwant %v", got, want)
	}
	for _, c := range []struct {
		name   string
		ranges []Range
		perf   string
	}{
		{"a", []Range{{0x1000, 0x1080}}, "@<f+[0-128]>"}, // an expression: the enclosing scope
		{"b", []Range{{0x1010, 0x1020}}, "@<f+[16-32]>"}, // a list: its entries
		{"x", []Range{{0x1030, 0x1040}}, "@<f+[48-64]>"},
		{"inner", []Range{{0x1020, 0x1030}}, "@<f+[32-48]>"}, // the lexical block
		{"nolocal", nil, ""},
	} {
		v := synEntry(t, s, c.name)
		if got := s.Ranges(v); !reflect.DeepEqual(got, c.ranges) {
			t.Errorf("Ranges(%s) = %v, want %v", c.name, got, c.ranges)
		}
		if got := s.PerfRanges(v); got != c.perf {
			t.Errorf("PerfRanges(%s) = %q, want %q", c.name, got, c.perf)
		}
	}
	for _, c := range []struct {
		off  uint64
		want bool
	}{{0x10, true}, {0x3e, true}, {0x3f, false}, {0x44, false}} {
		s := synScope(t, f, "f", c.off)
		if got := s.LocatedLater(synEntry(t, s, "x")); got != c.want {
			t.Errorf("LocatedLater(x) at f+%#x = %v, want %v", c.off, got, c.want)
		}
	}
}

// synTypesUnit declares struct s with two bitfields (DWARF 4
// DW_AT_bit_offset or DWARF 5 DW_AT_data_bit_offset), an anonymous
// const struct member and a member located by DW_OP_plus_uconst, and one
// variable of f per type to name:
//
//	struct s {
//		int a;                    // 0
//		unsigned int b:3, c:5;    // 4, bits 0-2 and 3-7 from the LSB
//		const struct { int x, y; }; // 8
//		int d;                    // 16
//	};
func synTypesUnit(t *testing.T, version int) *File {
	base := func(name string, size, enc int) *dwarftest.DIE {
		return dwarftest.D(dwarf.TagBaseType, dwarftest.Name(name), dwarftest.A(dwarf.AttrByteSize, dwarftest.FormData1, size), dwarftest.A(dwarf.AttrEncoding, dwarftest.FormData1, enc))
	}
	member := func(name, typ string, attrs ...dwarftest.Attr) *dwarftest.DIE {
		if name != "" {
			attrs = append([]dwarftest.Attr{dwarftest.Name(name)}, attrs...)
		}
		return dwarftest.D(dwarf.TagMember, append(attrs, dwarftest.Type(typ))...)
	}
	dml := func(n int) dwarftest.Attr { return dwarftest.A(dwarf.AttrDataMemberLoc, dwarftest.FormData1, n) }
	bits := func(width, lsb int) []dwarftest.Attr {
		if version >= 5 {
			return []dwarftest.Attr{dwarftest.A(dwarf.AttrBitSize, dwarftest.FormData1, width), dwarftest.A(atDataBitOffset, dwarftest.FormData1, 32+lsb)}
		}
		return []dwarftest.Attr{dwarftest.A(dwarf.AttrByteSize, dwarftest.FormData1, 4), dwarftest.A(dwarf.AttrBitSize, dwarftest.FormData1, width),
			dwarftest.A(dwarf.AttrBitOffset, dwarftest.FormData1, 32-lsb-width), dml(4)}
	}
	bound := dwarftest.A(dwarf.AttrUpperBound, dwarftest.FormData1, 15)
	if version >= 5 {
		bound = dwarftest.A(dwarf.AttrCount, dwarftest.FormData1, 16)
	}
	f := dwarftest.D(dwarf.TagSubprogram, dwarftest.Name("f"), dwarftest.Flag(dwarf.AttrExternal), dwarftest.Low(0x1000), dwarftest.High(0x40))
	for _, v := range [][2]string{
		{"vs", "s"}, {"vps", "ps"}, {"vstr", "arr"}, {"vflex", "flex"}, {"vfp", "psub"}, {"vfn", "sub"},
		{"ve", "e"}, {"vu", "u"}, {"vvp", "vp"}, {"vtd", "myint"}, {"vcs", "cs"}, {"vci", "cint"}, {"vuint", "uint"},
		{"vchar", "char"},
	} {
		f.With(dwarftest.D(dwarf.TagVariable, dwarftest.Name(v[0]), dwarftest.Type(v[1]), dwarftest.Loc(0x50)))
	}
	cu := dwarftest.D(dwarf.TagCompileUnit, dwarftest.Name("types.c"), dwarftest.Low(0x1000), dwarftest.High(0x100)).With(
		base("int", 4, dwAteSigned).As("int"),
		base("unsigned int", 4, 0x08).As("uint"),
		base("char", 1, dwAteSignedChar).As("char"),
		dwarftest.D(dwarf.TagStructType, dwarftest.A(dwarf.AttrByteSize, dwarftest.FormData1, 8)).As("anon").With(
			member("x", "int", dml(0)), member("y", "int", dml(4))),
		dwarftest.D(dwarf.TagConstType, dwarftest.Type("anon")).As("canon"),
		dwarftest.D(dwarf.TagStructType, dwarftest.Name("s"), dwarftest.A(dwarf.AttrByteSize, dwarftest.FormData1, 24)).As("s").With(
			member("a", "int", dml(0)),
			member("b", "uint", bits(3, 0)...),
			member("c", "uint", bits(5, 3)...),
			member("", "canon", dml(8)),
			member("d", "int", dwarftest.A(dwarf.AttrDataMemberLoc, dwarftest.FormExprloc, []byte{0x23, 16})),
		),
		dwarftest.D(dwarf.TagPointerType, dwarftest.A(dwarf.AttrByteSize, dwarftest.FormData1, 8), dwarftest.Type("s")).As("ps"),
		dwarftest.D(dwarf.TagArrayType, dwarftest.Type("char")).As("arr").With(dwarftest.D(dwarf.TagSubrangeType, bound)),
		dwarftest.D(dwarf.TagArrayType, dwarftest.Type("int")).As("flex").With(dwarftest.D(dwarf.TagSubrangeType)),
		dwarftest.D(dwarf.TagSubroutineType, dwarftest.Flag(dwarf.AttrPrototyped)).As("sub"),
		dwarftest.D(dwarf.TagPointerType, dwarftest.A(dwarf.AttrByteSize, dwarftest.FormData1, 8), dwarftest.Type("sub")).As("psub"),
		dwarftest.D(dwarf.TagEnumerationType, dwarftest.Name("e"), dwarftest.A(dwarf.AttrByteSize, dwarftest.FormData1, 4)).As("e").With(
			dwarftest.D(dwarf.TagEnumerator, dwarftest.Name("E0"), dwarftest.A(dwarf.AttrConstValue, dwarftest.FormData1, 0))),
		dwarftest.D(dwarf.TagUnionType, dwarftest.Name("u"), dwarftest.A(dwarf.AttrByteSize, dwarftest.FormData1, 4)).As("u").With(member("m", "int")),
		dwarftest.D(dwarf.TagPointerType, dwarftest.A(dwarf.AttrByteSize, dwarftest.FormData1, 8)).As("vp"),
		dwarftest.D(dwarf.TagTypedef, dwarftest.Name("myint"), dwarftest.Type("int")).As("myint"),
		dwarftest.D(dwarf.TagConstType, dwarftest.Type("s")).As("cs"),
		dwarftest.D(dwarf.TagConstType, dwarftest.Type("int")).As("cint"),
		f,
	)
	return synFile(t, version, cu, nil)
}

// TestSynthTypes pins the type questions of probe arguments, for DWARF 4
// and 5 descriptions of the same structure.
func TestSynthTypes(t *testing.T) {
	for _, version := range []int{4, 5} {
		s := synScope(t, synTypesUnit(t, version), "f", 0)
		v := func(name string) Entry {
			e, ok := s.Lookup(name)
			if !ok {
				t.Fatalf("DWARF %d: no %s", version, name)
			}
			return e
		}
		for _, c := range []struct{ v, want string }{
			{"vs", "struct s"}, {"vps", "struct s*"}, {"vstr", "char*"}, {"vflex", "int*"},
			{"vfp", "(function_type)*"}, {"vfn", "(function_type)"}, {"ve", "enum e"}, {"vu", "union u"},
			{"vvp", ""}, // void*: perf 6.1 has no name for it
			{"vtd", "myint"}, {"vcs", "struct s"}, {"vci", "int"},
		} {
			got, ok := v(c.v).TypeName()
			if got != c.want || ok != (c.want != "") {
				t.Errorf("DWARF %d: TypeName(%s) = %q, %v; want %q", version, c.v, got, ok, c.want)
			}
		}
		for _, c := range []struct {
			v      string
			signed bool
			size   int64
		}{{"vtd", true, 4}, {"vci", true, 4}, {"vuint", false, 4}, {"vchar", true, 1}, {"vs", false, 24}} {
			tp, ok := v(c.v).RealType(true)
			if !ok {
				t.Fatalf("DWARF %d: %s has no type", version, c.v)
			}
			if n, _ := tp.ByteSize(); tp.Signed() != c.signed || n != c.size {
				t.Errorf("DWARF %d: %s: signed %v, size %d; want %v, %d", version, c.v, tp.Signed(), n, c.signed, c.size)
			}
		}
		if td, ok := v("vtd").RealType(false); !ok || td.Tag() != dwarf.TagTypedef {
			t.Errorf("DWARF %d: RealType(false) of vtd should stop at the typedef", version)
		}
		arr, _ := v("vstr").RealType(true)
		if n, ok := arr.ArrayLen(); n != 16 || !ok {
			t.Errorf("DWARF %d: ArrayLen(char[16]) = %d, %v", version, n, ok)
		}
		if flex, _ := v("vflex").RealType(true); func() bool { _, ok := flex.ArrayLen(); return ok }() {
			t.Errorf("DWARF %d: ArrayLen of a flexible array: want !ok", version)
		}

		st, _ := v("vcs").RealType(true) // through const
		ps, _ := v("vps").RealType(true)
		if st2, _ := ps.RealType(true); st2 != st || st.Name() != "s" {
			t.Fatalf("DWARF %d: *vps and vcs should be the same struct s", version)
		}
		member := func(parent Entry, name string) Entry {
			m, ok := parent.FindMember(name)
			if !ok {
				t.Fatalf("DWARF %d: no member %s", version, name)
			}
			return m
		}
		for _, c := range []struct {
			name string
			want BitField
		}{
			{"b", BitField{Width: 3, Shift: 0, Container: 4, ByteOffset: 4}},
			{"c", BitField{Width: 5, Shift: 3, Container: 4, ByteOffset: 4}},
		} {
			got, err := member(st, c.name).BitField()
			if err != nil || got != c.want {
				t.Errorf("DWARF %d: BitField(%s) = %+v, %v; want %+v", version, c.name, got, err, c.want)
			}
		}
		if _, err := member(st, "a").BitField(); err == nil {
			t.Errorf("DWARF %d: BitField of a plain member: want an error", version)
		}
		if off, err := member(st, "d").MemberOffset(); off != 16 || err != nil {
			t.Errorf("DWARF %d: MemberOffset(d) by DW_OP_plus_uconst = %d, %v", version, off, err)
		}
		// y lives in the unnamed const struct member: FindMember answers
		// with that member, and the caller descends.
		anon := member(st, "y")
		if anon.Name() != "" {
			t.Fatalf("DWARF %d: FindMember(y) = %q; want the unnamed member", version, anon.Name())
		}
		if off, err := anon.MemberOffset(); off != 8 || err != nil {
			t.Errorf("DWARF %d: offset of the unnamed member = %d, %v; want 8", version, off, err)
		}
		inner, ok := anon.RealType(true)
		if !ok || inner.Tag() != dwarf.TagStructType {
			t.Fatalf("DWARF %d: the unnamed member's type through const: %v", version, ok)
		}
		if off, err := member(inner, "y").MemberOffset(); off != 4 || err != nil {
			t.Errorf("DWARF %d: offset of y in the unnamed struct = %d, %v; want 4", version, off, err)
		}
		if _, ok := st.FindMember("nosuch"); ok {
			t.Errorf("DWARF %d: FindMember(nosuch) found something", version)
		}
	}
}

// TestSynthDWARF5Forms reads a unit in clang's DWARF 5 style: names by
// DW_FORM_strx, addresses by DW_FORM_addrx (the root's low_pc before
// DW_AT_addr_base), locations by DW_FORM_loclistx and DW_OP_addrx, and
// each base pointing past another unit's table.
func TestSynthDWARF5Forms(t *testing.T) {
	le := binary.LittleEndian
	strs := []string{"synth5.c", "f", "v", "g", "int"}
	var str, offs []byte
	for _, s := range strs {
		offs = le.AppendUint32(offs, uint32(len(str)))
		str = append(append(str, s...), 0)
	}
	strOffsets := append(le.AppendUint32(nil, 8), 5, 0, 0, 0, 0xee, 0xee, 0xee, 0xee) // another unit's
	strBase := len(strOffsets) + 8
	strOffsets = append(append(le.AppendUint32(strOffsets, uint32(4+len(offs))), 5, 0, 0, 0), offs...)

	other := dwarftest.AddrTable(0xdead)
	addr := append(other, dwarftest.AddrTable(0x1000, 0x601000, 0x1008)...)
	addrBase := len(other) + 8

	var l []byte
	l = dwarftest.LLE(l, dwarftest.LLEBaseAddressx, []any{2})        // 0x1008
	l = dwarftest.LLE(l, dwarftest.LLEOffsetPair, []any{0, 8}, 0x55) // [0x1008, 0x1010) reg5
	l = dwarftest.LLE(l, dwarftest.LLEEndOfList, nil)
	otherLists, _ := dwarftest.Loclists([]byte{dwarftest.LLEEndOfList})
	ours, _ := dwarftest.Loclists(l)
	loclists := append(otherLists, ours...)
	locBase := len(otherLists) + 12

	strx := func(i int) dwarftest.Attr { return dwarftest.A(dwarf.AttrName, dwarftest.FormStrx1, i) }
	cu := dwarftest.D(dwarf.TagCompileUnit, strx(0), dwarftest.A(dwarf.AttrLowpc, dwarftest.FormAddrx, 0), dwarftest.High(0x100),
		dwarftest.A(atStrOffsetsBase, dwarftest.FormSecOffset, strBase), dwarftest.A(atAddrBase, dwarftest.FormSecOffset, addrBase), dwarftest.A(atLoclistsBase, dwarftest.FormSecOffset, locBase)).With(
		dwarftest.D(dwarf.TagBaseType, strx(4), dwarftest.A(dwarf.AttrByteSize, dwarftest.FormData1, 4), dwarftest.A(dwarf.AttrEncoding, dwarftest.FormData1, dwAteSigned)).As("int"),
		dwarftest.D(dwarf.TagVariable, dwarftest.A(dwarf.AttrName, dwarftest.FormStrx, 3), dwarftest.Type("int"), dwarftest.Flag(dwarf.AttrExternal), dwarftest.Loc(0xa1, 1)),
		dwarftest.D(dwarf.TagSubprogram, dwarftest.A(dwarf.AttrName, dwarftest.FormStrx, 1), dwarftest.Flag(dwarf.AttrExternal), dwarftest.A(dwarf.AttrLowpc, dwarftest.FormAddrx, 0), dwarftest.High(0x40),
			dwarftest.A(dwarf.AttrFrameBase, dwarftest.FormExprloc, []byte{0x9c})).With(
			dwarftest.D(dwarf.TagVariable, strx(2), dwarftest.Type("int"), dwarftest.A(dwarf.AttrLocation, dwarftest.FormLoclistx, 0)),
		),
	)
	f := synFile(t, 5, cu, map[string][]byte{".debug_str": str, ".debug_str_offsets": strOffsets, ".debug_addr": addr, ".debug_loclists": loclists})
	s := synScope(t, f, "f", 8)
	if s.Addr != 0x1008 || s.Func() != "f" {
		t.Fatalf("scope at %#x in %q; want 0x1008 in f", s.Addr, s.Func())
	}
	if e, ok := s.Lookup("v"); !ok || !synLocIs(s, e, synReg(5)) {
		t.Error("v at f+8: want reg5")
	}
	if e, ok := s.Lookup("g"); !ok || !synLocIs(s, e, Loc{Kind: LocMem, Addr: 0x601000, HasAddr: true, Derefs: []int64{0}, Sym: "g"}) {
		t.Error("g: want .debug_addr[1] = 0x601000 and its name")
	}
	if e, ok := s.Lookup("v"); ok {
		if tn, _ := e.TypeName(); tn != "int" {
			t.Errorf("TypeName(v) = %q; want int (a strx name)", tn)
		}
	}
	entry := synScope(t, f, "f", 0)
	if _, err := entry.Location(synEntry(t, entry, "v")); !errors.Is(err, ErrNoLocation) {
		t.Errorf("v at f: %v; want ErrNoLocation", err)
	}
	if g, ok, err := (globals{f}).find("g"); err != nil || !ok || !synLocIs(s, g, Loc{Kind: LocMem, Addr: 0x601000, HasAddr: true, Derefs: []int64{0}, Sym: "g"}) {
		t.Errorf("globals.find(g): %v, %v", ok, err)
	}
}

// TestSynthLocatedLaterRanges: perf's --range scan runs up to
// DW_AT_high_pc, so a function described by DW_AT_ranges never has a
// variable "located later".
func TestSynthLocatedLaterRanges(t *testing.T) {
	var l4 []byte
	l4 = dwarftest.Loc4(l4, 0x30, 0x40, 0x53)
	l4 = dwarftest.U64(dwarftest.U64(l4, 0), 0)
	rng := dwarftest.U64(dwarftest.U64(dwarftest.U64(dwarftest.U64(nil, 0), 0x40), 0), 0) // [0x1000, 0x1040) on the unit base
	cu := dwarftest.D(dwarf.TagCompileUnit, dwarftest.Name("synth.c"), dwarftest.Low(0x1000), dwarftest.High(0x100)).With(
		dwarftest.D(dwarf.TagBaseType, dwarftest.Name("int"), dwarftest.A(dwarf.AttrByteSize, dwarftest.FormData1, 4), dwarftest.A(dwarf.AttrEncoding, dwarftest.FormData1, dwAteSigned)).As("int"),
		dwarftest.D(dwarf.TagSubprogram, dwarftest.Name("f"), dwarftest.Flag(dwarf.AttrExternal), dwarftest.A(dwarf.AttrRanges, dwarftest.FormSecOffset, 0)).With(
			dwarftest.D(dwarf.TagVariable, dwarftest.Name("x"), dwarftest.Type("int"), dwarftest.A(dwarf.AttrLocation, dwarftest.FormSecOffset, 0))),
	)
	f := synFile(t, 4, cu, map[string][]byte{".debug_loc": l4, ".debug_ranges": rng})
	s := synScope(t, f, "f", 0x10)
	x := synEntry(t, s, "x")
	if s.LocatedLater(x) {
		t.Error("LocatedLater(x) in a function described by ranges: want false")
	}
	if got, want := s.PerfRanges(x), "@<f+[48-64]>"; got != want {
		t.Errorf("PerfRanges(x) = %q, want %q (the entry is the first range)", got, want)
	}
}

// synNamed decodes the first unit of f and returns its DIE named name.
func synNamed(t *testing.T, f *File, name string) Entry {
	t.Helper()
	units, err := f.unitsList()
	if err != nil {
		t.Fatal(err)
	}
	tree, err := f.decodeUnit(&units[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := range tree.dies {
		if tree.dies[i].HasName() && tree.rawNameAt(i) == name {
			return Entry{tree, i}
		}
	}
	t.Fatalf("no DIE named %q", name)
	return Entry{}
}

// synBitStruct is struct { int <name>:<width>; } with the member's bit
// position given by attrs.
func synBitStruct(name string, width int, attrs ...dwarftest.Attr) *dwarftest.DIE {
	m := dwarftest.D(dwarf.TagMember, append([]dwarftest.Attr{dwarftest.Name(name), dwarftest.Type("int"), dwarftest.A(dwarf.AttrBitSize, dwarftest.FormData1, width)}, attrs...)...)
	return dwarftest.D(dwarf.TagCompileUnit, dwarftest.Name("bits.c")).With(
		dwarftest.D(dwarf.TagBaseType, dwarftest.Name("int"), dwarftest.A(dwarf.AttrByteSize, dwarftest.FormData1, 4), dwarftest.A(dwarf.AttrEncoding, dwarftest.FormData1, dwAteSigned)).As("int"),
		dwarftest.D(dwarf.TagStructType, dwarftest.Name("t"), dwarftest.A(dwarf.AttrByteSize, dwarftest.FormData1, 4)).With(m),
	)
}

// TestSynthBitFieldDWARF5 pins DW_AT_data_bit_offset where the DWARF 4
// form has known bugs (TestSynthKnownBugs): on big endian the first
// field takes the most significant bits, and a field past its storage
// unit is refused.
func TestSynthBitFieldDWARF5(t *testing.T) {
	// Big endian, struct { int a:2; int b:5; }: a is bits 31-30, b 29-25.
	for _, c := range []struct {
		name       string
		width, dbo int
		want       BitField
	}{
		{"a", 2, 0, BitField{Width: 2, Shift: 30, Container: 4}},
		{"b", 5, 2, BitField{Width: 5, Shift: 25, Container: 4}},
	} {
		f := synFileBE(t, 5, synBitStruct(c.name, c.width, dwarftest.A(atDataBitOffset, dwarftest.FormData1, c.dbo)))
		if got, err := synNamed(t, f, c.name).BitField(); err != nil || got != c.want {
			t.Errorf("big endian %s: %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
	// A 28-bit field from bit 12 does not fit a 4-byte unit.
	f := synFile(t, 5, synBitStruct("r", 28, dwarftest.A(atDataBitOffset, dwarftest.FormData1, 12)), nil)
	if got, err := synNamed(t, f, "r").BitField(); err == nil {
		t.Errorf("28 bits at bit 12 of an int: %+v; want an error", got)
	}
}

// TestSynthEdgeRules pins rules found broken by these tests and fixed:
// DWARF 4 bit offsets on big endian and past the unit, byte order of
// implicit values, expressions without stack_value, missing call-frame
// information and partial pieces.
func TestSynthEdgeRules(t *testing.T) {
	t.Run("DW_AT_bit_offset on big endian", func(t *testing.T) {
		// DW_AT_bit_offset counts from the most significant bit of the
		// storage unit on both byte orders (LLVM's
		// test/DebugInfo/AArch64/bitfields.ll: a:2 has bit_offset 0 on
		// aarch64_be, 30 on little endian): the shift from the least
		// significant bit is 32 - bit_offset - width either way, as the
		// DWARF 5 form gives (TestSynthBitFieldDWARF5).
		for _, c := range []struct {
			name      string
			width, bo int
			want      BitField
		}{
			{"a", 2, 0, BitField{Width: 2, Shift: 30, Container: 4}},
			{"b", 5, 2, BitField{Width: 5, Shift: 25, Container: 4}},
		} {
			f := synFileBE(t, 4, synBitStruct(c.name, c.width, dwarftest.A(dwarf.AttrByteSize, dwarftest.FormData1, 4),
				dwarftest.A(dwarf.AttrBitOffset, dwarftest.FormData1, c.bo), dwarftest.A(dwarf.AttrDataMemberLoc, dwarftest.FormData1, 0)))
			if got, err := synNamed(t, f, c.name).BitField(); err != nil || got != c.want {
				t.Errorf("big endian %s: %+v, %v; want %+v", c.name, got, err, c.want)
			}
		}
	})
	t.Run("DW_AT_bit_offset past the storage unit", func(t *testing.T) {
		// LLVM's test/DebugInfo/ARM/bitfield.ll: reserved:28 with
		// bit_offset -8 in a 4-byte unit, i.e. bits 12-39. The DWARF 5
		// form of the same field is refused (TestSynthBitFieldDWARF5).
		f := synFile(t, 4, synBitStruct("r", 28, dwarftest.A(dwarf.AttrByteSize, dwarftest.FormData1, 4),
			dwarftest.A(dwarf.AttrBitOffset, dwarftest.FormData8, uint64(0xfffffffffffffff8)), dwarftest.A(dwarf.AttrDataMemberLoc, dwarftest.FormData1, 0)), nil)
		if got, err := synNamed(t, f, "r").BitField(); err == nil {
			t.Errorf("28 bits at bit 12 of an int: %+v; want an error", got)
		}
	})
	t.Run("implicit_value on big endian", func(t *testing.T) {
		got, err := decodeLocation([]byte{0x9e, 4, 0, 0, 0, 0x2a}, 8, binary.BigEndian, nil)
		if want := (Loc{Kind: LocConst, Const: 42}); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v, %v; want %+v", got, err, want)
		}
	})
	t.Run("entry_value without stack_value", func(t *testing.T) {
		// Without DW_OP_stack_value the expression's result is the
		// address of the value (a memory location description): at the
		// entry, +0(%r5); never the register itself.
		v := dwarftest.D(dwarf.TagFormalParameter, dwarftest.Name("v"), dwarftest.Type("int"), dwarftest.Loc(0xa3, 1, 0x55))
		f := synFile(t, 4, synLocUnit(4, nil, v, false), nil)
		s := synScope(t, f, "f", 0)
		got, err := s.Location(synEntry(t, s, "v"))
		if want := synMem(5, 0); !(err == nil && reflect.DeepEqual(got, want) || errors.Is(err, ErrLocation)) {
			t.Errorf("got %+v, %v; want %+v or ErrLocation", got, err, want)
		}
	})
	t.Run("constant without stack_value", func(t *testing.T) {
		got, err := decodeLocation(dwarftest.ULEB([]byte{0x10}, 0x601000), 8, binary.LittleEndian, nil)
		if want := (Loc{Kind: LocMem, Addr: 0x601000, HasAddr: true, Derefs: []int64{0}}); !(err == nil && reflect.DeepEqual(got, want) || errors.Is(err, ErrLocation)) {
			t.Errorf("got %+v, %v; want %+v or ErrLocation", got, err, want)
		}
	})
	t.Run("no call-frame information for a CFA frame base", func(t *testing.T) {
		// -V (probegen) sorts variables by these two classes; this one
		// falls through both and is silently left out.
		v := dwarftest.D(dwarf.TagVariable, dwarftest.Name("v"), dwarftest.Type("int"), dwarftest.Loc(dwarftest.SLEB([]byte{0x91}, -20)...))
		f := synFile(t, 4, synLocUnit(4, []dwarftest.Attr{dwarftest.A(dwarf.AttrFrameBase, dwarftest.FormExprloc, []byte{0x9c})}, v, false), nil) // no .debug_frame
		s := synScope(t, f, "f", 0x10)
		if got, err := s.Location(synEntry(t, s, "v")); !errors.Is(err, ErrNoLocation) && !errors.Is(err, ErrLocation) {
			t.Errorf("got %+v, %v; want an error wrapping ErrNoLocation or ErrLocation", got, err)
		}
	})
	t.Run("one piece shorter than the value", func(t *testing.T) {
		cu := synLocUnit(4, nil, dwarftest.D(dwarf.TagVariable, dwarftest.Name("v"), dwarftest.Type("long"), dwarftest.Loc(0x53, 0x93, 4)), false)
		cu.With(dwarftest.D(dwarf.TagBaseType, dwarftest.Name("long"), dwarftest.A(dwarf.AttrByteSize, dwarftest.FormData1, 8), dwarftest.A(dwarf.AttrEncoding, dwarftest.FormData1, dwAteSigned)).As("long"))
		s := synScope(t, synFile(t, 4, cu, nil), "f", 0x10)
		if got, err := s.Location(synEntry(t, s, "v")); err == nil {
			t.Errorf("got %+v; want an error (4 of 8 bytes described)", got)
		}
	})
}
