// Package record reads and checks the little-endian records the debuginfo
// index is made of: its own body (dwarfres) and the symbol map stored in
// it (elfsym) share one decoder and one checksum.
package record

import (
	"encoding/binary"
	"hash/crc32"
)

// Castagnoli is the CRC-32C table the index's checksums use.
var Castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Decoder reads a record; a read past the end sets Bad and returns zero
// values from then on.
type Decoder struct {
	B   []byte
	Bad bool
}

// Bytes returns the next n bytes, capped so appends cannot reach past them.
func (d *Decoder) Bytes(n int) []byte {
	if n < 0 || n > len(d.B) {
		d.Bad = true
		d.B = nil
		return nil
	}
	out := d.B[:n:n]
	d.B = d.B[n:]
	return out
}

// U32 reads a little-endian uint32.
func (d *Decoder) U32() uint32 {
	if b := d.Bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

// U64 reads a little-endian uint64.
func (d *Decoder) U64() uint64 {
	if b := d.Bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}
