package dwarfres

import "debug/dwarf"

// Type naming and member lookup as perf does them, over Entry: the
// library's are probegen's C-type walk; the tests of the decoder keep
// these to check what they decode.

// FindMember is perf's die_find_member, as the tests check the synthetic
// DWARF with it (probegen/internal/ctype's FindMember is the library's): the first member named name, or
// the first unnamed member whose type (recursively) has it; the caller
// then descends into that unnamed member.
func (e Entry) FindMember(name string) (Entry, bool) {
	for _, c := range e.children() {
		if c.Tag() != dwarf.TagMember {
			continue
		}
		n := c.Name()
		if n == name {
			return c, true
		}
		if n == "" {
			// perf (die_get_type) stops at a qualifier and misses the
			// members of "const struct { ... };" (struct vm_fault):
			// qualifiers and typedefs are skipped here.
			if tp, ok := c.RealType(true); ok {
				if _, ok := tp.FindMember(name); ok {
					return c, true
				}
			}
		}
	}
	return Entry{}, false
}

// TypeName is perf's die_get_typename for a variable or member: the type
// as written ("struct file*", "char*", "(function_type)"), "" when unknown.
func (e Entry) TypeName() (string, bool) {
	tp, ok := e.RealType(false)
	if !ok {
		return "", false
	}
	switch tp.Tag() {
	case dwarf.TagArrayType, dwarf.TagPointerType:
		inner, ok := tp.TypeName()
		if !ok {
			return "", false
		}
		return inner + "*", true
	case dwarf.TagSubroutineType:
		return "(function_type)", true
	}
	n := tp.Name()
	if n == "" {
		return "", false
	}
	switch tp.Tag() {
	case dwarf.TagUnionType:
		return "union " + n, true
	case dwarf.TagStructType:
		return "struct " + n, true
	case dwarf.TagEnumerationType:
		return "enum " + n, true
	}
	return n, true
}

// MemberNames lists the names FindMember can find in e: its named members
// and, through unnamed ones (anonymous structs and unions), theirs.
func (e Entry) MemberNames() []string {
	var names []string
	for _, c := range e.children() {
		if c.Tag() != dwarf.TagMember {
			continue
		}
		if n := c.Name(); n != "" {
			names = append(names, n)
			continue
		}
		if tp, ok := c.RealType(true); ok {
			names = append(names, tp.MemberNames()...)
		}
	}
	return names
}
