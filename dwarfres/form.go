package dwarfres

// form is a DW_FORM_* value: how an attribute's value is encoded.
type form uint16

// DWARF forms, from the DWARF 5 standard, section 7.5.6, and the GNU
// extensions for split DWARF and dwz.
const (
	formAddr          form = 0x01
	formBlock2        form = 0x03
	formBlock4        form = 0x04
	formData2         form = 0x05
	formData4         form = 0x06
	formData8         form = 0x07
	formString        form = 0x08
	formBlock         form = 0x09
	formBlock1        form = 0x0a
	formData1         form = 0x0b
	formFlag          form = 0x0c
	formSdata         form = 0x0d
	formStrp          form = 0x0e
	formUdata         form = 0x0f
	formRefAddr       form = 0x10
	formRef1          form = 0x11
	formRef2          form = 0x12
	formRef4          form = 0x13
	formRef8          form = 0x14
	formRefUdata      form = 0x15
	formIndirect      form = 0x16
	formSecOffset     form = 0x17
	formExprloc       form = 0x18
	formFlagPresent   form = 0x19
	formStrx          form = 0x1a
	formAddrx         form = 0x1b
	formRefSup4       form = 0x1c
	formStrpSup       form = 0x1d
	formData16        form = 0x1e
	formLineStrp      form = 0x1f
	formRefSig8       form = 0x20
	formImplicitConst form = 0x21
	formLoclistx      form = 0x22
	formRnglistx      form = 0x23
	formRefSup8       form = 0x24
	formStrx1         form = 0x25
	formStrx2         form = 0x26
	formStrx3         form = 0x27
	formStrx4         form = 0x28
	formAddrx1        form = 0x29
	formAddrx2        form = 0x2a
	formAddrx3        form = 0x2b
	formAddrx4        form = 0x2c
	formGNUAddrIndex  form = 0x1f01
	formGNUStrIndex   form = 0x1f02
	formGNURefAlt     form = 0x1f20
	formGNUStrpAlt    form = 0x1f21
)

// class is what a decoded attribute value is, as debug/dwarf's Class: the
// questions "is this a reference", "is this a constant" are answered here
// once rather than by lists of forms at each use.
type class uint8

const (
	classUnknown    class = iota
	classAddress          // a target address (addrx forms already resolved)
	classBlock            // bytes in attrVal.blk (data16 included)
	classConstant         // an integer in attrVal.v
	classExprloc          // a DWARF expression in attrVal.blk
	classFlag             // 0 or 1 in attrVal.v
	classReference        // a .debug_info offset in attrVal.v
	classForeignRef       // a reference into another file or a type unit
	classString           // an inline string in blk, or an offset or index in v
	classSecOffset        // an offset into a .debug_* section (list pointers)
	classListIndex        // a DW_FORM_loclistx or DW_FORM_rnglistx index
)

// class classifies f; the forms a unit decoder refuses are classUnknown.
func (f form) class() class {
	switch f {
	case formAddr, formAddrx, formAddrx1, formAddrx2, formAddrx3, formAddrx4, formGNUAddrIndex:
		return classAddress
	case formBlock, formBlock1, formBlock2, formBlock4, formData16:
		return classBlock
	case formData1, formData2, formData4, formData8, formSdata, formUdata, formImplicitConst:
		return classConstant
	case formExprloc:
		return classExprloc
	case formFlag, formFlagPresent:
		return classFlag
	case formRef1, formRef2, formRef4, formRef8, formRefUdata, formRefAddr:
		return classReference
	case formRefSig8, formRefSup4, formRefSup8, formGNURefAlt:
		return classForeignRef
	case formString, formStrp, formLineStrp, formStrpSup, formGNUStrpAlt,
		formStrx, formStrx1, formStrx2, formStrx3, formStrx4, formGNUStrIndex:
		return classString
	case formSecOffset:
		return classSecOffset
	case formLoclistx, formRnglistx:
		return classListIndex
	}
	return classUnknown
}

// unitRelative reports whether f's value counts from the unit's start
// (DW_FORM_ref1..ref_udata); decoding turns it into a section offset.
func (f form) unitRelative() bool {
	return f.class() == classReference && f != formRefAddr
}
