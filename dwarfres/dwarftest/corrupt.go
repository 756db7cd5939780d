package dwarftest

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
)

// EmptyLineFiles returns a copy of the ELF image bin in which every line
// program of .debug_line (DWARF 2 to 5, 32-bit) has an empty file table,
// the rest of each header and program untouched: a few bytes overwritten
// per unit, as corrupt debuginfo has them. Rows then name file indexes the
// table does not have (issue 11: a reader indexing the table without a
// bounds check panics).
func EmptyLineFiles(bin []byte) ([]byte, error) { return setLineFiles(bin, 0) }

// LineFileCount is EmptyLineFiles with every DWARF 5 file table claiming
// n entries of no content, which its header bytes cannot hold.
func LineFileCount(bin []byte, n uint64) ([]byte, error) { return setLineFiles(bin, n) }

// LineDirForm returns a copy of the ELF image bin in which every DWARF 5
// line program header's directory entry format has fm as its first form
// (one byte in place of one byte), the rest untouched. With a form
// debug/dwarf does not decode (it reads it as zero bytes), debug/dwarf
// reads the file table from the directory entries' bytes, with a count
// no check saw.
func LineDirForm(bin []byte, fm byte) ([]byte, error) {
	return eachLineHeader(bin, func(u []byte, order binary.ByteOrder) error { return setDirForm(u, order, fm) })
}

func setLineFiles(bin []byte, n uint64) ([]byte, error) {
	return eachLineHeader(bin, func(u []byte, order binary.ByteOrder) error { return setFiles(u, order, n) })
}

// eachLineHeader returns a copy of bin with set applied to each unit of
// its .debug_line (u starts at the version).
func eachLineHeader(bin []byte, set func(u []byte, order binary.ByteOrder) error) ([]byte, error) {
	ef, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		return nil, err
	}
	s := ef.Section(".debug_line")
	if s == nil || s.Type == elf.SHT_NOBITS || s.Flags&elf.SHF_COMPRESSED != 0 {
		return nil, errors.New("no uncompressed .debug_line")
	}
	out := append([]byte(nil), bin...)
	sec := out[s.Offset : s.Offset+s.FileSize]
	for off := 0; off+4 <= len(sec); {
		l := int(ef.ByteOrder.Uint32(sec[off:]))
		if l >= 0xfffffff0 || off+4+l > len(sec) {
			return nil, fmt.Errorf(".debug_line unit at %#x: length %#x", off, l)
		}
		if err := set(sec[off+4:off+4+l], ef.ByteOrder); err != nil {
			return nil, fmt.Errorf(".debug_line unit at %#x: %w", off, err)
		}
		off += 4 + l
	}
	return out, nil
}

// setFiles gives one line program header (u starts at the version) a
// file table of n entries without content: none before DWARF 5.
func setFiles(u []byte, order binary.ByteOrder, n uint64) error {
	c := &cursor{b: u}
	version, hdrEnd := c.tables(order)
	if version < 5 {
		for len(c.cstring()) > 0 { // include_directories
		}
		if c.err == nil && n == 0 {
			c.b[c.off] = 0 // the file_names list ends at once
		}
		return c.err
	}
	c.entries() // directories
	at := c.off
	// file_name_entry_format_count 0, then the count over what followed.
	count := binary.AppendUvarint([]byte{0}, n)
	if c.err != nil || at+len(count) > min(hdrEnd, len(c.b)) {
		return errors.New("no room for the file count")
	}
	copy(c.b[at:], count)
	return nil
}

// setDirForm gives one DWARF 5 line program header (u starts at the
// version) fm as its first directory entry form.
func setDirForm(u []byte, order binary.ByteOrder, fm byte) error {
	c := &cursor{b: u}
	if version, _ := c.tables(order); version < 5 {
		return c.err
	}
	if n := c.take(1)[0]; c.err == nil && n == 0 {
		return errors.New("no directory entry format")
	}
	c.uleb() // content type
	at := c.off
	if c.uleb(); c.err == nil && c.off != at+1 {
		return errors.New("a directory form of more than one byte")
	}
	if c.err == nil {
		c.b[at] = fm
	}
	return c.err
}

// tables moves c from a line program header's version to its directory
// table, and returns the version and where the header ends.
func (c *cursor) tables(order binary.ByteOrder) (version uint16, hdrEnd int) {
	version = order.Uint16(c.take(2))
	if version >= 5 {
		c.take(2) // address_size, segment_selector_size
	}
	hdrEnd = int(order.Uint32(c.take(4))) + c.off // header_length
	c.take(1)                                     // minimum_instruction_length
	if version >= 4 {
		c.take(1) // maximum_operations_per_instruction
	}
	c.take(3) // default_is_stmt, line_base, line_range
	opcodeBase := int(c.take(1)[0])
	c.take(opcodeBase - 1) // standard_opcode_lengths
	return version, hdrEnd
}

// cursor reads a line program header, remembering the first overrun.
type cursor struct {
	b   []byte
	off int
	err error
}

func (c *cursor) take(n int) []byte {
	if c.err != nil || n < 0 || c.off+n > len(c.b) {
		if c.err == nil {
			c.err = errors.New("header overruns the unit")
		}
		return make([]byte, max(n, 0))
	}
	c.off += n
	return c.b[c.off-n : c.off]
}

func (c *cursor) cstring() []byte {
	i := bytes.IndexByte(c.b[min(c.off, len(c.b)):], 0)
	if c.err != nil || i < 0 {
		c.take(len(c.b) + 1)
		return nil
	}
	return c.take(i + 1)[:i]
}

func (c *cursor) uleb() uint64 {
	var v uint64
	for shift := 0; c.err == nil; shift += 7 {
		b := c.take(1)[0]
		if shift < 64 {
			v |= uint64(b&0x7f) << shift
		}
		if b&0x80 == 0 {
			break
		}
	}
	return v
}

// formats reads a DWARF 5 entry format list: (content type, form) pairs.
func (c *cursor) formats() []uint64 {
	n := int(c.take(1)[0]) // entry_format_count
	var forms []uint64
	for i := 0; i < n && c.err == nil; i++ {
		c.uleb()
		forms = append(forms, c.uleb())
	}
	return forms
}

// entries skips a DWARF 5 directory or file-name table.
func (c *cursor) entries() {
	forms := c.formats()
	n := c.uleb()
	for i := uint64(0); i < n && c.err == nil; i++ {
		for _, f := range forms {
			c.skipForm(f)
		}
	}
}

// skipForm skips one value of the forms a line table header may use.
func (c *cursor) skipForm(form uint64) {
	switch form {
	case 0x08: // string
		c.cstring()
	case 0x0b, 0x11, 0x25: // data1, flag, strx1
		c.take(1)
	case 0x05, 0x26: // data2, strx2
		c.take(2)
	case 0x27: // strx3
		c.take(3)
	case 0x06, 0x0e, 0x1f, 0x17, 0x28: // data4, strp, line_strp, sec_offset, strx4
		c.take(4)
	case 0x07: // data8
		c.take(8)
	case 0x1e: // data16
		c.take(16)
	case 0x0f, 0x1a: // udata, strx
		c.uleb()
	case 0x09: // block
		c.take(int(c.uleb()))
	default:
		if c.err == nil {
			c.err = fmt.Errorf("form %#x in a line table header", form)
		}
	}
}
