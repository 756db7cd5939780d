package ctype

import (
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
)

// A C type as probe arguments see it, whether it comes from DWARF
// (ctype_dwarf.go) or BTF (ctype_btf.go): the member walk, the fetch type
// and the type names of -V (ctypewalk.go) are written once over it.

// ckind is the kind of a C type.
type ckind uint8

const (
	cOther   ckind = iota // what no walk reads through (C++ references, ...)
	cBase                 // integers, characters, booleans, floating point
	cEnum                 // enumerations
	cPtr                  // pointers
	cArray                // arrays
	cStruct               // structures (and forward declarations of them)
	cUnion                // unions
	cClass                // C++ classes, read like structures
	cFunc                 // function types
	cTypedef              // typedefs
	cQual                 // const, volatile, restrict, shared, BTF type tags
)

// ctype is one C type. A nil ctype is void.
type ctype interface {
	kind() ckind
	// name is the type's own name: "int", "file" for struct file, the
	// typedef's; "" for pointers, arrays and what has none.
	name() string
	// size is the byte size as DWARF's DW_AT_byte_size gives it: none for
	// arrays and functions (gcc writes none there), nor for void.
	size() (int64, bool)
	// signed is perf's die_is_signed_type.
	signed() bool
	// elem is what a pointer points to, an array holds (the innermost
	// element of a multi-dimensional one), a typedef or qualifier stands
	// for; nil for void.
	elem() ctype
	// dims are an array's dimensions, outermost first, 0 for one without
	// a bound (a flexible array).
	dims() []int64
	// members are a structure's, union's or class's direct members.
	members() []cmember
	// node is the debuginfo the type came from (a dwarfres.Entry), for the
	// detail of a message; nil for BTF.
	node() any
}

// cmember is one member of a structure, union or class.
type cmember interface {
	name() string
	typ() ctype // nil: void
	// offset is the member's byte offset in the enclosing object.
	offset() (int64, error)
	// bitSize is a bitfield's width; 0 for other members.
	bitSize() int64
	// bitField places a bitfield for a b<width>@<shift>/<bits> type.
	bitField() (dwarfres.BitField, error)
	node() any
}

// cval is where a member walk stands: the value of a variable, parameter,
// member or element, by the name messages give it ("" after an index, as
// perf's convert_variable_fields names the array type there), with its
// declared type and, for a member, the member (bitfields).
type cval struct {
	name string
	typ  ctype
	mem  cmember
	node any // the DIE the value came from, for -v's detail; nil for BTF
}

// describe names c for a message.
func (c cval) describe() string {
	if c.name == "" {
		return "(unnamed)"
	}
	return c.name
}

// skipQuals skips qualifiers: perf's __die_get_real_type without typedefs.
func skipQuals(t ctype) ctype {
	for n := 0; t != nil && t.kind() == cQual && n < 64; n++ {
		t = t.elem()
	}
	if t != nil && t.kind() == cQual {
		return nil
	}
	return t
}

// realType skips qualifiers and typedefs: perf's die_get_real_type.
func realType(t ctype) (ctype, bool) {
	for n := 0; t != nil && n < 64; n++ {
		if k := t.kind(); k != cQual && k != cTypedef {
			return t, true
		}
		t = t.elem()
	}
	return nil, false
}

// aggregate reports the types members are read from. perf 6.1 leaves out
// C++ classes ("this is not a data structure nor a union" for
// this->member); they are read here like structures.
func aggregate(t ctype) bool {
	k := t.kind()
	return k == cStruct || k == cUnion || k == cClass
}

// typeName is perf 6.12's die_get_typename for a value of type t: the
// type as written ("struct file*", "char[]", "(function_type)", a
// typedef's name); false for void and what has no name. perf 6.12 fixed
// 6.1's spelling, followed here for every kernel: a pointer to void (or
// to what has no name) is "void*" (6.1: no name, "(unknown_type)"), an
// array "T[]" (6.1: "T*"), an anonymous structure, union or enum
// "struct ", "union ", "enum " (6.1: no name).
func typeName(t ctype) (string, bool) {
	t = skipQuals(t)
	if t == nil {
		return "", false
	}
	switch t.kind() {
	case cArray, cPtr:
		inner, ok := typeName(t.elem())
		switch {
		case !ok && t.kind() == cPtr:
			return "void*", true
		case !ok:
			return "", false
		case t.kind() == cArray:
			return inner + "[]", true
		}
		return inner + "*", true
	case cFunc:
		return "(function_type)", true
	case cUnion:
		return "union " + t.name(), true
	case cStruct:
		return "struct " + t.name(), true
	case cEnum:
		return "enum " + t.name(), true
	}
	n := t.name()
	return n, n != ""
}

// typeLabel names a structure, union or class for a message ("struct"
// alone when it has no name).
func typeLabel(t ctype) string {
	n := t.name()
	switch t.kind() {
	case cStruct:
		n = "struct " + n
	case cUnion:
		n = "union " + n
	case cClass:
		n = "class " + n
	}
	return strings.TrimSpace(n)
}

// maxAnonDepth bounds the unnamed members a member is looked for through.
const maxAnonDepth = 16

// findMember is perf's die_find_member: the first member of st named
// name, or the first unnamed member whose type (recursively) has it; the
// caller then descends into that unnamed member. perf (die_get_type)
// stops at a qualifier and misses the members of "const struct { ... };"
// (struct vm_fault): qualifiers and typedefs are skipped here.
func findMember(st ctype, name string, depth int) (cmember, bool) {
	if depth > maxAnonDepth {
		return nil, false
	}
	for _, m := range st.members() {
		n := m.name()
		if n == name {
			return m, true
		}
		if n != "" {
			continue
		}
		if tp, ok := realType(m.typ()); ok {
			if _, ok := findMember(tp, name, depth+1); ok {
				return m, true
			}
		}
	}
	return nil, false
}

// memberNames lists the names findMember can find in st: its named
// members and, through unnamed ones, theirs.
func memberNames(st ctype, depth int) []string {
	var names []string
	if depth > maxAnonDepth {
		return nil
	}
	for _, m := range st.members() {
		if n := m.name(); n != "" {
			names = append(names, n)
			continue
		}
		if tp, ok := realType(m.typ()); ok {
			names = append(names, memberNames(tp, depth+1)...)
		}
	}
	return names
}
