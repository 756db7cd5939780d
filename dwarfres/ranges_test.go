package dwarfres

import (
	"reflect"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestRanges5 pins each DW_RLE_* kind, hand-assembled, one entry per kind.
func TestRanges5(t *testing.T) {
	// .debug_addr: an 8-byte header, then index 0 and 1 (DW_AT_addr_base
	// defaults to just past the header).
	addr := dwarftest.U64(dwarftest.U64(make([]byte, 8), 0x1000), 0x2000)
	var rl []byte
	rl = append(rl, rleOffsetPair) // base is the unit's low_pc 0x400000
	rl = dwarftest.ULEB(dwarftest.ULEB(rl, 0x10), 0x20)
	rl = append(rl, rleBaseAddress)
	rl = dwarftest.U64(rl, 0x500000)
	rl = append(rl, rleOffsetPair) // now relative to 0x500000
	rl = dwarftest.ULEB(dwarftest.ULEB(rl, 0x0), 0x8)
	rl = append(rl, rleStartEnd)
	rl = dwarftest.U64(dwarftest.U64(rl, 0x600000), 0x600010)
	rl = append(rl, rleStartLength)
	rl = dwarftest.ULEB(dwarftest.U64(rl, 0x700000), 0x4)
	rl = append(rl, rleStartxEndx)
	rl = dwarftest.ULEB(dwarftest.ULEB(rl, 0), 1)
	rl = append(rl, rleStartxLength)
	rl = dwarftest.ULEB(dwarftest.ULEB(rl, 1), 0x10)
	rl = append(rl, rleBaseAddressx)
	rl = dwarftest.ULEB(rl, 0)
	rl = append(rl, rleOffsetPair) // relative to .debug_addr[0] = 0x1000
	rl = dwarftest.ULEB(dwarftest.ULEB(rl, 0x1), 0x2)
	rl = append(rl, rleOffsetPair, 5, 5) // empty: dropped
	rl = append(rl, rleEndOfList)
	f := memFile(map[string][]byte{".debug_rnglists": rl, ".debug_addr": addr})
	u := &unit{version: 5, addrSize: 8, offSize: 4, addrB: 0}
	got, err := unitLists{f, u}.ranges5(0, 0x400000)
	if err != nil {
		t.Fatal(err)
	}
	want := []Range{
		{0x400010, 0x400020}, // offset pair on the unit base
		{0x500000, 0x500008}, // after base_address
		{0x600000, 0x600010}, // start_end
		{0x700000, 0x700004}, // start_length
		{0x1000, 0x2000},     // startx_endx
		{0x2000, 0x2010},     // startx_length
		{0x1001, 0x1002},     // offset pair after base_addressx
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ranges5:\n got %#v\nwant %#v", got, want)
	}
	if _, err := (unitLists{f, u}).ranges5(uint64(len(rl)), 0); err == nil {
		t.Error("offset past the section: want an error")
	}
	if _, err := (unitLists{f, u}).ranges5(0, 0); err != nil {
		t.Error(err)
	}
	bad := append([]byte{0x42}, 0)
	if _, err := (unitLists{memFile(map[string][]byte{".debug_rnglists": bad}), u}).ranges5(0, 0); err == nil {
		t.Error("unknown entry kind: want an error")
	}
}

// TestRanges4 pins DWARF 4 .debug_ranges with a base address selection.
func TestRanges4(t *testing.T) {
	var r []byte
	r = dwarftest.U64(dwarftest.U64(r, 0x10), 0x20)
	r = dwarftest.U64(dwarftest.U64(r, ^uint64(0)), 0x9000) // base selection
	r = dwarftest.U64(dwarftest.U64(r, 0x1), 0x3)
	r = dwarftest.U64(dwarftest.U64(r, 0), 0)
	f := memFile(map[string][]byte{".debug_ranges": r})
	got, err := unitLists{f, &unit{version: 4, addrSize: 8}}.ranges4(0, 0x100)
	if err != nil {
		t.Fatal(err)
	}
	want := []Range{{0x110, 0x120}, {0x9001, 0x9003}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v want %#v", got, want)
	}
}

// TestStmtRowAt pins perf's cu_getsrc_die: the first statement row among
// those at the highest address not above addr; an end of sequence is no
// row of its address (perf 6.12 takes it, and maps do_exit.cold+0 to
// abort's last line).
func TestStmtRowAt(t *testing.T) {
	lt := &lineTable{rows: []lineRow{
		{Addr: 0x10, Line: 1, Stmt: true},
		{Addr: 0x20, Line: 2, Stmt: false},
		{Addr: 0x20, Line: 3, Stmt: true},
		{Addr: 0x20, Line: 4, Stmt: true},
		{Addr: 0x30, Line: 5, Stmt: false},
		{Addr: 0x40, Line: 6, Stmt: true, EndSeq: true},
		{Addr: 0x40, Line: 7, Stmt: true}, // the next sequence (section)
		{Addr: 0x50, Line: 8, Stmt: true, EndSeq: true},
	}}
	for _, c := range []struct {
		addr uint64
		line int32 // 0: none
	}{{0x10, 0}, {0x18, 0} /* perf never answers with the very first row */, {0x20, 3}, {0x28, 4}, {0x30, 0}, {0x8, 0},
		{0x40, 7}, {0x48, 7}, {0x50, 0}, {0x58, 0}} {
		i := lt.stmtRowAt(c.addr)
		got := int32(0)
		if i >= 0 {
			got = lt.rows[i].Line
		}
		if got != c.line {
			t.Errorf("stmtRowAt(%#x) = line %d, want %d", c.addr, got, c.line)
		}
	}
}
