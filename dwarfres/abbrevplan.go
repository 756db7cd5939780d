package dwarfres

import "debug/dwarf"

// An abbreviation's plan decodes the attributes die and rootAttrs keep and
// steps over the rest without decoding them: most of a DIE's bytes are
// attributes probe resolution reads only on demand (DW_AT_type,
// DW_AT_location, DW_AT_decl_column, DW_AT_external...), and a run of
// fixed-size ones is one step. Decoding the units of a probe with many
// points (kmalloc's 844) is most of its time.

// planOp is one step of a plan.
type planOp struct {
	kind planKind
	attr uint16 // opKeep: the attribute's index in abbrev.attrs
	// opSkip: the bytes to step over, fixed plus offs offset-sized and
	// addrs address-sized values; opSkipForm: how the value's size is
	// coded.
	fixed       uint32
	offs, addrs uint16
	vsize       varSize
}

type planKind uint8

const (
	opKeep planKind = iota
	opSkip
	opSkipForm
)

// kept reports whether reader.store keeps attribute at in a die or in the
// root's attributes (TestPlanKeepsWhatStoreKeeps holds the two together).
func kept(at dwarf.Attr) bool {
	switch at {
	case dwarf.AttrName, dwarf.AttrCompDir, dwarf.AttrStmtList, dwarf.AttrAbstractOrigin, dwarf.AttrSpecification,
		dwarf.AttrLowpc, dwarf.AttrHighpc, dwarf.AttrEntrypc, dwarf.AttrRanges, dwarf.AttrInline,
		dwarf.AttrDeclaration, dwarf.AttrDeclFile, dwarf.AttrDeclLine, dwarf.AttrCallFile,
		dwarf.AttrCallLine, dwarf.AttrSibling, dwarf.AttrLanguage,
		atStrOffsetsBase, atAddrBase, atRnglistsBase, atLoclistsBase:
		return true
	}
	return false
}

// appendPlan appends the plan for attrs to plan; ok is false when a form
// needs the full decoder to be read at all (DW_FORM_indirect, or one it
// does not know, whose error the full decoder reports): the abbreviation
// has no plan, and plan is left as it was.
func appendPlan(plan []planOp, attrs []abbrevAttr) (_ []planOp, ok bool) {
	start := len(plan)
	for i, aa := range attrs {
		if kept(aa.attr) {
			plan = append(plan, planOp{kind: opKeep, attr: uint16(i)})
			continue
		}
		fixed, offs, addrs, ok := formSize(aa.form)
		vs := formVarSize(aa.form)
		switch {
		case !ok && vs == varUnknown:
			return plan[:start], false
		case !ok:
			plan = append(plan, planOp{kind: opSkipForm, vsize: vs})
		case len(plan) > start && plan[len(plan)-1].kind == opSkip:
			last := &plan[len(plan)-1]
			last.fixed += fixed
			last.offs += offs
			last.addrs += addrs
		default:
			plan = append(plan, planOp{kind: opSkip, fixed: fixed, offs: offs, addrs: addrs})
		}
	}
	return plan, true
}

// formSize is the size of a value of form fm, when it does not depend on
// the value: fixed bytes plus offs offset-sized and addrs address-sized
// values; ok is false for the forms of variable size.
func formSize(fm form) (fixed uint32, offs, addrs uint16, ok bool) {
	switch fm {
	case formFlagPresent, formImplicitConst:
		return 0, 0, 0, true
	case formData1, formRef1, formFlag, formStrx1, formAddrx1:
		return 1, 0, 0, true
	case formData2, formRef2, formStrx2, formAddrx2:
		return 2, 0, 0, true
	case formStrx3, formAddrx3:
		return 3, 0, 0, true
	case formData4, formRef4, formRefSup4, formStrx4, formAddrx4:
		return 4, 0, 0, true
	case formData8, formRef8, formRefSig8, formRefSup8:
		return 8, 0, 0, true
	case formData16:
		return 16, 0, 0, true
	case formStrp, formLineStrp, formSecOffset, formStrpSup, formGNUStrpAlt, formGNURefAlt:
		return 0, 1, 0, true
	case formAddr:
		return 0, 0, 1, true
	}
	return 0, 0, 0, false
}

// varSize is how the size of a variable-size form's value is coded.
type varSize uint8

const (
	varUnknown   varSize = iota // not a form a plan steps over
	varULEB                     // the value is a uleb128 (or sleb128)
	varBlockULEB                // a uleb128 length, then that many bytes
	varBlock1                   // a 1-byte length, then the bytes
	varBlock2
	varBlock4
	varCstr    // a NUL-terminated string
	varRefAddr // address-sized in DWARF 2, offset-sized after
)

// formVarSize says how fm's value size is coded, for the forms formSize
// does not size.
func formVarSize(fm form) varSize {
	switch fm {
	case formSdata, formUdata, formRefUdata, formStrx, formGNUStrIndex, formLoclistx, formRnglistx,
		formAddrx, formGNUAddrIndex:
		return varULEB
	case formBlock, formExprloc:
		return varBlockULEB
	case formBlock1:
		return varBlock1
	case formBlock2:
		return varBlock2
	case formBlock4:
		return varBlock4
	case formString:
		return varCstr
	case formRefAddr:
		return varRefAddr
	}
	return varUnknown
}

// runPlan reads d's attributes by a's plan.
func (r *reader) runPlan(d *die, a *abbrev) {
	b := &r.b
	for i := range a.plan {
		op := &a.plan[i]
		switch op.kind {
		case opKeep:
			r.attr(d, &a.attrs[op.attr])
		case opSkip:
			b.skip(int(op.fixed) + int(op.offs)*r.u.offSize + int(op.addrs)*r.u.addrSize)
		case opSkipForm:
			r.skipVar(op.vsize)
		}
	}
}

// skipVar steps over a value whose size is coded as vs says.
func (r *reader) skipVar(vs varSize) {
	b := &r.b
	switch vs {
	case varULEB:
		b.uleb()
	case varBlockULEB:
		r.block(b.uleb())
	case varBlock1:
		r.block(uint64(b.u8()))
	case varBlock2:
		r.block(uint64(b.u16()))
	case varBlock4:
		r.block(uint64(b.u32()))
	case varCstr:
		b.skipCstr()
	case varRefAddr:
		if r.u.version <= 2 {
			b.skip(r.u.addrSize)
		} else {
			b.skip(r.u.offSize)
		}
	}
}
