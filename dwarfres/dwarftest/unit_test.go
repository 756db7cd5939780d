package dwarftest

import (
	"debug/dwarf"
	"encoding/binary"
	"testing"
)

// TestUnitReadsBack checks a unit against debug/dwarf's reader: tags,
// names, integer attributes and a resolved reference, in DWARF 4 and 5.
func TestUnitReadsBack(t *testing.T) {
	for _, version := range []int{4, 5} {
		root := D(dwarf.TagCompileUnit, Name("u.c"), Low(0x1000), High(0x10)).With(
			D(dwarf.TagBaseType, Name("int"), A(dwarf.AttrByteSize, FormData1, 4)).As("int"),
			D(dwarf.TagVariable, Name("v"), Type("int"), Flag(dwarf.AttrExternal)),
		)
		info, abbrev := Unit(t, binary.LittleEndian, version, root)
		d, err := dwarf.New(abbrev, nil, nil, info, nil, nil, nil, nil)
		if err != nil {
			t.Fatalf("DWARF %d: %v", version, err)
		}
		r := d.Reader()
		var names []string
		var intOff, typeRef dwarf.Offset
		for {
			e, err := r.Next()
			if err != nil {
				t.Fatalf("DWARF %d: %v", version, err)
			}
			if e == nil {
				break
			}
			if n, ok := e.Val(dwarf.AttrName).(string); ok {
				names = append(names, n)
			}
			if e.Tag == dwarf.TagBaseType {
				intOff = e.Offset
				if sz, _ := e.Val(dwarf.AttrByteSize).(int64); sz != 4 {
					t.Errorf("DWARF %d: byte size %d, want 4", version, sz)
				}
			}
			if o, ok := e.Val(dwarf.AttrType).(dwarf.Offset); ok {
				typeRef = o
			}
		}
		if len(names) != 3 || names[0] != "u.c" || names[1] != "int" || names[2] != "v" {
			t.Errorf("DWARF %d: names %q", version, names)
		}
		if typeRef != intOff || intOff == 0 {
			t.Errorf("DWARF %d: v's type at %#x, int at %#x", version, typeRef, intOff)
		}
	}
}
