package dwarftest

import "encoding/binary"

// Frame is a .debug_frame with one CIE (x86_64 at a call: CFA = rsp+8,
// the return address at CFA-8) and one FDE for [lo, hi) whose CFA becomes
// rsp+16 one byte in, after a push.
func Frame(lo, hi uint64) []byte {
	le := binary.LittleEndian
	cie := le.AppendUint32(nil, 0xffffffff) // CIE_id
	cie = append(cie, 1, 0)                 // version 1, no augmentation
	cie = ULEB(cie, 1)                      // code alignment
	cie = SLEB(cie, -8)                     // data alignment
	cie = ULEB(cie, 16)                     // return address register
	cie = append(cie, 0x0c, 7, 8)           // def_cfa r7 8
	cie = append(cie, 0x90, 1)              // offset r16 at cfa-8
	fde := le.AppendUint32(nil, 0)          // CIE pointer
	fde = le.AppendUint64(fde, lo)
	fde = le.AppendUint64(fde, hi-lo)
	fde = append(fde, 0x41)     // advance_loc 1
	fde = append(fde, 0x0e, 16) // def_cfa_offset 16
	fde = append(fde, 0x86, 2)  // offset r6 at cfa-16
	out := append(le.AppendUint32(nil, uint32(len(cie))), cie...)
	return append(append(out, le.AppendUint32(nil, uint32(len(fde)))...), fde...)
}

// AddrTable is a DWARF 5 .debug_addr table: 8-byte header, then addrs.
func AddrTable(addrs ...uint64) []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, uint32(4+8*len(addrs)))
	b = append(le.AppendUint16(b, 5), 8, 0)
	for _, a := range addrs {
		b = le.AppendUint64(b, a)
	}
	return b
}

// Loclists is a DWARF 5 .debug_loclists table holding lists, with its
// offsets table (for DW_FORM_loclistx); at[i] is the offset of list i
// from the start of the table (for DW_FORM_sec_offset, add the table's
// section offset). DW_AT_loclists_base is the table offset + 12.
func Loclists(lists ...[]byte) (tab []byte, at []uint64) {
	le := binary.LittleEndian
	var offs, body []byte
	for _, l := range lists {
		o := 4*len(lists) + len(body)
		offs = le.AppendUint32(offs, uint32(o))
		at = append(at, uint64(12+o))
		body = append(body, l...)
	}
	tab = le.AppendUint32(nil, uint32(8+len(offs)+len(body)))
	tab = append(le.AppendUint16(tab, 5), 8, 0)
	tab = le.AppendUint32(tab, uint32(len(lists)))
	return append(append(tab, offs...), body...), at
}

// DW_LLE_* entry kinds, from the DWARF 5 standard, section 7.7.3.
const (
	LLEEndOfList       = 0
	LLEBaseAddressx    = 1
	LLEStartxEndx      = 2
	LLEStartxLength    = 3
	LLEOffsetPair      = 4
	LLEDefaultLocation = 5
	LLEBaseAddress     = 6
	LLEStartEnd        = 7
	LLEStartLength     = 8
)

// Addr8 is an operand of LLE written as an 8-byte address.
type Addr8 uint64

// LLE appends one DW_LLE_* entry: its kind, operands (ULEB unless an
// Addr8) and, unless it is a base-address entry or the end, the counted
// expression.
func LLE(b []byte, kind byte, ops []any, expr ...byte) []byte {
	b = append(b, kind)
	for _, o := range ops {
		if a, ok := o.(Addr8); ok {
			b = binary.LittleEndian.AppendUint64(b, uint64(a))
		} else {
			b = ULEB(b, U(o))
		}
	}
	if kind == LLEBaseAddress || kind == LLEBaseAddressx || kind == LLEEndOfList {
		return b
	}
	return append(ULEB(b, uint64(len(expr))), expr...)
}

// Loc4 appends one DWARF 4 .debug_loc entry.
func Loc4(b []byte, lo, hi uint64, expr ...byte) []byte {
	b = U64(U64(b, lo), hi)
	return append(binary.LittleEndian.AppendUint16(b, uint16(len(expr))), expr...)
}
