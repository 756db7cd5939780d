package ctype

import (
	"fmt"

	"github.com/cilium/ebpf/btf"

	"github.com/dwprobe/dwprobe/dwarfres"
)

// The BTF view of a C type (ctype.go), answering as DWARF's DIEs do: a
// multi-dimensional array is one array with several dimensions (gcc's
// subranges), arrays and functions have no size.

type btfType struct{ t btf.Type }

// FromBTF is the Type of t; nil for void.
func FromBTF(t btf.Type) Type {
	switch t.(type) {
	case nil, *btf.Void:
		return nil
	}
	return btfType{t}
}

// BTFVal is where a member walk starts from: a parameter or the return
// value, of type t, named name in messages.
func BTFVal(name string, t btf.Type) Val {
	return Val{Name: name, Type: FromBTF(t)}
}

// BTFName is perf's type name in -V (Name) for BTF's type t.
func BTFName(t btf.Type) string {
	n, ok := Name(FromBTF(t))
	if !ok {
		return "(unknown_type)"
	}
	return n
}

func (b btfType) Kind() Kind {
	switch u := b.t.(type) {
	case *btf.Int, *btf.Float:
		return Base
	case *btf.Enum:
		return Enum
	case *btf.Pointer:
		return Ptr
	case *btf.Array:
		return Array
	case *btf.Struct:
		return Struct
	case *btf.Union:
		return Union
	case *btf.Fwd:
		// A declaration, as DWARF's DW_AT_declaration: no members.
		if u.Kind == btf.FwdUnion {
			return Union
		}
		return Struct
	case *btf.FuncProto:
		return Func
	case *btf.Typedef:
		return Typedef
	case *btf.Const, *btf.Volatile, *btf.Restrict, *btf.TypeTag:
		return Qual
	}
	return Other
}

func (b btfType) Name() string { return b.t.TypeName() }

func (b btfType) Size() (int64, bool) {
	switch u := b.t.(type) {
	case *btf.Int:
		return int64(u.Size), true
	case *btf.Enum:
		return int64(u.Size), true
	case *btf.Float:
		return int64(u.Size), true
	case *btf.Pointer:
		return 8, true
	case *btf.Struct:
		return int64(u.Size), true
	case *btf.Union:
		return int64(u.Size), true
	}
	return 0, false
}

// Signed is die_is_signed_type for integers; an enumeration is signed when
// BTF says so (kind_flag: one value is negative), where DWARF's enumeration
// has no encoding and reads as unsigned.
func (b btfType) Signed() bool {
	switch u := b.t.(type) {
	case *btf.Int:
		return u.Encoding&btf.Signed != 0
	case *btf.Enum:
		return u.Signed
	}
	return false
}

func (b btfType) Elem() Type {
	switch u := b.t.(type) {
	case *btf.Pointer:
		return FromBTF(u.Target)
	case *btf.Array:
		for {
			in, ok := u.Type.(*btf.Array)
			if !ok {
				return FromBTF(u.Type)
			}
			u = in
		}
	case *btf.Typedef:
		return FromBTF(u.Type)
	case *btf.Const:
		return FromBTF(u.Type)
	case *btf.Volatile:
		return FromBTF(u.Type)
	case *btf.Restrict:
		return FromBTF(u.Type)
	case *btf.TypeTag:
		return FromBTF(u.Type)
	}
	return nil
}

func (b btfType) Dims() []int64 {
	var out []int64
	for u, ok := b.t.(*btf.Array); ok; u, ok = u.Type.(*btf.Array) {
		out = append(out, int64(u.Nelems))
	}
	return out
}

func (b btfType) Members() []Member {
	var ms []btf.Member
	switch u := b.t.(type) {
	case *btf.Struct:
		ms = u.Members
	case *btf.Union:
		ms = u.Members
	}
	out := make([]Member, len(ms))
	for i, m := range ms {
		out[i] = btfMember{m}
	}
	return out
}

func (b btfType) Node() any { return nil }

// btfMember is a member of a BTF structure or union.
type btfMember struct{ m btf.Member }

func (m btfMember) Name() string           { return m.m.Name }
func (m btfMember) Type() Type             { return FromBTF(m.m.Type) }
func (m btfMember) Offset() (int64, error) { return int64(m.m.Offset / 8), nil }
func (m btfMember) BitSize() int64         { return int64(m.m.BitfieldSize) }
func (m btfMember) Node() any              { return nil }

// BitField places the bitfield in the unit of its type's size, aligned,
// that holds its first bit, as dwarfres.Entry.BitField does from
// DW_AT_data_bit_offset (the machines BTF is read for, x86-64 and arm64,
// are little-endian).
func (m btfMember) BitField() (dwarfres.BitField, error) {
	w := int64(m.m.BitfieldSize)
	tp, _ := Real(m.Type())
	var size int64
	ok := false
	if tp != nil {
		size, ok = tp.Size()
	}
	if !ok || size <= 0 {
		return dwarfres.BitField{}, fmt.Errorf("bitfield %s has no type size", m.m.Name)
	}
	bits := size * 8
	off := int64(m.m.Offset)
	unit := off / bits * size
	shift := off - unit*8
	if shift+w > bits {
		return dwarfres.BitField{}, fmt.Errorf("bitfield %s straddles a %d-byte unit", m.m.Name, size)
	}
	return dwarfres.BitField{Width: w, Shift: shift, Container: size, ByteOffset: unit}, nil
}
