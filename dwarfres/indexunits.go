package dwarfres

import (
	"encoding/binary"
	"fmt"
	"sync"
)

// The unit headers' record of an index: per unit, in section order, the
// uvarints of its length (the next starts where it ends), of its header's
// length (to its first DIE) and of its abbreviation table's offset, then
// one byte each of its version, type, address size and offset size.
// Postings number units in this order, so the record is what ties an
// index to the unit boundaries it was built on: it must be the record of
// the headers .debug_info has, read from the file (one pread per unit:
// 3.5 ms for a vmlinux's 2,172 units), or the index is of another state
// of the file (rewritten in place, size and mtime kept) or corrupt.

// useIndexUnits checks ix's record against f's unit headers, read from
// .debug_info. The size is checked first: the headers of another build
// would be wrong answers, not an index to rebuild.
func (b indexer) useIndexUnits(ix *Index) error {
	if n := uint64(len(b.f.sec(".debug_info"))); ix.infoSize != n {
		return fmt.Errorf("%w: .debug_info of %d bytes, the binary's has %d", ErrIndexForeign, ix.infoSize, n)
	}
	hdrs, ok := decodeUnits(ix.hdrs, ix.infoSize, ix.units)
	if !ok {
		return fmt.Errorf("%w: unit headers do not decode", ErrIndexCorrupt)
	}
	if _, err := b.f.unitsList(); err != nil {
		return nil // no index for debuginfo that does not read: the build says why
	}
	if i, ok := sameUnits(hdrs, b.f.headers); !ok {
		return fmt.Errorf("%w: its record of unit %d is not the unit header .debug_info has", ErrIndexCorrupt, i)
	}
	return nil
}

// sameUnits reports whether the headers a and b agree, else the first
// unit where they differ.
func sameUnits(a, b []unit) (int, bool) {
	for i := range min(len(a), len(b)) {
		x, y := &a[i], &b[i]
		if x.off != y.off || x.end != y.end || x.dieOff != y.dieOff || x.abbrevOff != y.abbrevOff ||
			x.version != y.version || x.utype != y.utype || x.addrSize != y.addrSize || x.offSize != y.offSize {
			return i, false
		}
	}
	return min(len(a), len(b)), len(a) == len(b)
}

// unitsRecord is the record of f's units, or nil when some are split
// units, which come from .dwo files rather than .debug_info's headers.
func (b indexer) unitsRecord(units []unit) []byte {
	for i := range units {
		if units[i].split != nil {
			return nil
		}
	}
	return encodeUnits(b.f.headers)
}

// encodeUnits writes the record of us, the units as their headers say.
func encodeUnits(us []unit) []byte {
	var b []byte
	for _, u := range us {
		b = binary.AppendUvarint(b, u.end-u.off)
		b = binary.AppendUvarint(b, u.dieOff-u.off)
		b = binary.AppendUvarint(b, u.abbrevOff)
		b = append(b, byte(u.version), u.utype, byte(u.addrSize), byte(u.offSize))
	}
	return b
}

// decodeUnits reads the record of n units covering a .debug_info of
// infoSize bytes; ok is false unless it decodes to headers scanUnits could
// have read (the decoder slices .debug_info by them).
func decodeUnits(b []byte, infoSize uint64, n int) (us []unit, ok bool) {
	if n > len(b)/7 { // the smallest entry's size
		return nil, false
	}
	us = make([]unit, 0, n)
	var off uint64
	for range n {
		var length, hdr, abbrev uint64
		if length, b, ok = uvarint(b); !ok {
			return nil, false
		}
		if hdr, b, ok = uvarint(b); !ok {
			return nil, false
		}
		if abbrev, b, ok = uvarint(b); !ok || len(b) < 4 {
			return nil, false
		}
		u := unit{off: off, end: off + length, dieOff: off + hdr, abbrevOff: abbrev, version: int(b[0]), utype: b[1],
			addrSize: int(b[2]), offSize: int(b[3]), rootOnce: new(sync.Once)}
		b = b[4:]
		if length > infoSize-off || hdr < 7 || hdr > length || u.version < 2 || u.version > 5 ||
			(u.offSize != 4 && u.offSize != 8) || (u.addrSize != 1 && u.addrSize != 2 && u.addrSize != 4 && u.addrSize != 8) {
			return nil, false
		}
		us = append(us, u)
		off = u.end
	}
	return us, off == infoSize && len(b) == 0
}

// uvarint reads one uvarint off the front of b.
func uvarint(b []byte) (uint64, []byte, bool) {
	v, w := binary.Uvarint(b)
	if w <= 0 {
		return 0, nil, false
	}
	return v, b[w:], true
}
