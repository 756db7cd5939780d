package dwarfres

import (
	"debug/dwarf"
	"encoding/binary"
	"fmt"
)

// Entry is a DIE of a decoded unit, for the questions probe arguments ask
// of variables, members and types. The zero Entry is not valid.
type Entry struct {
	t *cuTree
	i int
}

// Tag is the DIE's tag.
func (e Entry) Tag() dwarf.Tag { return e.t.dies[e.i].Tag }

// Offset is the DIE's .debug_info offset, for error messages.
func (e Entry) Offset() uint64 { return e.t.dies[e.i].Off }

// Name is dwarf_diename: DW_AT_name, through abstract origins.
func (e Entry) Name() string { return e.t.name(e.i) }

// Type is DW_AT_type (through abstract origins, as die_get_type); ok is
// false for void.
func (e Entry) Type() (Entry, bool) {
	t, a, ok := e.t.attrIntegratedIn(e.i, dwarf.AttrType)
	if !ok {
		return Entry{}, false
	}
	return t.refTarget(a)
}

// entryAt returns the DIE at section offset off: in this unit, or, for a
// DW_FORM_ref_addr into another (Go points every type into one unit of
// types; dwz into its partial units), in that unit.
func (t *cuTree) entryAt(off uint64) (Entry, bool) {
	if e, ok := t.lookup(off); ok {
		return e, true
	}
	return t.f.entryAt(off)
}

// entryAt returns the DIE at section offset off of any unit of f, which
// is decoded once per file.
func (f *File) entryAt(off uint64) (Entry, bool) {
	ui := f.unitIndex(off)
	if ui < 0 {
		return Entry{}, false
	}
	var o *cuTree
	if v, ok := f.foreign.Load(ui); ok {
		o = v.(*cuTree)
	} else {
		us, _ := f.unitsList()
		d, err := f.decodeUnit(&us[ui])
		if err != nil {
			return Entry{}, false
		}
		v, _ := f.foreign.LoadOrStore(ui, d)
		o = v.(*cuTree)
	}
	return o.lookup(off)
}

// RealType skips qualifiers (const, volatile, restrict, shared) and, with
// typedefs, typedefs too: perf's __die_get_real_type / die_get_real_type.
func (e Entry) RealType(typedefs bool) (Entry, bool) {
	cur := e
	for n := 0; n < 64; n++ {
		next, ok := cur.Type()
		if !ok {
			return Entry{}, false
		}
		switch next.Tag() {
		case dwarf.TagConstType, dwarf.TagVolatileType, dwarf.TagRestrictType, dwarf.TagSharedType:
			cur = next
			continue
		case dwarf.TagTypedef:
			if typedefs {
				cur = next
				continue
			}
		}
		return next, true
	}
	return Entry{}, false
}

func (e Entry) attrs() attrSet {
	s, _ := e.t.attrs(e.i)
	return s
}

func (e Entry) integratedUdata(a dwarf.Attr) (int64, bool) {
	x, ok := e.t.attrIntegrated(e.i, a)
	if !ok || x.form.class() != classConstant {
		return 0, false
	}
	return int64(x.v), true
}

// ByteSize is DW_AT_byte_size (dwarf_bytesize); ok is false without one.
func (e Entry) ByteSize() (int64, bool) { return e.integratedUdata(dwarf.AttrByteSize) }

// encoding is a base type's DW_AT_encoding (DW_ATE_*).
func (e Entry) encoding() (int64, bool) { return e.integratedUdata(dwarf.AttrEncoding) }

// Signed is perf's die_is_signed_type.
func (e Entry) Signed() bool {
	enc, ok := e.encoding()
	return ok && (enc == dwAteSigned || enc == dwAteSignedChar || enc == dwAteSignedFixed)
}

// DW_ATE_* values used here.
const (
	dwAteSigned      = 0x05
	dwAteSignedChar  = 0x06
	dwAteSignedFixed = 0x0d
)

// BitSize is a bitfield member's DW_AT_bit_size; 0 for other members.
func (e Entry) BitSize() int64 {
	v, _ := e.integratedUdata(dwarf.AttrBitSize)
	return v
}

// BitField describes a bitfield member for a kprobe b<width>@<shift>/<bits>
// type: the value is Width bits at Shift bits from the least significant
// bit of the Container-byte unit that starts ByteOffset bytes into the
// enclosing structure.
type BitField struct {
	Width, Shift int64
	Container    int64 // bytes
	ByteOffset   int64
}

// BitField decodes DWARF 5's DW_AT_data_bit_offset or DWARF 2-4's
// DW_AT_data_member_location + DW_AT_bit_offset (counted from the most
// significant bit) for a little- or big-endian target.
func (e Entry) BitField() (BitField, error) {
	w := e.BitSize()
	if w <= 0 {
		return BitField{}, fmt.Errorf("member %s is not a bitfield", e.Name())
	}
	s := e.attrs()
	size, ok := s.udata(dwarf.AttrByteSize)
	if !ok {
		tp, ok2 := e.RealType(true)
		if !ok2 {
			return BitField{}, fmt.Errorf("bitfield %s (DIE %#x) has no type size", e.Name(), e.Offset())
		}
		sz, ok3 := tp.ByteSize()
		if !ok3 || sz <= 0 {
			return BitField{}, fmt.Errorf("bitfield %s (DIE %#x) has no type size", e.Name(), e.Offset())
		}
		size = uint64(sz)
	}
	bits := int64(size) * 8
	bigEndian := e.t.f.Order == binary.BigEndian
	if dbo, ok := s.udata(atDataBitOffset); ok {
		// Start of the bitfield counted in bits from the structure start;
		// pick the container-aligned unit holding it.
		unit := int64(dbo) / bits * int64(size)
		shift := int64(dbo) - unit*8
		if shift+w > bits {
			return BitField{}, fmt.Errorf("bitfield %s (DIE %#x) straddles a %d-byte unit", e.Name(), e.Offset(), size)
		}
		if bigEndian {
			shift = bits - shift - w
		}
		return BitField{Width: w, Shift: shift, Container: int64(size), ByteOffset: unit}, nil
	}
	bo, ok := s.sdata(dwarf.AttrBitOffset)
	if !ok {
		return BitField{}, fmt.Errorf("bitfield %s (DIE %#x) has no bit offset", e.Name(), e.Offset())
	}
	off, err := e.MemberOffset()
	if err != nil {
		return BitField{}, err
	}
	// DW_AT_bit_offset counts from the most significant bit of the
	// storage unit on either byte order; the kernel's shift counts from
	// the least significant bit of the loaded unit. clang writes negative
	// offsets for fields that spill out of their unit (packed structs).
	shift := bits - bo - w
	if bo < 0 || shift < 0 {
		return BitField{}, fmt.Errorf("bitfield %s (DIE %#x) straddles its %d-byte unit", e.Name(), e.Offset(), size)
	}
	return BitField{Width: w, Shift: shift, Container: int64(size), ByteOffset: off}, nil
}

// MemberOffset is perf's die_get_data_member_location: a constant or a
// single DW_OP_plus_uconst; 0 when absent (union members).
func (e Entry) MemberOffset() (int64, error) {
	x, ok := e.attrs().get(dwarf.AttrDataMemberLoc)
	if !ok {
		if e.t.dies[e.i].Tag == dwarf.TagMember {
			return 0, nil
		}
		return 0, fmt.Errorf("%s (DIE %#x) has no member offset", e.Name(), e.Offset())
	}
	if x.form.class() == classConstant {
		return int64(x.v), nil
	}
	if len(x.blk) > 0 && x.blk[0] == 0x23 { // DW_OP_plus_uconst
		b := buf{data: x.blk[1:]}
		v := b.uleb()
		if b.err == nil && b.off == len(b.data) {
			return int64(v), nil
		}
	}
	return 0, fmt.Errorf("member %s (DIE %#x): unsupported DW_AT_data_member_location", e.Name(), e.Offset())
}

// children lists the DIE's direct children.
func (e Entry) children() []Entry {
	var out []Entry
	t := e.t
	if t.dies[e.i].Lazy {
		b, err := t.body(int32(e.i))
		if err != nil {
			return nil
		}
		return Entry{b, 0}.children()
	}
	d := t.dies[e.i].Depth
	for j := e.i + 1; j < len(t.dies) && t.dies[j].Depth > d; j++ {
		if t.dies[j].Depth == d+1 {
			out = append(out, Entry{t, j})
		}
	}
	return out
}

// ArrayLen is an array type's element count from its first subrange
// (DW_AT_count or DW_AT_upper_bound + 1); ok is false for flexible arrays.
func (e Entry) ArrayLen() (int64, bool) {
	dims := e.ArrayDims()
	if len(dims) == 0 || dims[0] == 0 {
		return 0, false
	}
	return dims[0], true
}

// HasLocation reports whether the DIE itself has DW_AT_location.
func (e Entry) HasLocation() bool { return e.attrs().has(dwarf.AttrLocation) }

// ArrayDims lists an array type's dimensions, outermost first; 0 for a
// dimension without a bound (a flexible array).
func (e Entry) ArrayDims() []int64 {
	var out []int64
	for _, c := range e.children() {
		if c.Tag() != dwarf.TagSubrangeType {
			continue
		}
		s := c.attrs()
		if n, ok := s.udata(dwarf.AttrCount); ok {
			out = append(out, int64(n))
		} else if ub, ok := upperBound(s); ok {
			out = append(out, ub+1)
		} else {
			out = append(out, 0)
		}
	}
	return out
}

// upperBound reads DW_AT_upper_bound: DW_FORM_dataN is unsigned here (an
// index type's bound, 255 in data1 for [256]); only sdata carries a sign.
func upperBound(s attrSet) (int64, bool) {
	x, ok := s.get(dwarf.AttrUpperBound)
	if !ok || x.form.class() != classConstant {
		return 0, false
	}
	return int64(x.v), true
}

// Members lists a structure's, union's or class's direct members (its
// DW_TAG_member children), for probegen's C-type walk, which looks
// through unnamed ones itself as FindMember does.
func (e Entry) Members() []Entry {
	var out []Entry
	for _, c := range e.children() {
		if c.Tag() == dwarf.TagMember {
			out = append(out, c)
		}
	}
	return out
}

// Params are a function DIE's formal parameters, in the order it lists
// them (what BTF numbers $arg1, $arg2, ... by); Name and Type follow a
// parameter's abstract origin.
func (e Entry) Params() []Entry {
	var out []Entry
	for _, c := range e.children() {
		if c.Tag() == dwarf.TagFormalParameter {
			out = append(out, c)
		}
	}
	return out
}
