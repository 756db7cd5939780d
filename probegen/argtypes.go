package probegen

import (
	"debug/dwarf"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
)

// isAggregate reports the types members are read from. perf 6.1 leaves out
// C++ classes ("this is not a data structure nor a union" for
// this->member); they are read here like structures.
func isAggregate(t dwarf.Tag) bool {
	return t == dwarf.TagStructType || t == dwarf.TagUnionType || t == dwarf.TagClassType
}

// step applies one ->member, .member or [index] to f, as perf's
// convert_variable_fields does, and returns the DIE whose type is now f's.
func (e *argEnv) step(f *fetch, cur dwarfres.Entry, fl field, user bool) (dwarfres.Entry, error) {
	tp, ok := cur.RealType(true)
	if !ok {
		return cur, fmt.Errorf("%s has no type", describeEntry(cur))
	}
	tag := tp.Tag()
	if fl.isIdx {
		if tag != dwarf.TagArrayType && tag != dwarf.TagPointerType {
			return cur, fmt.Errorf("%s is not a pointer nor an array", describeEntry(cur))
		}
		elem, ok := tp.RealType(true)
		if !ok {
			return cur, fmt.Errorf("%s points to void", describeEntry(cur))
		}
		size, ok := elem.ByteSize()
		if !ok {
			return cur, fmt.Errorf("the elements of %s have no size", describeEntry(cur))
		}
		if tag == dwarf.TagPointerType {
			return tp, f.load(size*fl.index, user)
		}
		dims := tp.ArrayDims()
		if n, ok := tp.ArrayLen(); ok && (fl.index < 0 || fl.index >= n) {
			return cur, fmt.Errorf("index %d is out of the bounds of %s (%d elements)", fl.index, describeEntry(cur), n)
		}
		// Each index of a multi-dimensional array steps over a whole row
		// (perf steps by the element size whatever the rank).
		for _, d := range dims[min(1, len(dims)):] {
			size *= d
		}
		return tp, f.member(size*fl.index, user)
	}
	var st dwarfres.Entry
	switch {
	case tag == dwarf.TagPointerType:
		if !fl.arrow {
			return cur, fmt.Errorf("%s is a pointer: use '->%s'", describeEntry(cur), fl.name)
		}
		st, ok = tp.RealType(true)
		if !ok || !isAggregate(st.Tag()) {
			return cur, fmt.Errorf("%s does not point to a structure or union", describeEntry(cur))
		}
	case isAggregate(tag):
		if fl.arrow && cur.Name() != "" {
			return cur, fmt.Errorf("%s is not a pointer: use '.%s'", describeEntry(cur), fl.name)
		}
		st = tp
	default:
		return cur, fmt.Errorf("%s is not a structure, union or pointer to one", describeEntry(cur))
	}
	// Through unnamed members (anonymous structs and unions), as perf's
	// die_find_member finds them, adding each one's offset.
	var path []dwarfres.Entry
	for n := 0; n < 16; n++ {
		m, ok := st.FindMember(fl.name)
		if !ok {
			return cur, &MemberError{Var: describeEntry(cur), Type: typeLabel(st), Member: fl.name,
				Closest: closest(fl.name, st.MemberNames(), 3)}
		}
		path = append(path, m)
		if m.Name() != "" {
			break
		}
		if st, ok = m.RealType(true); !ok {
			return cur, fmt.Errorf("unnamed member of %s has no type", describeEntry(cur))
		}
	}
	var total int64
	for i, m := range path {
		var off int64
		var err error
		if m.BitSize() > 0 && i == len(path)-1 {
			bf, berr := m.BitField()
			if berr != nil {
				return cur, berr
			}
			off = bf.ByteOffset
		} else if off, err = m.MemberOffset(); err != nil {
			return cur, err
		}
		total += off
	}
	last := path[len(path)-1]
	if tag == dwarf.TagPointerType {
		return last, f.load(total, user)
	}
	return last, f.member(total, user)
}

// describeEntry names e for a message; its DIE offset goes in
// SyntaxError.Detail, shown under -v only.
func describeEntry(e dwarfres.Entry) string {
	n := e.Name()
	if n == "" {
		n = "(unnamed)"
	}
	return n
}

func typeLabel(e dwarfres.Entry) string {
	n := e.Name()
	switch e.Tag() {
	case dwarf.TagStructType:
		n = "struct " + n
	case dwarf.TagUnionType:
		n = "union " + n
	case dwarf.TagClassType:
		n = "class " + n
	}
	return strings.TrimSpace(n)
}

// typeOf is perf's convert_variable_type: the fetch type for the DIE cur
// (a variable or member) under cast, adjusting f for strings.
func (e *argEnv) typeOf(f *fetch, cur dwarfres.Entry, cast string, user bool) (string, error) {
	switch cast {
	case "", "string", "ustring", "u", "s", "x":
	default:
		if f.imm && (strings.HasPrefix(cast, "string") || cast == "ustring") {
			return "", errors.New("a constant is not a string")
		}
		return cast, nil
	}
	if w := cur.BitSize(); w > 0 && cast != "string" && cast != "ustring" {
		bf, err := cur.BitField()
		if err != nil {
			return "", err
		}
		if len(f.refs) == 0 {
			return "", fmt.Errorf("bitfield %s is not in memory", cur.Name())
		}
		return fmt.Sprintf("b%d@%d/%d", bf.Width, bf.Shift, bf.Container*8), nil
	}
	tp, ok := cur.RealType(true)
	if !ok {
		return "", fmt.Errorf("%s has no type (void)", describeEntry(cur))
	}
	if cast == "string" || cast == "ustring" {
		if tp.Tag() != dwarf.TagPointerType && tp.Tag() != dwarf.TagArrayType {
			return "", fmt.Errorf("%s is not a pointer nor an array, so not a string", describeEntry(cur))
		}
		elem, ok := tp.RealType(true)
		if !ok || elem.Name() != "char" && elem.Name() != "unsigned char" && elem.Name() != "signed char" {
			return "", fmt.Errorf("%s is not a (unsigned) char pointer or array", describeEntry(cur))
		}
		if tp.Tag() == dwarf.TagPointerType {
			if err := f.load(0, user); err != nil {
				return "", err
			}
		} else if len(f.refs) == 0 || f.addrVal {
			if !(f.sym && f.addrVal) {
				return "", fmt.Errorf("array %s is not in memory", cur.Name())
			}
			if err := f.load(0, user); err != nil {
				return "", err
			}
		}
		return cast, nil
	}
	if isAggregate(tp.Tag()) && cast == "" {
		return "", fmt.Errorf("%s is a %s passed by value; name one of its members (VAR.MEMBER)", describeEntry(cur), typeLabel(tp))
	}
	prefix := "x"
	switch {
	case cast != "":
		prefix = cast
	case tp.Signed():
		prefix = "s"
	}
	size, ok := tp.ByteSize()
	if !ok || size <= 0 {
		return "", nil // perf: no size, the kernel's default type
	}
	bits := size * 8
	if bits > 64 {
		bits = 64
	}
	return prefix + strconv.FormatInt(bits, 10), nil
}
