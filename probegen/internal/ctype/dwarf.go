package ctype

import (
	"debug/dwarf"

	"github.com/dwprobe/dwprobe/dwarfres"
)

// The DWARF view of a C type (ctype.go): a type DIE.

type dwarfType struct{ e dwarfres.Entry }

// dwarfTypeOf is the declared type of the DIE e (a variable, member or
// type); nil for void.
func dwarfTypeOf(e dwarfres.Entry) ctype {
	t, ok := e.Type()
	if !ok {
		return nil
	}
	return dwarfType{t}
}

// dwarfVal is where a member walk starts from the variable v.
func dwarfVal(v dwarfres.Entry) cval {
	return cval{name: v.Name(), typ: dwarfTypeOf(v), node: v}
}

func (t dwarfType) kind() ckind {
	switch t.e.Tag() {
	case dwarf.TagBaseType:
		return cBase
	case dwarf.TagEnumerationType:
		return cEnum
	case dwarf.TagPointerType:
		return cPtr
	case dwarf.TagArrayType:
		return cArray
	case dwarf.TagStructType:
		return cStruct
	case dwarf.TagUnionType:
		return cUnion
	case dwarf.TagClassType:
		return cClass
	case dwarf.TagSubroutineType:
		return cFunc
	case dwarf.TagTypedef:
		return cTypedef
	case dwarf.TagConstType, dwarf.TagVolatileType, dwarf.TagRestrictType, dwarf.TagSharedType:
		return cQual
	}
	return cOther
}

func (t dwarfType) name() string        { return t.e.Name() }
func (t dwarfType) size() (int64, bool) { return t.e.ByteSize() }
func (t dwarfType) signed() bool        { return t.e.Signed() }
func (t dwarfType) elem() ctype         { return dwarfTypeOf(t.e) }
func (t dwarfType) dims() []int64       { return t.e.ArrayDims() }
func (t dwarfType) node() any           { return t.e }
func (t dwarfType) members() []cmember {
	var out []cmember
	for _, m := range t.e.Members() {
		out = append(out, dwarfMember{m})
	}
	return out
}

// dwarfMember is a DW_TAG_member.
type dwarfMember struct{ e dwarfres.Entry }

func (m dwarfMember) name() string                         { return m.e.Name() }
func (m dwarfMember) typ() ctype                           { return dwarfTypeOf(m.e) }
func (m dwarfMember) offset() (int64, error)               { return m.e.MemberOffset() }
func (m dwarfMember) bitSize() int64                       { return m.e.BitSize() }
func (m dwarfMember) bitField() (dwarfres.BitField, error) { return m.e.BitField() }
func (m dwarfMember) node() any                            { return m.e }
