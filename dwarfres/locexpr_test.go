package dwarfres

import (
	"encoding/binary"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestDecodeLocation pins one rule per location form, with expressions
// assembled by hand (compilers do not emit each on demand).
func TestDecodeLocation(t *testing.T) {
	le := binary.LittleEndian
	addrx := func(i uint64) (uint64, error) { return 0xffff0000 + i*8, nil }
	cases := []struct {
		name string
		expr []byte
		want Loc
		err  string
	}{
		{"reg5", []byte{0x55}, Loc{Kind: LocReg, Reg: 5}, ""},
		{"regx 17", dwarftest.ULEB([]byte{0x90}, 17), Loc{Kind: LocReg, Reg: 17}, ""},
		{"breg7 -8", dwarftest.SLEB([]byte{0x77}, -8), Loc{Kind: LocMem, Reg: 7, Derefs: []int64{-8}}, ""},
		{"bregx 12 16", dwarftest.SLEB(dwarftest.ULEB([]byte{0x92}, 12), 16), Loc{Kind: LocMem, Reg: 12, Derefs: []int64{16}}, ""},
		{"fbreg -20", dwarftest.SLEB([]byte{0x91}, -20), Loc{Kind: LocFrameBase, Offset: -20}, ""},
		{"fbreg 16 stack_value", append(dwarftest.SLEB([]byte{0x91}, 16), 0x9f), Loc{Kind: LocFrameBaseAddr, Offset: 16}, ""},
		{"call_frame_cfa", []byte{0x9c}, Loc{Kind: LocCFA}, ""},
		{"addr", le.AppendUint64([]byte{0x03}, 0xffffffff82000000), Loc{Kind: LocMem, Addr: 0xffffffff82000000, HasAddr: true, Derefs: []int64{0}}, ""},
		{"addrx", dwarftest.ULEB([]byte{0xa1}, 2), Loc{Kind: LocMem, Addr: 0xffff0010, HasAddr: true, Derefs: []int64{0}}, ""},
		{"addr stack_value", append(le.AppendUint64([]byte{0x03}, 0x1000), 0x9f), Loc{Kind: LocAddrValue, Addr: 0x1000, HasAddr: true}, ""},
		{"breg plus_uconst", dwarftest.ULEB(append(dwarftest.SLEB([]byte{0x75}, 8), 0x23), 4), Loc{Kind: LocMem, Reg: 5, Derefs: []int64{12}}, ""},
		{"breg deref plus_uconst", dwarftest.ULEB(append(dwarftest.SLEB([]byte{0x75}, 8), 0x06, 0x23), 16), Loc{Kind: LocMem, Reg: 5, Derefs: []int64{8, 16}}, ""},
		{"reg deref", []byte{0x55, 0x06}, Loc{Kind: LocMem, Reg: 5, Derefs: []int64{0}}, ""},
		{"breg0 0 stack_value", append(dwarftest.SLEB([]byte{0x70}, 0), 0x9f), Loc{Kind: LocReg, Reg: 0}, ""},
		{"lit7 stack_value", []byte{0x37, 0x9f}, Loc{Kind: LocConst, Const: 7}, ""},
		{"const1s", []byte{0x09, 0xfe, 0x9f}, Loc{Kind: LocConst, Const: -2}, ""},
		{"const2u", []byte{0x0a, 0x34, 0x12, 0x9f}, Loc{Kind: LocConst, Const: 0x1234}, ""},
		{"const4s", []byte{0x0d, 0xff, 0xff, 0xff, 0xff, 0x9f}, Loc{Kind: LocConst, Const: -1}, ""},
		{"constu", append(dwarftest.ULEB([]byte{0x10}, 300), 0x9f), Loc{Kind: LocConst, Const: 300}, ""},
		{"consts", append(dwarftest.SLEB([]byte{0x11}, -300), 0x9f), Loc{Kind: LocConst, Const: -300}, ""},
		{"implicit_value", []byte{0x9e, 4, 0x2a, 0, 0, 0}, Loc{Kind: LocConst, Const: 42}, ""},
		{"entry_value reg5", []byte{0xa3, 1, 0x55, 0x9f}, Loc{Kind: LocEntryReg, Reg: 5}, ""},
		{"GNU_entry_value reg4", []byte{0xf3, 1, 0x54, 0x9f}, Loc{Kind: LocEntryReg, Reg: 4}, ""},
		{"one piece", []byte{0x53, 0x93, 8}, Loc{Kind: LocReg, Reg: 3, Piece: 8}, ""},
		{"two pieces", []byte{0x53, 0x93, 4, 0x54, 0x93, 4}, Loc{}, "pieces"},
		{"breg 8 stack_value", append(dwarftest.SLEB([]byte{0x75}, 8), 0x9f), Loc{Kind: LocRegOffset, Reg: 5, Offset: 8}, ""},
		{"entry_value of memory", []byte{0xa3, 2, 0x75, 0x00, 0x9f}, Loc{}, "DW_OP_entry_value"},
		{"unknown op", []byte{0x22}, Loc{}, "unsupported"},
		{"empty", nil, Loc{}, "empty"},
		{"truncated", []byte{0x03, 1, 2}, Loc{}, "unexpected end"},
	}
	for _, c := range cases {
		got, err := decodeLocation(c.expr, 8, le, addrx)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: got %+v, %v; want an error mentioning %q", c.name, got, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
	if _, err := decodeLocation([]byte{0x22}, 8, le, nil); !errors.Is(err, ErrLocation) {
		t.Errorf("unknown op: want ErrLocation, got %v", err)
	}
}

// TestLocList pins every DW_LLE_* kind and DWARF 4 .debug_loc.
func TestLocList(t *testing.T) {
	expr := func(b []byte, e ...byte) []byte { return append(dwarftest.ULEB(b, uint64(len(e))), e...) }
	addr := dwarftest.U64(dwarftest.U64(make([]byte, 8), 0x1000), 0x2000)
	var l []byte
	l = append(l, lleOffsetPair)
	l = expr(dwarftest.ULEB(dwarftest.ULEB(l, 0x10), 0x20), 0x50) // reg0 on base+0x10..0x20
	l = append(l, lleBaseAddress)
	l = dwarftest.U64(l, 0x500000)
	l = append(l, lleOffsetPair)
	l = expr(dwarftest.ULEB(dwarftest.ULEB(l, 0), 8), 0x51)
	l = append(l, lleStartEnd)
	l = expr(dwarftest.U64(dwarftest.U64(l, 0x600000), 0x600010), 0x52)
	l = append(l, lleStartLength)
	l = expr(dwarftest.ULEB(dwarftest.U64(l, 0x700000), 4), 0x53)
	l = append(l, lleStartxEndx)
	l = expr(dwarftest.ULEB(dwarftest.ULEB(l, 0), 1), 0x54)
	l = append(l, lleStartxLength)
	l = expr(dwarftest.ULEB(dwarftest.ULEB(l, 1), 0x10), 0x55)
	l = append(l, lleBaseAddressx)
	l = dwarftest.ULEB(l, 1)
	l = append(l, lleOffsetPair)
	l = expr(dwarftest.ULEB(dwarftest.ULEB(l, 0x20), 0x30), 0x56) // relative to .debug_addr[1]
	l = append(l, lleDefaultLocation)
	l = expr(l, 0x57)
	l = append(l, lleEndOfList)
	// an offsets table for DW_FORM_loclistx: base 8, entry 0 -> offset 4
	tab := append(make([]byte, 8), 4, 0, 0, 0)
	sec := append(append([]byte{}, tab...), l...)
	// the list starts at 12 = base 8 + 4
	f := memFile(map[string][]byte{".debug_loclists": sec, ".debug_addr": addr})
	u := &unit{version: 5, addrSize: 8, offSize: 4}
	viaIndex, err := unitLists{f, u}.locList(0, true, 8, 0x400000)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := unitLists{f, u}.locList(12, false, 0, 0x400000)
	if err != nil || !reflect.DeepEqual(viaIndex, direct) {
		t.Fatalf("loclistx and offset disagree: %v %v", err, direct)
	}
	for _, c := range []struct {
		pc   uint64
		want byte
	}{
		{0x400010, 0x50}, {0x500004, 0x51}, {0x60000f, 0x52}, {0x700003, 0x53},
		{0x1000, 0x54}, {0x2008, 0x55}, {0x2021, 0x56}, {0x12345, 0x57 /* default */},
	} {
		e, ok := locAt(direct, c.pc)
		if !ok || len(e) != 1 || e[0] != c.want {
			t.Errorf("pc %#x: expr %x, %v; want %x", c.pc, e, ok, c.want)
		}
	}
	if _, err := (unitLists{f, u}).locList(5, true, 8, 0); err == nil {
		t.Error("index past the table: want an error")
	}
	// DWARF 4 .debug_loc with a base selection entry.
	var l4 []byte
	l4 = dwarftest.U64(dwarftest.U64(l4, 0x10), 0x20)
	l4 = append(binary.LittleEndian.AppendUint16(l4, 1), 0x50)
	l4 = dwarftest.U64(dwarftest.U64(l4, ^uint64(0)), 0x9000)
	l4 = dwarftest.U64(dwarftest.U64(l4, 0), 4)
	l4 = append(binary.LittleEndian.AppendUint16(l4, 1), 0x51)
	l4 = dwarftest.U64(dwarftest.U64(l4, 0), 0)
	f4 := memFile(map[string][]byte{".debug_loc": l4})
	got, err := unitLists{f4, &unit{version: 4, addrSize: 8}}.locList(0, false, 0, 0x100)
	want := []LocEntry{{Low: 0x110, High: 0x120, Expr: []byte{0x50}}, {Low: 0x9000, High: 0x9004, Expr: []byte{0x51}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("debug_loc: %+v, %v", got, err)
	}
	if _, ok := locAt(got, 0x200); ok {
		t.Error("pc outside every range and no default: want no location")
	}
}

// TestOpNames pins the names errors use, all from the operation table.
func TestOpNames(t *testing.T) {
	for o, want := range map[opcode]string{
		0x22: "DW_OP_plus", 0x30: "DW_OP_lit0", 0x8f: "DW_OP_breg31", 0x50: "DW_OP_reg0",
		0xa3: "DW_OP_entry_value", 0xf3: "DW_OP_entry_value", 0xfb: "DW_OP_GNU_addr_index", 0xff: "DW_OP 0xff",
	} {
		if got := o.name(); got != want {
			t.Errorf("opcode %#x: name %q, want %q", uint8(o), got, want)
		}
	}
}
