package ctype

import (
	"fmt"
	"strconv"
	"strings"
)

// The walk of a probe argument's C expression over its types (ctype.go),
// the same for DWARF and BTF: perf's convert_variable_fields (Select,
// Index) and convert_variable_type (FetchType, Chars). The walk says how
// far to move and whether through a pointer; the caller's fetcharg does
// the moving.

// A Step is one ->member, .member or [index] applied to a value: where
// the walk then stands, and how its fetcharg gets there.
type Step struct {
	To Val
	// Off is the byte offset moved by: from the object the value lives
	// in (a member, an element of an array), or from the address the
	// value holds when Load.
	Off int64
	// Load: the value is a pointer, followed (a load at the value plus
	// Off); otherwise the walk moves within the object the value lives in.
	Load bool
}

// Select applies ->name (arrow) or .name to v, as perf's
// convert_variable_fields does. A member of an unnamed member
// (anonymous structures and unions) is found through it. An error is
// about v; a missing member is a *MemberError.
func (v Val) Select(name string, arrow bool) (Step, error) {
	tp, ok := Real(v.Type)
	if !ok {
		return Step{}, fmt.Errorf("%s has no type", v.Describe())
	}
	var st Type
	switch {
	case tp.Kind() == Ptr:
		if !arrow {
			return Step{}, fmt.Errorf("%s is a pointer: use '->%s'", v.Describe(), name)
		}
		st, ok = Real(tp.Elem())
		if !ok || !Aggregate(st) {
			return Step{}, fmt.Errorf("%s does not point to a structure or union", v.Describe())
		}
	case Aggregate(tp):
		if arrow && v.Name != "" {
			return Step{}, fmt.Errorf("%s is not a pointer: use '.%s'", v.Describe(), name)
		}
		st = tp
	default:
		return Step{}, fmt.Errorf("%s is not a structure, union or pointer to one", v.Describe())
	}
	m, off, err := memberPath(v, st, name)
	if err != nil {
		return Step{}, err
	}
	next := Val{Name: m.Name(), Type: m.Type(), Member: m, Node: m.Node()}
	return Step{To: next, Off: off, Load: tp.Kind() == Ptr}, nil
}

// Index applies [i] to v, a pointer or array. The walk then stands on
// the pointer or array type itself, nameless, whose type is the
// element's (perf keeps the type's DIE there). An index out of an
// array's bound is refused.
func (v Val) Index(i int64) (Step, error) {
	tp, ok := Real(v.Type)
	if !ok {
		return Step{}, fmt.Errorf("%s has no type", v.Describe())
	}
	k := tp.Kind()
	if k != Array && k != Ptr {
		return Step{}, fmt.Errorf("%s is not a pointer nor an array", v.Describe())
	}
	elem, ok := Real(tp.Elem())
	if !ok {
		return Step{}, fmt.Errorf("%s points to void", v.Describe())
	}
	size, ok := elem.Size()
	if !ok {
		return Step{}, fmt.Errorf("the elements of %s have no size", v.Describe())
	}
	next := Val{Name: tp.Name(), Type: tp.Elem(), Node: tp.Node()}
	if k == Ptr {
		return Step{To: next, Off: size * i, Load: true}, nil
	}
	dims := tp.Dims()
	if len(dims) > 0 && dims[0] > 0 && (i < 0 || i >= dims[0]) {
		return Step{}, fmt.Errorf("index %d is out of the bounds of %s (%d elements)", i, v.Describe(), dims[0])
	}
	// Each index of a multi-dimensional array steps over a whole row
	// (perf steps by the element size whatever the rank).
	for _, d := range dims[min(1, len(dims)):] {
		size *= d
	}
	return Step{To: next, Off: size * i}, nil
}

// memberPath finds name in st through unnamed members (anonymous
// structures and unions), as perf's die_find_member finds it, and returns
// the member and its byte offset from the start of st: for a bitfield,
// the offset of the unit it is read from.
func memberPath(cur Val, st Type, name string) (Member, int64, error) {
	var path []Member
	for n := 0; n < maxAnonDepth; n++ {
		m, ok := FindMember(st, name)
		if !ok {
			return nil, 0, &MemberError{Var: cur.Describe(), Type: typeLabel(st), Member: name,
				Names: memberNames(st, 0)}
		}
		path = append(path, m)
		if m.Name() != "" {
			break
		}
		if st, ok = Real(m.Type()); !ok {
			return nil, 0, fmt.Errorf("unnamed member of %s has no type", cur.Describe())
		}
	}
	var total int64
	for i, m := range path {
		var off int64
		var err error
		if m.BitSize() > 0 && i == len(path)-1 {
			bf, berr := m.BitField()
			if berr != nil {
				return nil, 0, berr
			}
			off = bf.ByteOffset
		} else if off, err = m.Offset(); err != nil {
			return nil, 0, err
		}
		total += off
	}
	return path[len(path)-1], total, nil
}

// MemberOffset is the offset of the member path chain (a.b.c) in st,
// named sname in messages ("struct sname"): container_of's. A missing
// member is a *MemberError.
func MemberOffset(st Type, sname, chain string) (int64, error) {
	cur := Val{Name: "struct " + sname, Type: st}
	var total int64
	for _, name := range strings.Split(chain, ".") {
		t, ok := Real(cur.Type)
		if !ok || !Aggregate(t) {
			return 0, fmt.Errorf("%s is not a structure or union", cur.Describe())
		}
		mem, off, err := memberPath(cur, t, name)
		if err != nil {
			return 0, err
		}
		total += off
		cur = Val{Name: mem.Name(), Type: mem.Type(), Member: mem}
	}
	return total, nil
}

// FetchType is perf's convert_variable_type for v read whole under
// cast ("", or perf's signedness cast "u", "s", "x"): the fetch type
// its type's size and sign give, or "" where its type has no size (the
// kernel's default). A structure or union passed by value is refused
// without a cast. Bitfields and strings are the caller's: see Member
// and Chars.
func (v Val) FetchType(cast string) (string, error) {
	tp, ok := Real(v.Type)
	if !ok {
		return "", fmt.Errorf("%s has no type (void)", v.Describe())
	}
	if Aggregate(tp) && cast == "" {
		return "", fmt.Errorf("%s is a %s passed by value; name one of its members (VAR.MEMBER)", v.Describe(), typeLabel(tp))
	}
	prefix := "x"
	switch {
	case cast != "":
		prefix = cast
	case tp.Signed():
		prefix = "s"
	}
	size, ok := tp.Size()
	if !ok || size <= 0 {
		return "", nil // perf: no size, the kernel's default type
	}
	return prefix + strconv.FormatInt(min(size*8, 64), 10), nil
}

// KernelFetchType is the fetch type the kernel gives a value of type t it types
// through BTF (fetch_type_from_btf_type): an enumeration s32 (s64 for an
// 8-byte one), a pointer x64, an integer uN or sN by its size and sign;
// "" (the default, x64) for anything else.
func KernelFetchType(t Type) string {
	t, ok := Real(t)
	if !ok {
		return ""
	}
	size, _ := t.Size()
	switch t.Kind() {
	case Enum:
		if size == 8 {
			return "s64"
		}
		return "s32"
	case Ptr:
		return "x64"
	case Base:
		if n := t.Name(); strings.Contains(n, "float") || strings.Contains(n, "double") || strings.Contains(n, "_Complex") {
			return ""
		}
		switch size {
		case 1, 2, 4, 8:
			if t.Signed() {
				return "s" + strconv.Itoa(int(8*size))
			}
			return "u" + strconv.Itoa(int(8*size))
		}
	}
	return ""
}

// Chars checks that v can be read as a string, a (signed or unsigned)
// char pointer or array, and reports which: array is true for an array
// (the string is where v lives), false for a pointer (the string is
// where v points).
func (v Val) Chars() (array bool, err error) {
	tp, ok := Real(v.Type)
	if !ok {
		return false, fmt.Errorf("%s has no type (void)", v.Describe())
	}
	k := tp.Kind()
	if k != Ptr && k != Array {
		return false, fmt.Errorf("%s is not a pointer nor an array, so not a string", v.Describe())
	}
	elem, ok := Real(tp.Elem())
	if !ok || !isCharName(elem.Name()) {
		return false, fmt.Errorf("%s is not a (unsigned) char pointer or array", v.Describe())
	}
	return k == Array, nil
}

func isCharName(n string) bool {
	return n == "char" || n == "unsigned char" || n == "signed char"
}
