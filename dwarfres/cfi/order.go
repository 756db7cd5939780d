package cfi

import (
	"encoding/binary"
	"slices"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// frameAsLittleEndian returns a big-endian call-frame section (s390x's
// .debug_frame, a big-endian user program's .eh_frame) with every header
// field delve's frame.Parse reads as little-endian whatever the order it
// is given byte-swapped: each entry's length, a CIE's id and an FDE's CIE
// pointer, an FDE's start address and range, and in .eh_frame a CIE's
// personality pointer (read to be skipped). Parse, given the file's order,
// then reads the rest right: the call-frame instructions' operands
// (advance_loc2/4, set_loc) are read in that order. data is not changed.
//
// Pointer encodings are .eh_frame's (the CIE's 'R' augmentation); in
// .debug_frame every address is ptr bytes. A truncated entry or a 64-bit
// DWARF length (which Parse does not read either) is an error.
func frameAsLittleEndian(data []byte, ptr int, ehFrame bool) ([]byte, error) {
	out := slices.Clone(data)
	be := binary.BigEndian
	encs := map[int]byte{} // .eh_frame: each CIE's FDE pointer encoding, by offset
	for off := 0; off < len(out); {
		if len(out)-off < 4 {
			return nil, &elfobj.DecodeError{Section: frameSection(ehFrame), Offset: uint64(off), Msg: "truncated entry length"}
		}
		n := be.Uint32(out[off:])
		swap(out[off : off+4])
		if n == 0 {
			off += 4
			continue
		}
		if n == 0xffffffff || uint64(n) > uint64(len(out)-off-4) || n < 4 {
			return nil, &elfobj.DecodeError{Section: frameSection(ehFrame), Offset: uint64(off), Msg: "bad entry length"}
		}
		ent := out[off+4 : off+4+int(n)]
		id := be.Uint32(ent)
		swap(ent[:4])
		if ehFrame && id == 0 || !ehFrame && id == 0xffffffff {
			enc, err := swapCIE(ent[4:], ptr, ehFrame)
			if err != nil {
				return nil, &elfobj.DecodeError{Section: frameSection(ehFrame), Offset: uint64(off), Msg: err.Error()}
			}
			encs[off] = enc
		} else {
			cie := int(id)
			if ehFrame {
				cie = off + 4 - int(id)
			}
			enc, ok := encs[cie]
			if !ehFrame {
				enc, ok = 0, true // absolute, ptr bytes
			}
			size := encodedSize(enc, ptr)
			if !ok || size < 0 || len(ent) < 4+2*size {
				return nil, &elfobj.DecodeError{Section: frameSection(ehFrame), Offset: uint64(off), Msg: "FDE with an unknown CIE or encoding"}
			}
			swap(ent[4 : 4+size])
			swap(ent[4+size : 4+2*size])
		}
		off += 4 + int(n)
	}
	return out, nil
}

func frameSection(ehFrame bool) string {
	if ehFrame {
		return ".eh_frame"
	}
	return ".debug_frame"
}

// swapCIE swaps a CIE's personality pointer (after its id) and returns its
// FDE pointer encoding (0, absolute, for .debug_frame and for a CIE with
// no 'R').
func swapCIE(b []byte, ptr int, ehFrame bool) (byte, error) {
	if !ehFrame {
		return 0, nil
	}
	r := cursor{data: b}
	version := r.u8()
	aug := r.cstr()
	r.uleb() // code alignment
	r.sleb() // data alignment
	if version == 1 {
		r.u8()
	} else {
		r.uleb() // return address register
	}
	var enc byte
	if len(aug) == 0 || aug[0] != 'z' {
		return enc, r.errOr(errCIETruncated)
	}
	r.uleb() // augmentation data length
	for _, c := range aug[1:] {
		switch c {
		case 'L':
			r.u8()
		case 'R':
			enc = r.u8()
		case 'P':
			pe := r.u8() &^ 0x80 // not indirect
			size := encodedSize(pe, ptr)
			if size < 0 || len(b)-r.off < size {
				return 0, errCIEAugmentation
			}
			swap(b[r.off : r.off+size])
			r.skip(size)
		case 'S':
		default:
			return enc, nil // Parse reports it
		}
	}
	return enc, r.errOr(errCIETruncated)
}

var errCIETruncated = &elfobj.DecodeError{Section: ".eh_frame", Msg: "truncated CIE"}

var errCIEAugmentation = &elfobj.DecodeError{Section: ".eh_frame", Msg: "bad personality pointer encoding"}

// encodedSize is the size in bytes of a pointer in DW_EH_PE encoding enc
// (its low four bits); 0 for a LEB128 (nothing to swap), -1 for one
// unknown.
func encodedSize(enc byte, ptr int) int {
	if enc == 0xff { // omit
		return 0
	}
	switch enc & 0x0f {
	case 0x00, 0x08: // absptr, signed
		return ptr
	case 0x01, 0x09: // uleb128, sleb128
		return 0
	case 0x02, 0x0a:
		return 2
	case 0x03, 0x0b:
		return 4
	case 0x04, 0x0c:
		return 8
	}
	return -1
}

func swap(b []byte) { slices.Reverse(b) }
