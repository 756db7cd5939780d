package dwarfres

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// LocKind says where a variable's value is.
type LocKind int

const (
	// LocReg: the value is in register Reg.
	LocReg LocKind = iota + 1
	// LocMem: the value is in memory; its address is Reg (or Addr when
	// HasAddr) plus the dereference chain Derefs, each element an offset
	// added before loading the next address; the last one locates the
	// value: bregN 8 → Derefs [8] → +8(%reg).
	LocMem
	// LocFrameBase: the value is at DW_AT_frame_base + Offset.
	LocFrameBase
	// LocCFA: the canonical frame address itself (a frame base).
	LocCFA
	// LocConst: the value is the constant Const.
	LocConst
	// LocEntryReg: the value is what register Reg held at function entry
	// (DW_OP_entry_value).
	LocEntryReg
	// LocAddrValue: the value is the address Addr itself.
	LocAddrValue
	// LocRegOffset: the value is register Reg plus Offset (an address
	// computed, not loaded: usable through a member or a string, not alone).
	LocRegOffset
	// LocFrameBaseAddr: the value is the address DW_AT_frame_base + Offset.
	LocFrameBaseAddr
)

// Loc is a decoded location expression.
type Loc struct {
	Kind    LocKind
	Reg     uint64
	Addr    uint64
	HasAddr bool
	Derefs  []int64
	Offset  int64
	Const   int64
	// Sym names the global at Addr (LocMem with HasAddr), or alone a global
	// declared here and defined elsewhere (its address is the symbol's).
	Sym string
	// Piece is the size in bytes of the one DW_OP_piece that describes the
	// value, 0 when the expression has none.
	Piece int64
}

// ErrLocation: a location expression dwprobe cannot turn into a fetcharg
// (arithmetic the kernel cannot do, several pieces, unknown operations).
var ErrLocation = errors.New("unsupported location expression")

// decodeLocation interprets a DWARF location expression the way a probe can
// use it. addrx resolves DW_OP_addrx indexes (nil when not needed). Each
// operation is evaluated by its row of opTable; errors wrap ErrLocation or
// are a *DecodeError for a truncated expression.
func decodeLocation(expr []byte, addrSize int, order binary.ByteOrder, addrx func(uint64) (uint64, error)) (Loc, error) {
	e := &evaluator{b: buf{sec: "location expression", data: expr, order: order}, addrSize: addrSize, addrx: addrx}
	for e.b.off < len(e.b.data) && e.b.err == nil {
		o := opcode(e.b.u8())
		eval := opTable[o].eval
		if eval == nil {
			return Loc{}, o.unsupported()
		}
		if err := eval(e, o); err != nil {
			return Loc{}, err
		}
	}
	if e.b.err != nil {
		return Loc{}, e.b.err
	}
	if !e.have {
		return Loc{}, fmt.Errorf("%w: empty expression", ErrLocation)
	}
	e.loc.Piece = int64(e.piece)
	if e.value {
		return valueLoc(e.loc)
	}
	return placeLoc(e.loc)
}

// evaluator is the state of one expression: the location computed so far.
type evaluator struct {
	b        buf
	addrSize int
	addrx    func(uint64) (uint64, error)
	loc      Loc
	have     bool   // an address, register or constant is being computed
	value    bool   // DW_OP_stack_value or implicit_value: loc is the value
	piece    uint64 // the DW_OP_piece size, 0 without one
}

// set makes l the location computed so far.
func (e *evaluator) set(l Loc) error {
	e.loc, e.have = l, true
	return nil
}

// placeLoc finishes an expression that says where the value is.
func placeLoc(loc Loc) (Loc, error) {
	switch loc.Kind {
	case LocEntryReg:
		// Without stack_value the entry value is an address.
		return Loc{}, fmt.Errorf("%w: memory at an entry value", ErrLocation)
	case LocConst:
		// A constant alone is the address of the value.
		return Loc{Kind: LocMem, Addr: uint64(loc.Const), HasAddr: true, Derefs: []int64{0}}, nil
	}
	return loc, nil
}

// valueLoc finishes an expression that computes the value itself, not
// where it lives.
func valueLoc(loc Loc) (Loc, error) {
	switch loc.Kind {
	case LocConst, LocEntryReg:
		return loc, nil
	case LocFrameBase:
		// fbreg N; stack_value: the address frame base + N (a pointer
		// to a local structure), not what is stored there.
		loc.Kind = LocFrameBaseAddr
		return loc, nil
	case LocMem:
		return memValue(loc)
	}
	return Loc{}, fmt.Errorf("%w: stack value", ErrLocation)
}

// memValue is valueLoc for a memory location: the address it would load
// from, without the final load.
func memValue(loc Loc) (Loc, error) {
	last := loc.Derefs[len(loc.Derefs)-1]
	switch {
	case loc.HasAddr && len(loc.Derefs) == 1:
		return Loc{Kind: LocAddrValue, Addr: uint64(int64(loc.Addr) + last), HasAddr: true}, nil
	case !loc.HasAddr && len(loc.Derefs) == 1 && last == 0:
		return Loc{Kind: LocReg, Reg: loc.Reg}, nil
	case !loc.HasAddr && len(loc.Derefs) == 1:
		return Loc{Kind: LocRegOffset, Reg: loc.Reg, Offset: last}, nil
	case last == 0:
		// *(chain) without the final load: one level less.
		loc.Derefs = loc.Derefs[:len(loc.Derefs)-1]
		return loc, nil
	}
	return Loc{}, fmt.Errorf("%w: register plus offset as a value", ErrLocation)
}
