package ctype

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The walk of a probe argument's C expression over its types (ctype.go),
// the same for DWARF and BTF: perf's convert_variable_fields (stepField)
// and convert_variable_type (fetchType).

// stepField applies one ->member, .member or [index] to f, as perf's
// convert_variable_fields does, and returns where the walk then stands.
// On an error it returns cur, which the message is about.
func stepField(f *fetch, cur cval, fl field, user bool) (cval, error) {
	tp, ok := realType(cur.typ)
	if !ok {
		return cur, fmt.Errorf("%s has no type", cur.describe())
	}
	if fl.isIdx {
		return stepIndex(f, cur, tp, fl, user)
	}
	var st ctype
	switch {
	case tp.kind() == cPtr:
		if !fl.arrow {
			return cur, fmt.Errorf("%s is a pointer: use '->%s'", cur.describe(), fl.name)
		}
		st, ok = realType(tp.elem())
		if !ok || !aggregate(st) {
			return cur, fmt.Errorf("%s does not point to a structure or union", cur.describe())
		}
	case aggregate(tp):
		if fl.arrow && cur.name != "" {
			return cur, fmt.Errorf("%s is not a pointer: use '.%s'", cur.describe(), fl.name)
		}
		st = tp
	default:
		return cur, fmt.Errorf("%s is not a structure, union or pointer to one", cur.describe())
	}
	m, off, err := memberPath(cur, st, fl.name)
	if err != nil {
		return cur, err
	}
	next := cval{name: m.name(), typ: m.typ(), mem: m, node: m.node()}
	if tp.kind() == cPtr {
		return next, f.load(off, user)
	}
	return next, f.member(off, user)
}

// stepIndex is stepField's [index] on tp, cur's pointer or array type. The
// walk then stands on the pointer or array type itself, nameless, whose
// type is the element's (perf keeps the type's DIE there).
func stepIndex(f *fetch, cur cval, tp ctype, fl field, user bool) (cval, error) {
	k := tp.kind()
	if k != cArray && k != cPtr {
		return cur, fmt.Errorf("%s is not a pointer nor an array", cur.describe())
	}
	elem, ok := realType(tp.elem())
	if !ok {
		return cur, fmt.Errorf("%s points to void", cur.describe())
	}
	size, ok := elem.size()
	if !ok {
		return cur, fmt.Errorf("the elements of %s have no size", cur.describe())
	}
	next := cval{name: tp.name(), typ: tp.elem(), node: tp.node()}
	if k == cPtr {
		return next, f.load(size*fl.index, user)
	}
	dims := tp.dims()
	if len(dims) > 0 && dims[0] > 0 && (fl.index < 0 || fl.index >= dims[0]) {
		return cur, fmt.Errorf("index %d is out of the bounds of %s (%d elements)", fl.index, cur.describe(), dims[0])
	}
	// Each index of a multi-dimensional array steps over a whole row
	// (perf steps by the element size whatever the rank).
	for _, d := range dims[min(1, len(dims)):] {
		size *= d
	}
	return next, f.member(size*fl.index, user)
}

// memberPath finds name in st through unnamed members (anonymous
// structures and unions), as perf's die_find_member finds it, and returns
// the member and its byte offset from the start of st: for a bitfield,
// the offset of the unit it is read from.
func memberPath(cur cval, st ctype, name string) (cmember, int64, error) {
	var path []cmember
	for n := 0; n < maxAnonDepth; n++ {
		m, ok := findMember(st, name, 0)
		if !ok {
			return nil, 0, &MemberError{Var: cur.describe(), Type: typeLabel(st), Member: name,
				Closest: closest(name, memberNames(st, 0), 3)}
		}
		path = append(path, m)
		if m.name() != "" {
			break
		}
		if st, ok = realType(m.typ()); !ok {
			return nil, 0, fmt.Errorf("unnamed member of %s has no type", cur.describe())
		}
	}
	var total int64
	for i, m := range path {
		var off int64
		var err error
		if m.bitSize() > 0 && i == len(path)-1 {
			bf, berr := m.bitField()
			if berr != nil {
				return nil, 0, berr
			}
			off = bf.ByteOffset
		} else if off, err = m.offset(); err != nil {
			return nil, 0, err
		}
		total += off
	}
	return path[len(path)-1], total, nil
}

// fetchType is perf's convert_variable_type: the fetch type for cur under
// cast, adjusting f for strings.
func fetchType(f *fetch, cur cval, cast string, user bool) (string, error) {
	switch cast {
	case "", "string", "ustring", "u", "s", "x":
	default:
		if f.imm && (strings.HasPrefix(cast, "string") || cast == "ustring") {
			return "", errors.New("a constant is not a string")
		}
		return cast, nil
	}
	str := cast == "string" || cast == "ustring"
	if cur.mem != nil && cur.mem.bitSize() > 0 && !str {
		bf, err := cur.mem.bitField()
		if err != nil {
			return "", err
		}
		if len(f.refs) == 0 {
			return "", fmt.Errorf("bitfield %s is not in memory", cur.name)
		}
		return fmt.Sprintf("b%d@%d/%d", bf.Width, bf.Shift, bf.Container*8), nil
	}
	tp, ok := realType(cur.typ)
	if !ok {
		return "", fmt.Errorf("%s has no type (void)", cur.describe())
	}
	if str {
		return cast, fetchString(f, cur, tp, user)
	}
	if aggregate(tp) && cast == "" {
		return "", fmt.Errorf("%s is a %s passed by value; name one of its members (VAR.MEMBER)", cur.describe(), typeLabel(tp))
	}
	prefix := "x"
	switch {
	case cast != "":
		prefix = cast
	case tp.signed():
		prefix = "s"
	}
	size, ok := tp.size()
	if !ok || size <= 0 {
		return "", nil // perf: no size, the kernel's default type
	}
	return prefix + strconv.FormatInt(min(size*8, 64), 10), nil
}

// fetchString checks that cur, of type tp, is a char pointer or array and
// makes f read the string it points to or holds. A global array whose
// address is the value (@sym) is read at that address.
func fetchString(f *fetch, cur cval, tp ctype, user bool) error {
	k := tp.kind()
	if k != cPtr && k != cArray {
		return fmt.Errorf("%s is not a pointer nor an array, so not a string", cur.describe())
	}
	elem, ok := realType(tp.elem())
	if !ok || !isCharName(elem.name()) {
		return fmt.Errorf("%s is not a (unsigned) char pointer or array", cur.describe())
	}
	if k == cPtr {
		return f.load(0, user)
	}
	if len(f.refs) > 0 && !f.addrVal {
		return nil
	}
	if !(f.sym && f.addrVal) {
		return fmt.Errorf("array %s is not in memory", cur.name)
	}
	return f.load(0, user)
}

func isCharName(n string) bool {
	return n == "char" || n == "unsigned char" || n == "signed char"
}
