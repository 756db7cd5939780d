package ctype

import (
	"debug/dwarf"

	"github.com/dwprobe/dwprobe/dwarfres"
)

// The DWARF view of a C type (ctype.go): a type DIE.

type dwarfType struct{ e dwarfres.Entry }

// FromDWARF is the declared type of the DIE e (a variable, member or
// type); nil for void.
func FromDWARF(e dwarfres.Entry) Type {
	t, ok := e.Type()
	if !ok {
		return nil
	}
	return dwarfType{t}
}

// DWARFVal is where a member walk starts from the variable v.
func DWARFVal(v dwarfres.Entry) Val {
	return Val{Name: v.Name(), Type: FromDWARF(v), Node: v}
}

func (t dwarfType) Kind() Kind {
	switch t.e.Tag() {
	case dwarf.TagBaseType:
		return Base
	case dwarf.TagEnumerationType:
		return Enum
	case dwarf.TagPointerType:
		return Ptr
	case dwarf.TagArrayType:
		return Array
	case dwarf.TagStructType:
		return Struct
	case dwarf.TagUnionType:
		return Union
	case dwarf.TagClassType:
		return Class
	case dwarf.TagSubroutineType:
		return Func
	case dwarf.TagTypedef:
		return Typedef
	case dwarf.TagConstType, dwarf.TagVolatileType, dwarf.TagRestrictType, dwarf.TagSharedType:
		return Qual
	}
	return Other
}

func (t dwarfType) Name() string        { return t.e.Name() }
func (t dwarfType) Size() (int64, bool) { return t.e.ByteSize() }
func (t dwarfType) Signed() bool        { return t.e.Signed() }
func (t dwarfType) Elem() Type          { return FromDWARF(t.e) }
func (t dwarfType) Dims() []int64       { return t.e.ArrayDims() }
func (t dwarfType) Node() any           { return t.e }
func (t dwarfType) Members() []Member {
	var out []Member
	for _, m := range t.e.Members() {
		out = append(out, dwarfMember{m})
	}
	return out
}

// dwarfMember is a DW_TAG_member.
type dwarfMember struct{ e dwarfres.Entry }

func (m dwarfMember) Name() string                         { return m.e.Name() }
func (m dwarfMember) Type() Type                           { return FromDWARF(m.e) }
func (m dwarfMember) Offset() (int64, error)               { return m.e.MemberOffset() }
func (m dwarfMember) BitSize() int64                       { return m.e.BitSize() }
func (m dwarfMember) BitField() (dwarfres.BitField, error) { return m.e.BitField() }
func (m dwarfMember) Node() any                            { return m.e }
