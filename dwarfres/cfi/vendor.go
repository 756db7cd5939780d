package cfi

import (
	"slices"

	"github.com/dwprobe/dwprobe/dwarfres/internal/leb"
)

// vendorCFAAsNop returns ins with DW_CFA_AARCH64_negate_ra_state (0x2d,
// also DW_CFA_GNU_window_save; no operands) replaced by DW_CFA_nop: arm64
// kernels built with pointer authentication use it around every frame, it
// does not change the CFA, and delve's interpreter stops at it. ins is
// copied only when it holds one; a malformed stream is returned as is.
func vendorCFAAsNop(ins []byte, ptr int) []byte {
	b := cursor{data: ins}
	var out []byte
	for b.off < len(b.data) && !b.failed {
		at := b.off
		o := b.u8()
		switch o >> 6 {
		case 1, 3: // advance_loc, restore: operand in the opcode
			continue
		case 2: // offset
			b.uleb()
			continue
		}
		switch o {
		case 0x00, 0x0a, 0x0b: // nop, remember_state, restore_state
		case 0x2d:
			if out == nil {
				out = slices.Clone(ins)
			}
			out[at] = 0x00
		case 0x01: // set_loc
			b.skip(ptr)
		case 0x02:
			b.skip(1)
		case 0x03:
			b.skip(2)
		case 0x04:
			b.skip(4)
		case 0x06, 0x07, 0x08, 0x0d, 0x0e, 0x2e: // one ULEB
			b.uleb()
		case 0x13: // def_cfa_offset_sf
			b.sleb()
		case 0x05, 0x09, 0x0c, 0x14, 0x2f: // two ULEBs
			b.uleb()
			b.uleb()
		case 0x11, 0x12, 0x15: // ULEB, SLEB
			b.uleb()
			b.sleb()
		case 0x0f: // def_cfa_expression
			b.skip(int(b.uleb()))
		case 0x10, 0x16: // expression, val_expression
			b.uleb()
			b.skip(int(b.uleb()))
		default:
			return ins // unknown: leave it to delve to report
		}
	}
	if out == nil {
		return ins
	}
	return out
}

// cursor reads a CFA instruction stream; the first overrun sticks
// (failed) and ends the stream.
type cursor struct {
	data   []byte
	off    int
	failed bool
}

func (b *cursor) fail() {
	b.failed = true
	b.off = len(b.data)
}

func (b *cursor) u8() uint8 {
	if b.off >= len(b.data) {
		b.fail()
		return 0
	}
	v := b.data[b.off]
	b.off++
	return v
}

func (b *cursor) uleb() uint64 {
	v, n := leb.Uint(b.data[b.off:])
	if n == 0 {
		b.fail()
		return 0
	}
	b.off += n
	return v
}

// sleb steps over a signed LEB128 (its value is not needed).
func (b *cursor) sleb() {
	if _, n := leb.Int(b.data[b.off:]); n > 0 {
		b.off += n
		return
	}
	b.fail()
}

func (b *cursor) skip(n int) {
	if n < 0 || len(b.data)-b.off < n {
		b.fail()
		return
	}
	b.off += n
}

// cstr reads a NUL-terminated string.
func (b *cursor) cstr() string {
	for i := b.off; i < len(b.data); i++ {
		if b.data[i] == 0 {
			s := string(b.data[b.off:i])
			b.off = i + 1
			return s
		}
	}
	b.fail()
	return ""
}

// errOr is err if b overran, else nil.
func (b *cursor) errOr(err error) error {
	if b.failed {
		return err
	}
	return nil
}
