package dwarfres

import "debug/dwarf"

// Members lists a structure's, union's or class's direct members (its
// DW_TAG_member children), for probegen's C-type walk, which looks
// through unnamed ones itself as FindMember does.
func (e Entry) Members() []Entry {
	var out []Entry
	for _, c := range e.children() {
		if c.Tag() == dwarf.TagMember {
			out = append(out, c)
		}
	}
	return out
}
