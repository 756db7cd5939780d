package dwarfres

import (
	"encoding/binary"

	"github.com/dwprobe/dwprobe/dwarfres/internal/leb"
)

// buf is a little cursor over a section. The first error sticks (as in
// debug/dwarf) so callers check once at the end of a decode.
type buf struct {
	sec   string
	base  uint64 // section offset of data[0]
	data  []byte
	off   int
	order binary.ByteOrder
	err   error
}

func (b *buf) pos() uint64 { return b.base + uint64(b.off) }

func (b *buf) fail(msg string) {
	if b.err == nil {
		b.err = &DecodeError{Section: b.sec, Offset: b.pos(), Msg: msg}
	}
	b.off = len(b.data)
}

func (b *buf) need(n int) bool {
	if n < 0 || len(b.data)-b.off < n {
		b.fail(errShort.Error())
		return false
	}
	return true
}

func (b *buf) u8() uint8 {
	if !b.need(1) {
		return 0
	}
	v := b.data[b.off]
	b.off++
	return v
}

func (b *buf) u16() uint16 {
	if !b.need(2) {
		return 0
	}
	v := b.order.Uint16(b.data[b.off:])
	b.off += 2
	return v
}

func (b *buf) u24() uint32 {
	if !b.need(3) {
		return 0
	}
	d := b.data[b.off:]
	b.off += 3
	if b.order == binary.BigEndian {
		return uint32(d[0])<<16 | uint32(d[1])<<8 | uint32(d[2])
	}
	return uint32(d[2])<<16 | uint32(d[1])<<8 | uint32(d[0])
}

func (b *buf) u32() uint32 {
	if !b.need(4) {
		return 0
	}
	v := b.order.Uint32(b.data[b.off:])
	b.off += 4
	return v
}

func (b *buf) u64() uint64 {
	if !b.need(8) {
		return 0
	}
	v := b.order.Uint64(b.data[b.off:])
	b.off += 8
	return v
}

func (b *buf) uint(size int) uint64 {
	switch size {
	case 1:
		return uint64(b.u8())
	case 2:
		return uint64(b.u16())
	case 4:
		return uint64(b.u32())
	case 8:
		return b.u64()
	}
	b.fail("bad integer size")
	return 0
}

func (b *buf) uleb() uint64 {
	v, n := leb.Uint(b.data[b.off:])
	if n == 0 {
		b.off = len(b.data) // the error names where the data ended
		b.fail(errShort.Error())
		return 0
	}
	b.off += n
	return v
}

func (b *buf) sleb() int64 {
	v, n := leb.Int(b.data[b.off:])
	if n == 0 {
		b.off = len(b.data)
		b.fail(errShort.Error())
		return 0
	}
	b.off += n
	return v
}

func (b *buf) skip(n int) {
	if b.need(n) {
		b.off += n
	}
}

func (b *buf) skipCstr() {
	for i := b.off; i < len(b.data); i++ {
		if b.data[i] == 0 {
			b.off = i + 1
			return
		}
	}
	b.fail("unterminated string")
}

// cstr reads a NUL-terminated string, uncopied and without its NUL.
func (b *buf) cstr() []byte {
	start := b.off
	b.skipCstr()
	if b.err != nil {
		return nil
	}
	return b.data[start : b.off-1]
}

// cstrAt reads a NUL-terminated string at off in sec without copying more
// than needed; ok is false when off is out of range.
func cstrAt(sec []byte, off uint64) (string, bool) {
	if off >= uint64(len(sec)) {
		return "", false
	}
	for i := off; i < uint64(len(sec)); i++ {
		if sec[i] == 0 {
			return string(sec[off:i]), true
		}
	}
	return "", false
}
