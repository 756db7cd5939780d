package cfi

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"

	"github.com/go-delve/delve/pkg/dwarf/frame"
)

// beFrame is an s390x-like call-frame section in order: one CIE (CFA =
// r15+160 at a call) and one FDE for [lo, lo+size) whose CFA becomes
// r15+320 after a two-byte advance_loc2 of 0x106 (its operand is in
// order too). With ehFrame it is .eh_frame's form: CIE id 0, "zR" with
// pcrel|sdata4 addresses, the FDE's CIE pointer relative to itself.
func beFrame(order binary.AppendByteOrder, lo, size uint64, ehFrame bool, at uint64) []byte {
	var cie []byte
	if ehFrame {
		cie = order.AppendUint32(nil, 0)
		cie = append(cie, 1, 'z', 'R', 0)
	} else {
		cie = order.AppendUint32(nil, 0xffffffff)
		cie = append(cie, 1, 0) // version 1, no augmentation
	}
	cie = dwarftest.ULEB(cie, 2)  // code alignment
	cie = dwarftest.SLEB(cie, -8) // data alignment
	cie = append(cie, 14)         // return address register r14 (version 1: a byte)
	if ehFrame {
		cie = append(cie, 1, 0x1b) // augmentation data: R = pcrel|sdata4
	}
	cie = append(cie, 0x0c, 15, 0xa0, 0x01) // def_cfa r15 160
	out := append(order.AppendUint32(nil, uint32(len(cie))), cie...)
	fdeAt := len(out)
	var fde []byte
	if ehFrame {
		fde = order.AppendUint32(nil, uint32(fdeAt+4)) // back to the CIE at 0
		// pcrel: the address is relative to where it is mapped.
		fde = order.AppendUint32(fde, uint32(int32(lo-(at+uint64(fdeAt)+8))))
		fde = order.AppendUint32(fde, uint32(size))
		fde = append(fde, 0) // no augmentation data
	} else {
		fde = order.AppendUint32(nil, 0)
		fde = order.AppendUint64(fde, lo)
		fde = order.AppendUint64(fde, size)
	}
	fde = append(fde, 0x03)             // advance_loc2
	fde = order.AppendUint16(fde, 0x83) // 0x83 * code alignment 2 = 0x106
	fde = append(fde, 0x0e, 0xc0, 0x02) // def_cfa_offset 320
	out = append(out, order.AppendUint32(nil, uint32(len(fde)))...)
	out = append(out, fde...)
	return append(out, 0, 0, 0, 0) // terminator
}

// TestFrameAsLittleEndian: a big-endian .debug_frame and .eh_frame, turned
// around, parse to the frames their little-endian twins do, with the
// CFA moving at lo+0x106 (advance_loc2's operand read big-endian).
func TestFrameAsLittleEndian(t *testing.T) {
	const lo, size, at = 0x1000, 0x200, 0x400000
	for _, eh := range []bool{false, true} {
		ehAddr := uint64(0)
		if eh {
			ehAddr = at
		}
		be, err := frameAsLittleEndian(beFrame(binary.BigEndian, lo, size, eh, at), 8, eh)
		if err != nil {
			t.Fatalf("eh %v: %v", eh, err)
		}
		if le := beFrame(binary.LittleEndian, lo, size, eh, at); len(le) != len(be) {
			t.Fatalf("eh %v: %d bytes, want %d", eh, len(be), len(le))
		}
		fdes, err := frame.Parse(be, binary.BigEndian, 0, 8, ehAddr)
		if err != nil || len(fdes) != 1 {
			t.Fatalf("eh %v: %d FDEs, %v", eh, len(fdes), err)
		}
		if fdes[0].Begin() != lo || fdes[0].End() != lo+size {
			t.Errorf("eh %v: FDE [%#x, %#x), want [%#x, %#x)", eh, fdes[0].Begin(), fdes[0].End(), lo, lo+size)
		}
		for _, c := range []struct {
			pc  uint64
			off int64
		}{{lo, 160}, {lo + 0x104, 160}, {lo + 0x106, 320}, {lo + size - 2, 320}} {
			fc, err := fdes[0].EstablishFrame(c.pc)
			if err != nil || fc.CFA.Reg != 15 || fc.CFA.Offset != c.off {
				t.Errorf("eh %v: CFA at %#x = r%d%+d, %v; want r15%+d", eh, c.pc, fc.CFA.Reg, fc.CFA.Offset, err, c.off)
			}
		}
	}
}

// TestFrameAsLittleEndianBad: a truncated or mislabelled section is an
// error, never a panic.
func TestFrameAsLittleEndianBad(t *testing.T) {
	good := beFrame(binary.BigEndian, 0x1000, 0x200, false, 0)
	for _, tt := range []struct {
		name string
		in   []byte
	}{
		{"short length", []byte{0, 0}},
		{"length past the end", good[:len(good)-10]},
		{"64-bit DWARF", []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}},
		{"length under an id", []byte{0, 0, 0, 2, 0, 0}},
	} {
		if _, err := frameAsLittleEndian(tt.in, 8, false); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
	// An .eh_frame FDE whose CIE pointer points nowhere.
	eh := beFrame(binary.BigEndian, 0x1000, 0x200, true, 0)
	cieLen := int(binary.BigEndian.Uint32(eh))
	binary.BigEndian.PutUint32(eh[4+cieLen+4:], 3)
	if _, err := frameAsLittleEndian(eh, 8, true); err == nil {
		t.Error("FDE with no CIE: no error")
	}
}

func FuzzFrameAsLittleEndian(f *testing.F) {
	f.Add(beFrame(binary.BigEndian, 0x1000, 0x200, false, 0), false)
	f.Add(beFrame(binary.BigEndian, 0x1000, 0x200, true, 0x400000), true)
	f.Fuzz(func(t *testing.T, b []byte, eh bool) {
		out, err := frameAsLittleEndian(b, 8, eh)
		if err == nil && len(out) != len(b) {
			t.Fatalf("%d bytes in, %d out", len(b), len(out))
		}
		if err == nil && len(b) > 0 && bytes.Equal(out, b) && b[0] != b[3] {
			// Every length was swapped: a non-palindromic first one changes.
			t.Fatalf("unchanged: %x", b)
		}
	})
}
