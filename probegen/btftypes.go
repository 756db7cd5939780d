package probegen

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cilium/ebpf/btf"
)

// The BTF twins of argtypes.go's step and typeOf: the same fetch and the
// same fetch types for the same C types, from BTF's types instead of DIEs.

// btfTypeName is perf's type name in -V (dwarfres.Entry.TypeName): the
// typedef's name, not what it stands for; "T*" for pointers and arrays;
// false for void and what has no name.
func btfTypeName(t btf.Type) string {
	n, ok := btfTypeNameOK(t)
	if !ok {
		return "(unknown_type)"
	}
	return n
}

func btfTypeNameOK(t btf.Type) (string, bool) {
	switch u := btf.QualifiedType(t).(type) {
	case *btf.Pointer:
		inner, ok := btfTypeNameOK(u.Target)
		return inner + "*", ok
	case *btf.Array:
		inner, ok := btfTypeNameOK(u.Type)
		return inner + "*", ok
	case *btf.FuncProto:
		return "(function_type)", true
	case *btf.Struct:
		return "struct " + u.Name, u.Name != ""
	case *btf.Union:
		return "union " + u.Name, u.Name != ""
	case *btf.Enum:
		return "enum " + u.Name, u.Name != ""
	case *btf.Fwd:
		return u.Kind.String() + " " + u.Name, u.Name != ""
	case *btf.Void, nil:
		return "", false
	default:
		return u.TypeName(), u.TypeName() != ""
	}
}

// btfLabel names a structure or union type for a message, as typeLabel
// does ("struct" alone when it has no name).
func btfLabel(t btf.Type) string {
	switch u := btf.UnderlyingType(t).(type) {
	case *btf.Struct:
		return strings.TrimSpace("struct " + u.Name)
	case *btf.Union:
		return strings.TrimSpace("union " + u.Name)
	}
	return btfTypeName(t)
}

// btfSize is the byte size DWARF would give the type: none for arrays and
// functions (gcc writes no DW_AT_byte_size there) and for void.
func btfSize(t btf.Type) (int64, bool) {
	switch u := btf.UnderlyingType(t).(type) {
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

// btfSigned is perf's die_is_signed_type: signed integers and chars, and
// enums whose underlying type is signed (one value is negative: gcc's
// DW_AT_type of the enumeration, BTF's kind_flag).
func btfSigned(t btf.Type) bool {
	switch u := btf.UnderlyingType(t).(type) {
	case *btf.Int:
		return u.Encoding&btf.Signed != 0
	case *btf.Enum:
		return u.Signed
	}
	return false
}

func btfAggregate(t btf.Type) bool {
	switch btf.UnderlyingType(t).(type) {
	case *btf.Struct, *btf.Union:
		return true
	}
	return false
}

// btfCur is where a member walk stands: the type of the value, the name
// it goes by in messages, and the bitfield it is, if one.
type btfCur struct {
	name   string
	typ    btf.Type
	bitOff btf.Bits // bits from the start of the enclosing object
	bits   btf.Bits // bitfield width; 0 for a whole member
}

// btfStep is step for BTF: one ->member, .member or [index] applied to f.
func btfStep(f *fetch, cur btfCur, fl field, user bool) (btfCur, error) {
	tp := btf.UnderlyingType(cur.typ)
	if fl.isIdx {
		var elem btf.Type
		switch u := tp.(type) {
		case *btf.Pointer:
			elem = u.Target
		case *btf.Array:
			elem = u.Type
			if fl.index < 0 || fl.index >= int64(u.Nelems) && u.Nelems > 0 {
				return cur, fmt.Errorf("index %d is out of the bounds of %s (%d elements)", fl.index, cur.name, u.Nelems)
			}
		default:
			return cur, fmt.Errorf("%s is not a pointer nor an array", cur.name)
		}
		size, err := btf.Sizeof(elem)
		if err != nil || size <= 0 {
			return cur, fmt.Errorf("the elements of %s have no size", cur.name)
		}
		next := btfCur{name: cur.name, typ: elem}
		if _, ptr := tp.(*btf.Pointer); ptr {
			return next, f.load(int64(size)*fl.index, user)
		}
		return next, f.member(int64(size)*fl.index, user)
	}
	var st btf.Type
	_, ptr := tp.(*btf.Pointer)
	switch {
	case ptr:
		if !fl.arrow {
			return cur, fmt.Errorf("%s is a pointer: use '->%s'", cur.name, fl.name)
		}
		st = btf.UnderlyingType(tp.(*btf.Pointer).Target)
		if !btfAggregate(st) {
			return cur, fmt.Errorf("%s does not point to a structure or union", cur.name)
		}
	case btfAggregate(tp):
		if fl.arrow && cur.name != "" {
			return cur, fmt.Errorf("%s is not a pointer: use '.%s'", cur.name, fl.name)
		}
		st = tp
	default:
		return cur, fmt.Errorf("%s is not a structure, union or pointer to one", cur.name)
	}
	m, off, ok := btfFindMember(st, fl.name, 0)
	if !ok {
		return cur, &MemberError{Var: cur.name, Type: btfLabel(st), Member: fl.name,
			Closest: closest(fl.name, btfMemberNames(st), 3)}
	}
	next := btfCur{name: m.Name, typ: m.Type, bits: m.BitfieldSize}
	byteOff := int64(off / 8)
	if m.BitfieldSize > 0 {
		// The bitfield's container is its type's size, aligned, as
		// dwarfres.Entry.BitField picks it from DW_AT_data_bit_offset.
		size, ok := btfSize(m.Type)
		if !ok || size <= 0 {
			return cur, fmt.Errorf("bitfield %s has no type size", m.Name)
		}
		unit := int64(off) / (size * 8) * size
		next.bitOff = off - btf.Bits(unit*8)
		byteOff = unit
	}
	if ptr {
		return next, f.load(byteOff, user)
	}
	return next, f.member(byteOff, user)
}

// btfMembers is the members of a structure or union.
func btfMembers(st btf.Type) []btf.Member {
	switch u := st.(type) {
	case *btf.Struct:
		return u.Members
	case *btf.Union:
		return u.Members
	}
	return nil
}

// btfFindMember finds name in st or, as perf's die_find_member does, in
// its unnamed members (anonymous structures and unions), adding their
// offsets; off is in bits.
func btfFindMember(st btf.Type, name string, depth int) (btf.Member, btf.Bits, bool) {
	if depth > 16 {
		return btf.Member{}, 0, false
	}
	for _, m := range btfMembers(st) {
		if m.Name == name {
			return m, m.Offset, true
		}
	}
	for _, m := range btfMembers(st) {
		if m.Name != "" {
			continue
		}
		if in, off, ok := btfFindMember(btf.UnderlyingType(m.Type), name, depth+1); ok {
			return in, m.Offset + off, true
		}
	}
	return btf.Member{}, 0, false
}

func btfMemberNames(st btf.Type) []string {
	var out []string
	for _, m := range btfMembers(st) {
		if m.Name != "" {
			out = append(out, m.Name)
		}
	}
	return out
}

// btfTypeOf is typeOf for BTF: the fetch type of cur under cast,
// adjusting f for strings.
func btfTypeOf(f *fetch, cur btfCur, cast string, user bool) (string, error) {
	switch cast {
	case "", "string", "ustring", "u", "s", "x":
	default:
		if f.imm && (len(cast) >= 6 && cast[:6] == "string" || cast == "ustring") {
			return "", errors.New("a constant is not a string")
		}
		return cast, nil
	}
	if cur.bits > 0 && cast != "string" && cast != "ustring" {
		size, _ := btfSize(cur.typ)
		if len(f.refs) == 0 {
			return "", fmt.Errorf("bitfield %s is not in memory", cur.name)
		}
		return fmt.Sprintf("b%d@%d/%d", cur.bits, cur.bitOff, size*8), nil
	}
	tp := btf.UnderlyingType(cur.typ)
	if _, void := tp.(*btf.Void); void {
		return "", fmt.Errorf("%s has no type (void)", cur.name)
	}
	if cast == "string" || cast == "ustring" {
		return cast, btfString(f, cur, tp, user)
	}
	if btfAggregate(tp) && cast == "" {
		return "", fmt.Errorf("%s is a %s passed by value; name one of its members (VAR.MEMBER)", cur.name, btfLabel(tp))
	}
	prefix := "x"
	switch {
	case cast != "":
		prefix = cast
	case btfSigned(tp):
		prefix = "s"
	}
	size, ok := btfSize(tp)
	if !ok || size <= 0 {
		return "", nil // perf: no size, the kernel's default type
	}
	return prefix + strconv.FormatInt(min(size*8, 64), 10), nil
}

// btfString checks that cur is a char pointer or array and makes f read
// the string it points to.
func btfString(f *fetch, cur btfCur, tp btf.Type, user bool) error {
	var elem btf.Type
	arr := false
	switch u := tp.(type) {
	case *btf.Pointer:
		elem = u.Target
	case *btf.Array:
		elem, arr = u.Type, true
	default:
		return fmt.Errorf("%s is not a pointer nor an array, so not a string", cur.name)
	}
	i, ok := btf.UnderlyingType(elem).(*btf.Int)
	if !ok || i.Name != "char" && i.Name != "unsigned char" && i.Name != "signed char" {
		return fmt.Errorf("%s is not a (unsigned) char pointer or array", cur.name)
	}
	if !arr {
		return f.load(0, user)
	}
	if len(f.refs) == 0 {
		return fmt.Errorf("array %s is not in memory", cur.name)
	}
	return nil
}
