package ctype

import (
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
)

// A C type as probe arguments see it, whether it comes from DWARF
// (dwarf.go) or BTF (btf.go): the member walk, the fetch type and the
// type names of -V (walk.go) are written once over it.

// Kind is the kind of a C type.
type Kind uint8

const (
	Other   Kind = iota // what no walk reads through (C++ references, ...)
	Base                // integers, characters, booleans, floating point
	Enum                // enumerations
	Ptr                 // pointers
	Array               // arrays
	Struct              // structures (and forward declarations of them)
	Union               // unions
	Class               // C++ classes, read like structures
	Func                // function types
	Typedef             // typedefs
	Qual                // const, volatile, restrict, shared, BTF type tags
)

// Type is one C type. A nil Type is void.
type Type interface {
	Kind() Kind
	// Name is the type's own name: "int", "file" for struct file, the
	// typedef's; "" for pointers, arrays and what has none.
	Name() string
	// Size is the byte size as DWARF's DW_AT_byte_size gives it: none for
	// arrays and functions (gcc writes none there), nor for void.
	Size() (int64, bool)
	// Signed is perf's die_is_signed_type.
	Signed() bool
	// Elem is what a pointer points to, an array holds (the innermost
	// element of a multi-dimensional one), a typedef or qualifier stands
	// for; nil for void.
	Elem() Type
	// Dims are an array's dimensions, outermost first, 0 for one without
	// a bound (a flexible array).
	Dims() []int64
	// Members are a structure's, union's or class's direct members.
	Members() []Member
	// Node is the debuginfo the type came from (a dwarfres.Entry), for the
	// detail of a message; nil for BTF.
	Node() any
}

// Member is one member of a structure, union or class.
type Member interface {
	Name() string
	Type() Type // nil: void
	// Offset is the member's byte offset in the enclosing object.
	Offset() (int64, error)
	// BitSize is a bitfield's width; 0 for other members.
	BitSize() int64
	// BitField places a bitfield for a b<width>@<shift>/<bits> type.
	BitField() (dwarfres.BitField, error)
	Node() any
}

// Val is where a member walk stands: the value of a variable, parameter,
// member or element, by the name messages give it ("" after an index, as
// perf's convert_variable_fields names the array type there), with its
// declared type and, for a member, the member (bitfields).
type Val struct {
	Name   string
	Type   Type
	Member Member
	Node   any // the DIE the value came from, for -v's detail; nil for BTF
}

// Describe names v for a message.
func (v Val) Describe() string {
	if v.Name == "" {
		return "(unnamed)"
	}
	return v.Name
}

// skipQuals skips qualifiers: perf's __die_get_real_type without typedefs.
func skipQuals(t Type) Type {
	for n := 0; t != nil && t.Kind() == Qual && n < 64; n++ {
		t = t.Elem()
	}
	if t != nil && t.Kind() == Qual {
		return nil
	}
	return t
}

// Real skips qualifiers and typedefs: perf's die_get_real_type.
func Real(t Type) (Type, bool) {
	for n := 0; t != nil && n < 64; n++ {
		if k := t.Kind(); k != Qual && k != Typedef {
			return t, true
		}
		t = t.Elem()
	}
	return nil, false
}

// Aggregate reports the types members are read from. perf 6.1 leaves out
// C++ classes ("this is not a data structure nor a union" for
// this->member); they are read here like structures.
func Aggregate(t Type) bool {
	k := t.Kind()
	return k == Struct || k == Union || k == Class
}

// Name is perf 6.12's die_get_typename for a value of type t: the
// type as written ("struct file*", "char[]", "(function_type)", a
// typedef's name); false for void and what has no name. perf 6.12 fixed
// 6.1's spelling, followed here for every kernel: a pointer to void (or
// to what has no name) is "void*" (6.1: no name, "(unknown_type)"), an
// array "T[]" (6.1: "T*"), an anonymous structure, union or enum
// "struct ", "union ", "enum " (6.1: no name).
func Name(t Type) (string, bool) {
	t = skipQuals(t)
	if t == nil {
		return "", false
	}
	switch t.Kind() {
	case Array, Ptr:
		inner, ok := Name(t.Elem())
		switch {
		case !ok && t.Kind() == Ptr:
			return "void*", true
		case !ok:
			return "", false
		case t.Kind() == Array:
			return inner + "[]", true
		}
		return inner + "*", true
	case Func:
		return "(function_type)", true
	case Union:
		return "union " + t.Name(), true
	case Struct:
		return "struct " + t.Name(), true
	case Enum:
		return "enum " + t.Name(), true
	}
	n := t.Name()
	return n, n != ""
}

// typeLabel names a structure, union or class for a message ("struct"
// alone when it has no name).
func typeLabel(t Type) string {
	n := t.Name()
	switch t.Kind() {
	case Struct:
		n = "struct " + n
	case Union:
		n = "union " + n
	case Class:
		n = "class " + n
	}
	return strings.TrimSpace(n)
}

// maxAnonDepth bounds the unnamed members a member is looked for through.
const maxAnonDepth = 16

// FindMember is perf's die_find_member: the first member of st named
// name, or the first unnamed member whose type (recursively) has it; the
// caller then descends into that unnamed member. perf (die_get_type)
// stops at a qualifier and misses the members of "const struct { ... };"
// (struct vm_fault): qualifiers and typedefs are skipped here.
func FindMember(st Type, name string) (Member, bool) { return findMember(st, name, 0) }

// findMember is FindMember depth unnamed members down.
func findMember(st Type, name string, depth int) (Member, bool) {
	if depth > maxAnonDepth {
		return nil, false
	}
	for _, m := range st.Members() {
		n := m.Name()
		if n == name {
			return m, true
		}
		if n != "" {
			continue
		}
		if tp, ok := Real(m.Type()); ok {
			if _, ok := findMember(tp, name, depth+1); ok {
				return m, true
			}
		}
	}
	return nil, false
}

// memberNames lists the names FindMember can find in st: its named
// members and, through unnamed ones, theirs.
func memberNames(st Type, depth int) []string {
	var names []string
	if depth > maxAnonDepth {
		return nil
	}
	for _, m := range st.Members() {
		if n := m.Name(); n != "" {
			names = append(names, n)
			continue
		}
		if tp, ok := Real(m.Type()); ok {
			names = append(names, memberNames(tp, depth+1)...)
		}
	}
	return names
}
