package dwarfres

import "debug/dwarf"

// DWARF forms and attributes debug/dwarf does not export, or exports under
// other names; values from the DWARF 5 standard, section 7.
const (
	formAddr          = 0x01
	formBlock2        = 0x03
	formBlock4        = 0x04
	formData2         = 0x05
	formData4         = 0x06
	formData8         = 0x07
	formString        = 0x08
	formBlock         = 0x09
	formBlock1        = 0x0a
	formData1         = 0x0b
	formFlag          = 0x0c
	formSdata         = 0x0d
	formStrp          = 0x0e
	formUdata         = 0x0f
	formRefAddr       = 0x10
	formRef1          = 0x11
	formRef2          = 0x12
	formRef4          = 0x13
	formRef8          = 0x14
	formRefUdata      = 0x15
	formIndirect      = 0x16
	formSecOffset     = 0x17
	formExprloc       = 0x18
	formFlagPresent   = 0x19
	formStrx          = 0x1a
	formAddrx         = 0x1b
	formRefSup4       = 0x1c
	formStrpSup       = 0x1d
	formData16        = 0x1e
	formLineStrp      = 0x1f
	formRefSig8       = 0x20
	formImplicitConst = 0x21
	formLoclistx      = 0x22
	formRnglistx      = 0x23
	formRefSup8       = 0x24
	formStrx1         = 0x25
	formStrx2         = 0x26
	formStrx3         = 0x27
	formStrx4         = 0x28
	formAddrx1        = 0x29
	formAddrx2        = 0x2a
	formAddrx3        = 0x2b
	formAddrx4        = 0x2c
	formGNUAddrIndex  = 0x1f01
	formGNUStrIndex   = 0x1f02
	formGNURefAlt     = 0x1f20
	formGNUStrpAlt    = 0x1f21

	atStrOffsetsBase = 0x72
	atAddrBase       = 0x73
	atRnglistsBase   = 0x74
	atLoclistsBase   = 0x8c
	atDataBitOffset  = 0x6b
)

type abbrevAttr struct {
	attr dwarf.Attr
	form uint16
	ic   int64 // DW_FORM_implicit_const value
}

type abbrev struct {
	tag      dwarf.Tag
	children bool
	attrs    []abbrevAttr
}

// abbrevTable is indexed by abbreviation code; codes are dense in practice.
type abbrevTable struct {
	dense []*abbrev
	other map[uint64]*abbrev
}

func (t abbrevTable) get(code uint64) *abbrev {
	if code < uint64(len(t.dense)) {
		return t.dense[code]
	}
	return t.other[code]
}

// abbrevTable parses (once) the abbreviation table at off.
func (f *File) abbrevTable(off uint64) (abbrevTable, error) {
	f.abbrevMu.Lock()
	t, ok := f.abbrevs[off]
	f.abbrevMu.Unlock()
	if ok {
		return t, nil
	}
	sec := f.sec(".debug_abbrev")
	if off >= uint64(len(sec)) {
		return t, &DecodeError{Section: ".debug_abbrev", Offset: off, Msg: "abbreviation table offset out of range"}
	}
	b := &buf{sec: ".debug_abbrev", base: off, data: sec[off:], order: f.Order}
	for {
		code := b.uleb()
		if code == 0 || b.err != nil {
			break
		}
		a := &abbrev{tag: dwarf.Tag(b.uleb()), children: b.u8() != 0}
		for {
			at, fm := b.uleb(), b.uleb()
			if b.err != nil {
				break
			}
			var ic int64
			if fm == formImplicitConst {
				ic = b.sleb()
			}
			if at == 0 && fm == 0 {
				break
			}
			a.attrs = append(a.attrs, abbrevAttr{attr: dwarf.Attr(at), form: uint16(fm), ic: ic})
		}
		if code < 1<<16 {
			for uint64(len(t.dense)) <= code {
				t.dense = append(t.dense, nil)
			}
			t.dense[code] = a
		} else {
			if t.other == nil {
				t.other = map[uint64]*abbrev{}
			}
			t.other[code] = a
		}
	}
	if b.err != nil {
		return abbrevTable{}, b.err
	}
	f.abbrevMu.Lock()
	f.abbrevs[off] = t
	f.abbrevMu.Unlock()
	return t, nil
}
