package dwarfres

import (
	"encoding/binary"
	"fmt"
)

// opcode is a DW_OP_* operation.
type opcode uint8

// The operations evaluated here, from the DWARF 5 standard, section 7.7.1,
// and the GNU extensions GCC emits before DWARF 5.
const (
	opAddr          opcode = 0x03
	opDeref         opcode = 0x06
	opConst1u       opcode = 0x08
	opConst1s       opcode = 0x09
	opConst2u       opcode = 0x0a
	opConst2s       opcode = 0x0b
	opConst4u       opcode = 0x0c
	opConst4s       opcode = 0x0d
	opConst8u       opcode = 0x0e
	opConst8s       opcode = 0x0f
	opConstu        opcode = 0x10
	opConsts        opcode = 0x11
	opPlusUconst    opcode = 0x23
	opLit0          opcode = 0x30
	opReg0          opcode = 0x50
	opBreg0         opcode = 0x70
	opRegx          opcode = 0x90
	opFbreg         opcode = 0x91
	opBregx         opcode = 0x92
	opPiece         opcode = 0x93
	opCallFrameCFA  opcode = 0x9c
	opImplicitValue opcode = 0x9e
	opStackValue    opcode = 0x9f
	opAddrx         opcode = 0xa1
	opEntryValue    opcode = 0xa3
	opGNUEntryValue opcode = 0xf3
	opGNUAddrIndex  opcode = 0xfb
)

// opSpec is one operation: its opcode, name and, for those a probe can
// use, the function evaluating it (nil for the others).
type opSpec struct {
	op   opcode
	name string
	eval func(e *evaluator, o opcode) error
}

// opTable is opRows indexed by opcode. It is filled by init: the
// evaluation functions name operations through it.
var opTable [256]opSpec

func init() { opTable = buildOpTable() }

func buildOpTable() (t [256]opSpec) {
	for _, r := range opRows {
		t[r.op] = r
	}
	for n := opcode(0); n < 32; n++ {
		t[opLit0+n] = opSpec{opLit0 + n, fmt.Sprintf("DW_OP_lit%d", n), evalLit}
		t[opReg0+n] = opSpec{opReg0 + n, fmt.Sprintf("DW_OP_reg%d", n), evalReg}
		t[opBreg0+n] = opSpec{opBreg0 + n, fmt.Sprintf("DW_OP_breg%d", n), evalBreg}
	}
	return t
}

// opRows is the operation table: every operation's name (for errors) and,
// for those a probe can use, its evaluation, as delve's opcodes.table.
// DW_OP_lit*, reg* and breg* are added as ranges of 32 by buildOpTable.
var opRows = []opSpec{
	{opAddr, "DW_OP_addr", evalAddr},
	{opDeref, "DW_OP_deref", evalDeref},
	{opConst1u, "DW_OP_const1u", evalConst(func(b *buf) int64 { return int64(b.u8()) })},
	{opConst1s, "DW_OP_const1s", evalConst(func(b *buf) int64 { return int64(int8(b.u8())) })},
	{opConst2u, "DW_OP_const2u", evalConst(func(b *buf) int64 { return int64(b.u16()) })},
	{opConst2s, "DW_OP_const2s", evalConst(func(b *buf) int64 { return int64(int16(b.u16())) })},
	{opConst4u, "DW_OP_const4u", evalConst(func(b *buf) int64 { return int64(b.u32()) })},
	{opConst4s, "DW_OP_const4s", evalConst(func(b *buf) int64 { return int64(int32(b.u32())) })},
	{opConst8u, "DW_OP_const8u", evalConst(func(b *buf) int64 { return int64(b.u64()) })},
	{opConst8s, "DW_OP_const8s", evalConst(func(b *buf) int64 { return int64(b.u64()) })},
	{opConstu, "DW_OP_constu", evalConst(func(b *buf) int64 { return int64(b.uleb()) })},
	{opConsts, "DW_OP_consts", evalConst(func(b *buf) int64 { return b.sleb() })},
	{0x12, "DW_OP_dup", nil},
	{0x13, "DW_OP_drop", nil},
	{0x14, "DW_OP_over", nil},
	{0x15, "DW_OP_pick", nil},
	{0x16, "DW_OP_swap", nil},
	{0x17, "DW_OP_rot", nil},
	{0x18, "DW_OP_xderef", nil},
	{0x19, "DW_OP_abs", nil},
	{0x1a, "DW_OP_and", nil},
	{0x1b, "DW_OP_div", nil},
	{0x1c, "DW_OP_minus", nil},
	{0x1d, "DW_OP_mod", nil},
	{0x1e, "DW_OP_mul", nil},
	{0x1f, "DW_OP_neg", nil},
	{0x20, "DW_OP_not", nil},
	{0x21, "DW_OP_or", nil},
	{0x22, "DW_OP_plus", nil},
	{opPlusUconst, "DW_OP_plus_uconst", evalPlusUconst},
	{0x24, "DW_OP_shl", nil},
	{0x25, "DW_OP_shr", nil},
	{0x26, "DW_OP_shra", nil},
	{0x27, "DW_OP_xor", nil},
	{0x28, "DW_OP_bra", nil},
	{0x29, "DW_OP_eq", nil},
	{0x2a, "DW_OP_ge", nil},
	{0x2b, "DW_OP_gt", nil},
	{0x2c, "DW_OP_le", nil},
	{0x2d, "DW_OP_lt", nil},
	{0x2e, "DW_OP_ne", nil},
	{0x2f, "DW_OP_skip", nil},
	{opRegx, "DW_OP_regx", evalRegx},
	{opFbreg, "DW_OP_fbreg", evalFbreg},
	{opBregx, "DW_OP_bregx", evalBregx},
	{opPiece, "DW_OP_piece", evalPiece},
	{0x94, "DW_OP_deref_size", nil},
	{0x95, "DW_OP_xderef_size", nil},
	{0x96, "DW_OP_nop", nil},
	{0x97, "DW_OP_push_object_address", nil},
	{0x98, "DW_OP_call2", nil},
	{0x99, "DW_OP_call4", nil},
	{0x9a, "DW_OP_call_ref", nil},
	{0x9b, "DW_OP_form_tls_address", nil},
	{opCallFrameCFA, "DW_OP_call_frame_cfa", evalCFA},
	{0x9d, "DW_OP_bit_piece", nil},
	{opImplicitValue, "DW_OP_implicit_value", evalImplicitValue},
	{opStackValue, "DW_OP_stack_value", evalStackValue},
	{0xa0, "DW_OP_implicit_pointer", nil},
	{opAddrx, "DW_OP_addrx", evalAddrx},
	{0xa2, "DW_OP_constx", nil},
	{opEntryValue, "DW_OP_entry_value", evalEntryValue},
	{0xa4, "DW_OP_const_type", nil},
	{0xa5, "DW_OP_regval_type", nil},
	{0xa6, "DW_OP_deref_type", nil},
	{0xa7, "DW_OP_xderef_type", nil},
	{0xa8, "DW_OP_convert", nil},
	{0xa9, "DW_OP_reinterpret", nil},
	{0xe0, "DW_OP_GNU_push_tls_address", nil},
	{0xf0, "DW_OP_GNU_uninit", nil},
	{0xf1, "DW_OP_GNU_encoded_addr", nil},
	{0xf2, "DW_OP_GNU_implicit_pointer", nil},
	{opGNUEntryValue, "DW_OP_entry_value", evalEntryValue},
	{0xf4, "DW_OP_GNU_const_type", nil},
	{0xf5, "DW_OP_GNU_regval_type", nil},
	{0xf6, "DW_OP_GNU_deref_type", nil},
	{0xf7, "DW_OP_GNU_convert", nil},
	{0xf9, "DW_OP_GNU_reinterpret", nil},
	{0xfa, "DW_OP_GNU_parameter_ref", nil},
	{opGNUAddrIndex, "DW_OP_GNU_addr_index", evalAddrx},
	{0xfc, "DW_OP_GNU_const_index", nil},
	{0xfd, "DW_OP_GNU_variable_value", nil},
}

// name names o for error messages.
func (o opcode) name() string {
	if n := opTable[o].name; n != "" {
		return n
	}
	return fmt.Sprintf("DW_OP %#x", uint8(o))
}

// unsupported is the error for an operation no fetcharg can express.
func (o opcode) unsupported() error {
	return fmt.Errorf("%w: %s", ErrLocation, o.name())
}

func evalReg(e *evaluator, o opcode) error {
	return e.set(Loc{Kind: LocReg, Reg: uint64(o - opReg0)})
}

func evalRegx(e *evaluator, _ opcode) error {
	return e.set(Loc{Kind: LocReg, Reg: e.b.uleb()})
}

func evalBreg(e *evaluator, o opcode) error {
	return e.set(Loc{Kind: LocMem, Reg: uint64(o - opBreg0), Derefs: []int64{e.b.sleb()}})
}

func evalBregx(e *evaluator, _ opcode) error {
	r := e.b.uleb()
	return e.set(Loc{Kind: LocMem, Reg: r, Derefs: []int64{e.b.sleb()}})
}

func evalFbreg(e *evaluator, _ opcode) error {
	return e.set(Loc{Kind: LocFrameBase, Offset: e.b.sleb()})
}

func evalCFA(e *evaluator, _ opcode) error {
	return e.set(Loc{Kind: LocCFA})
}

func evalAddr(e *evaluator, _ opcode) error {
	return e.set(Loc{Kind: LocMem, Addr: e.b.uint(e.addrSize), HasAddr: true, Derefs: []int64{0}})
}

// evalAddrx is DW_OP_addrx and DW_OP_GNU_addr_index: an index into
// .debug_addr.
func evalAddrx(e *evaluator, o opcode) error {
	i := e.b.uleb()
	if e.addrx == nil {
		return o.unsupported()
	}
	a, err := e.addrx(i)
	if err != nil {
		return err
	}
	return e.set(Loc{Kind: LocMem, Addr: a, HasAddr: true, Derefs: []int64{0}})
}

func evalLit(e *evaluator, o opcode) error {
	return e.set(Loc{Kind: LocConst, Const: int64(o - opLit0)})
}

// evalConst is DW_OP_constNx, constu and consts, each with its operand
// reader.
func evalConst(read func(*buf) int64) func(*evaluator, opcode) error {
	return func(e *evaluator, _ opcode) error {
		return e.set(Loc{Kind: LocConst, Const: read(&e.b)})
	}
}

// evalImplicitValue takes a value of up to 8 bytes in the target's order.
func evalImplicitValue(e *evaluator, o opcode) error {
	b := &e.b
	n := b.uleb()
	if n == 0 || n > 8 || !b.need(int(n)) {
		return o.unsupported()
	}
	var v [8]byte
	if b.order == binary.BigEndian {
		copy(v[8-n:], b.data[b.off:b.off+int(n)])
	} else {
		copy(v[:], b.data[b.off:b.off+int(n)])
	}
	b.off += int(n)
	e.value = true
	return e.set(Loc{Kind: LocConst, Const: int64(b.order.Uint64(v[:]))})
}

// evalEntryValue is DW_OP_entry_value of a register: what it held at the
// function's entry.
func evalEntryValue(e *evaluator, o opcode) error {
	b := &e.b
	n := b.uleb()
	if !b.need(int(n)) {
		return nil // the sticky error ends the expression
	}
	sub, err := decodeLocation(b.data[b.off:b.off+int(n)], e.addrSize, b.order, e.addrx)
	b.off += int(n)
	if err != nil || sub.Kind != LocReg {
		return o.unsupported()
	}
	return e.set(Loc{Kind: LocEntryReg, Reg: sub.Reg})
}

func evalPlusUconst(e *evaluator, o opcode) error {
	k := int64(e.b.uleb())
	if !e.have {
		return o.unsupported()
	}
	switch e.loc.Kind {
	case LocMem:
		e.loc.Derefs[len(e.loc.Derefs)-1] += k
	case LocFrameBase:
		e.loc.Offset += k
	case LocConst:
		e.loc.Const += k
	default:
		return o.unsupported()
	}
	return nil
}

// evalDeref loads through the address computed so far: a register becomes
// memory at it, memory one more level of indirection.
func evalDeref(e *evaluator, o opcode) error {
	switch {
	case e.have && e.loc.Kind == LocMem:
		e.loc.Derefs = append(e.loc.Derefs, 0)
		return nil
	case e.have && e.loc.Kind == LocReg:
		return e.set(Loc{Kind: LocMem, Reg: e.loc.Reg, Derefs: []int64{0}})
	}
	return o.unsupported()
}

func evalStackValue(e *evaluator, _ opcode) error {
	e.value = true
	return nil
}

// evalPiece accepts one piece ending the expression: a value split in
// several cannot be fetched as one.
func evalPiece(e *evaluator, _ opcode) error {
	e.piece = e.b.uleb()
	if e.b.off < len(e.b.data) {
		return fmt.Errorf("%w: the value is split in pieces", ErrLocation)
	}
	return nil
}
