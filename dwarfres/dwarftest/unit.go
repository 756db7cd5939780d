package dwarftest

import (
	"debug/dwarf"
	"encoding/binary"
	"testing"
)

// Form is a DW_FORM_* value; only the forms Unit can write are named.
type Form uint64

// Forms Unit writes, from the DWARF 5 standard, section 7.5.6.
const (
	FormAddr        Form = 0x01
	FormData2       Form = 0x05
	FormData4       Form = 0x06
	FormData8       Form = 0x07
	FormString      Form = 0x08
	FormBlock1      Form = 0x0a
	FormData1       Form = 0x0b
	FormSdata       Form = 0x0d
	FormUdata       Form = 0x0f
	FormRef4        Form = 0x13
	FormSecOffset   Form = 0x17
	FormExprloc     Form = 0x18
	FormFlagPresent Form = 0x19
	FormStrx        Form = 0x1a
	FormAddrx       Form = 0x1b
	FormLoclistx    Form = 0x22
	FormStrx1       Form = 0x25
)

// Attr is one attribute of a DIE. Val is an int, int64 or uint64 for the
// integer, address, index and offset forms, a string for FormString, a
// []byte for FormExprloc and FormBlock1, a Ref for FormRef4, and nil for
// FormFlagPresent.
type Attr struct {
	At   dwarf.Attr
	Form Form
	Val  any
}

// Ref names the labelled DIE a FormRef4 attribute points to.
type Ref string

// DIE is one entry of a unit: its tag, attributes and children.
type DIE struct {
	Tag   dwarf.Tag
	Label string // the name Refs use, "" for none
	Attrs []Attr
	Kids  []*DIE
}

// D returns a DIE with the given tag and attributes.
func D(tag dwarf.Tag, attrs ...Attr) *DIE { return &DIE{Tag: tag, Attrs: attrs} }

// As labels d for FormRef4 references and returns d.
func (d *DIE) As(label string) *DIE { d.Label = label; return d }

// With appends children to d and returns d.
func (d *DIE) With(kids ...*DIE) *DIE { d.Kids = append(d.Kids, kids...); return d }

// A returns an attribute.
func A(at dwarf.Attr, form Form, val any) Attr { return Attr{at, form, val} }

// Name is DW_AT_name as an inline string.
func Name(s string) Attr { return A(dwarf.AttrName, FormString, s) }

// Type is DW_AT_type referring to the DIE labelled label.
func Type(label string) Attr { return A(dwarf.AttrType, FormRef4, Ref(label)) }

// Flag is a present flag attribute such as DW_AT_external.
func Flag(at dwarf.Attr) Attr { return A(at, FormFlagPresent, nil) }

// Loc is DW_AT_location as an expression.
func Loc(expr ...byte) Attr { return A(dwarf.AttrLocation, FormExprloc, expr) }

// Low is DW_AT_low_pc.
func Low(a uint64) Attr { return A(dwarf.AttrLowpc, FormAddr, a) }

// High is DW_AT_high_pc as a length from DW_AT_low_pc.
func High(n uint64) Attr { return A(dwarf.AttrHighpc, FormData4, n) }

// U returns an integer attribute value or operand as uint64.
func U(v any) uint64 {
	switch v := v.(type) {
	case int:
		return uint64(v)
	case int64:
		return uint64(v)
	case uint64:
		return v
	}
	panic("dwarftest: not an integer")
}

// Unit assembles a DWARF 4 or 5 compile unit with root as its root DIE:
// its .debug_info (at offset 0, abbreviations at offset 0) and its
// .debug_abbrev, one abbreviation per DIE. A form Unit cannot write or a
// reference to a missing label fails t.
func Unit(t testing.TB, order binary.AppendByteOrder, version int, root *DIE) (info, abbrev []byte) {
	t.Helper()
	u := unitWriter{t: t, order: order, hdr: 11, labels: map[string]int{}}
	if version >= 5 {
		u.hdr = 12 // unit_type after the version
	}
	u.emit(root)
	u.abbrev = append(u.abbrev, 0)
	u.fix()
	info = order.AppendUint32(nil, uint32(u.hdr-4+len(u.body)))
	info = order.AppendUint16(info, uint16(version))
	if version >= 5 {
		info = append(info, 1, 8) // DW_UT_compile, address size
		info = order.AppendUint32(info, 0)
	} else {
		info = order.AppendUint32(info, 0)
		info = append(info, 8)
	}
	return append(info, u.body...), u.abbrev
}

// unitWriter holds a unit being assembled.
type unitWriter struct {
	t      testing.TB
	order  binary.AppendByteOrder
	hdr    int // header size: unit offsets of DIEs start here
	body   []byte
	abbrev []byte
	code   uint64
	labels map[string]int // label -> unit offset
	fixups []fixup
}

// fixup is a FormRef4 value to fill once every label is placed.
type fixup struct {
	at    int
	label string
}

func (u *unitWriter) emit(d *DIE) {
	u.code++
	if d.Label != "" {
		u.labels[d.Label] = u.hdr + len(u.body)
	}
	u.abbrev = ULEB(ULEB(u.abbrev, u.code), uint64(d.Tag))
	if len(d.Kids) > 0 {
		u.abbrev = append(u.abbrev, 1)
	} else {
		u.abbrev = append(u.abbrev, 0)
	}
	u.body = ULEB(u.body, u.code)
	for _, a := range d.Attrs {
		u.abbrev = ULEB(ULEB(u.abbrev, uint64(a.At)), uint64(a.Form))
		u.value(a)
	}
	u.abbrev = append(u.abbrev, 0, 0)
	if len(d.Kids) > 0 {
		for _, k := range d.Kids {
			u.emit(k)
		}
		u.body = append(u.body, 0)
	}
}

// value writes one attribute's value in its form.
func (u *unitWriter) value(a Attr) {
	switch a.Form {
	case FormAddr, FormData8:
		u.body = u.order.AppendUint64(u.body, U(a.Val))
	case FormData1, FormStrx1:
		u.body = append(u.body, byte(U(a.Val)))
	case FormData2:
		u.body = u.order.AppendUint16(u.body, uint16(U(a.Val)))
	case FormData4, FormSecOffset:
		u.body = u.order.AppendUint32(u.body, uint32(U(a.Val)))
	case FormSdata:
		u.body = SLEB(u.body, int64(U(a.Val)))
	case FormUdata, FormLoclistx, FormAddrx, FormStrx:
		u.body = ULEB(u.body, U(a.Val))
	case FormString:
		u.body = append(append(u.body, a.Val.(string)...), 0)
	case FormExprloc:
		u.body = append(ULEB(u.body, uint64(len(a.Val.([]byte)))), a.Val.([]byte)...)
	case FormBlock1:
		u.body = append(append(u.body, byte(len(a.Val.([]byte)))), a.Val.([]byte)...)
	case FormRef4:
		u.fixups = append(u.fixups, fixup{len(u.body), string(a.Val.(Ref))})
		u.body = u.order.AppendUint32(u.body, 0)
	case FormFlagPresent:
	default:
		u.t.Fatalf("dwarftest.Unit: form %#x not supported", uint64(a.Form))
	}
}

// fix fills every FormRef4 value with its label's unit offset.
func (u *unitWriter) fix() {
	for _, f := range u.fixups {
		off, ok := u.labels[f.label]
		if !ok {
			u.t.Fatalf("dwarftest.Unit: no DIE labelled %q", f.label)
		}
		copy(u.body[f.at:], u.order.AppendUint32(nil, uint32(off)))
	}
}

// ULEB appends v as ULEB128.
func ULEB(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

// SLEB appends v as SLEB128.
func SLEB(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// U64 appends v as 8 little-endian bytes.
func U64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }
