package dwarfres

import "testing"

// TestFormClass pins the questions callers ask of a form: references
// (only those into this file's .debug_info), constants (not data16), and
// which references count from the unit.
func TestFormClass(t *testing.T) {
	for _, c := range []struct {
		f    form
		want class
		rel  bool
	}{
		{formRef4, classReference, true},
		{formRefUdata, classReference, true},
		{formRefAddr, classReference, false},
		{formRefSig8, classForeignRef, false},
		{formGNURefAlt, classForeignRef, false},
		{formData4, classConstant, false},
		{formImplicitConst, classConstant, false},
		{formData16, classBlock, false},
		{formAddrx2, classAddress, false},
		{formGNUAddrIndex, classAddress, false},
		{formStrx3, classString, false},
		{formSecOffset, classSecOffset, false},
		{formLoclistx, classListIndex, false},
		{formIndirect, classUnknown, false},
	} {
		if got := c.f.class(); got != c.want || c.f.unitRelative() != c.rel {
			t.Errorf("form %#x: class %d, unit-relative %v; want %d, %v", uint16(c.f), got, c.f.unitRelative(), c.want, c.rel)
		}
	}
}
