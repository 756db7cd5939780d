package dwarfres

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/go-delve/delve/pkg/dwarf/op"
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

// DecodeLocation interprets a DWARF location expression the way a probe can
// use it. addrx resolves DW_OP_addrx indexes (nil when not needed).
func DecodeLocation(expr []byte, addrSize int, order binary.ByteOrder, addrx func(uint64) (uint64, error)) (Loc, error) {
	b := &buf{sec: "location expression", data: expr, order: order}
	var loc Loc
	have := false // an address or register is being computed
	value := false
	pieces := 0
	var pieceSize uint64
	unsupported := func(o op.Opcode) (Loc, error) {
		return Loc{}, fmt.Errorf("%w: %s", ErrLocation, opName(o))
	}
	for b.off < len(b.data) && b.err == nil {
		o := op.Opcode(b.u8())
		switch {
		case o >= op.DW_OP_reg0 && o <= op.DW_OP_reg31:
			loc, have = Loc{Kind: LocReg, Reg: uint64(o - op.DW_OP_reg0)}, true
		case o == op.DW_OP_regx:
			loc, have = Loc{Kind: LocReg, Reg: b.uleb()}, true
		case o >= op.DW_OP_breg0 && o <= op.DW_OP_breg31:
			loc, have = Loc{Kind: LocMem, Reg: uint64(o - op.DW_OP_breg0), Derefs: []int64{b.sleb()}}, true
		case o == op.DW_OP_bregx:
			r := b.uleb()
			loc, have = Loc{Kind: LocMem, Reg: r, Derefs: []int64{b.sleb()}}, true
		case o == op.DW_OP_fbreg:
			loc, have = Loc{Kind: LocFrameBase, Offset: b.sleb()}, true
		case o == op.DW_OP_call_frame_cfa:
			loc, have = Loc{Kind: LocCFA}, true
		case o == op.DW_OP_addr:
			loc, have = Loc{Kind: LocMem, Addr: b.uint(addrSize), HasAddr: true, Derefs: []int64{0}}, true
		case o == opAddrx || o == opGNUAddrIndex:
			i := b.uleb()
			if addrx == nil {
				return unsupported(o)
			}
			a, err := addrx(i)
			if err != nil {
				return Loc{}, err
			}
			loc, have = Loc{Kind: LocMem, Addr: a, HasAddr: true, Derefs: []int64{0}}, true
		case o >= op.DW_OP_lit0 && o <= op.DW_OP_lit31:
			loc, have = Loc{Kind: LocConst, Const: int64(o - op.DW_OP_lit0)}, true
		case o == op.DW_OP_const1u:
			loc, have = Loc{Kind: LocConst, Const: int64(b.u8())}, true
		case o == op.DW_OP_const1s:
			loc, have = Loc{Kind: LocConst, Const: int64(int8(b.u8()))}, true
		case o == op.DW_OP_const2u:
			loc, have = Loc{Kind: LocConst, Const: int64(b.u16())}, true
		case o == op.DW_OP_const2s:
			loc, have = Loc{Kind: LocConst, Const: int64(int16(b.u16()))}, true
		case o == op.DW_OP_const4u:
			loc, have = Loc{Kind: LocConst, Const: int64(b.u32())}, true
		case o == op.DW_OP_const4s:
			loc, have = Loc{Kind: LocConst, Const: int64(int32(b.u32()))}, true
		case o == op.DW_OP_const8u || o == op.DW_OP_const8s:
			loc, have = Loc{Kind: LocConst, Const: int64(b.u64())}, true
		case o == op.DW_OP_constu:
			loc, have = Loc{Kind: LocConst, Const: int64(b.uleb())}, true
		case o == op.DW_OP_consts:
			loc, have = Loc{Kind: LocConst, Const: b.sleb()}, true
		case o == op.DW_OP_implicit_value:
			n := b.uleb()
			if n == 0 || n > 8 || !b.need(int(n)) {
				return unsupported(o)
			}
			var v [8]byte
			if order == binary.BigEndian {
				copy(v[8-n:], b.data[b.off:b.off+int(n)])
			} else {
				copy(v[:], b.data[b.off:b.off+int(n)])
			}
			b.off += int(n)
			loc, have, value = Loc{Kind: LocConst, Const: int64(order.Uint64(v[:]))}, true, true
		case o == opEntryValue || o == opGNUEntryValue:
			n := b.uleb()
			if !b.need(int(n)) {
				break
			}
			sub, err := DecodeLocation(b.data[b.off:b.off+int(n)], addrSize, order, addrx)
			b.off += int(n)
			if err != nil || sub.Kind != LocReg {
				return unsupported(o)
			}
			loc, have = Loc{Kind: LocEntryReg, Reg: sub.Reg}, true
		case o == op.DW_OP_plus_uconst:
			k := int64(b.uleb())
			if !have {
				return unsupported(o)
			}
			switch loc.Kind {
			case LocMem:
				loc.Derefs[len(loc.Derefs)-1] += k
			case LocFrameBase:
				loc.Offset += k
			case LocConst:
				loc.Const += k
			default:
				return unsupported(o)
			}
		case o == op.DW_OP_deref:
			if !have || loc.Kind != LocMem {
				if have && loc.Kind == LocReg {
					loc = Loc{Kind: LocMem, Reg: loc.Reg, Derefs: []int64{0}}
					break
				}
				return unsupported(o)
			}
			loc.Derefs = append(loc.Derefs, 0)
		case o == op.DW_OP_stack_value:
			value = true
		case o == op.DW_OP_piece:
			pieceSize = b.uleb()
			pieces++
			if b.off < len(b.data) {
				return Loc{}, fmt.Errorf("%w: the value is split in pieces", ErrLocation)
			}
		default:
			return unsupported(o)
		}
	}
	if b.err != nil {
		return Loc{}, b.err
	}
	if !have {
		return Loc{}, fmt.Errorf("%w: empty expression", ErrLocation)
	}
	loc.Piece = int64(pieceSize)
	if !value {
		switch loc.Kind {
		case LocEntryReg:
			// Without stack_value the entry value is an address.
			return Loc{}, fmt.Errorf("%w: memory at an entry value", ErrLocation)
		case LocConst:
			// A constant alone is the address of the value.
			loc = Loc{Kind: LocMem, Addr: uint64(loc.Const), HasAddr: true, Derefs: []int64{0}}
		}
	}
	if value {
		// The expression computes the value itself, not where it lives.
		switch loc.Kind {
		case LocConst, LocEntryReg:
		case LocFrameBase:
			// fbreg N; stack_value: the address frame base + N (a pointer
			// to a local structure), not what is stored there.
			loc.Kind = LocFrameBaseAddr
		case LocMem:
			last := loc.Derefs[len(loc.Derefs)-1]
			switch {
			case loc.HasAddr && len(loc.Derefs) == 1:
				loc = Loc{Kind: LocAddrValue, Addr: uint64(int64(loc.Addr) + last), HasAddr: true}
			case !loc.HasAddr && len(loc.Derefs) == 1 && last == 0:
				loc = Loc{Kind: LocReg, Reg: loc.Reg}
			case !loc.HasAddr && len(loc.Derefs) == 1:
				loc = Loc{Kind: LocRegOffset, Reg: loc.Reg, Offset: last}
			case last == 0:
				loc.Derefs = loc.Derefs[:len(loc.Derefs)-1]
				// *(chain) without the final load: one level less.
			default:
				return Loc{}, fmt.Errorf("%w: register plus offset as a value", ErrLocation)
			}
		default:
			return Loc{}, fmt.Errorf("%w: stack value", ErrLocation)
		}
	}
	return loc, nil
}

// DWARF 5 and GNU operations delve's op package does not name.
const (
	opAddrx         op.Opcode = 0xa1
	opEntryValue    op.Opcode = 0xa3
	opGNUEntryValue op.Opcode = 0xf3
	opGNUAddrIndex  op.Opcode = 0xfb
)

// opName names an operation for error messages.
func opName(o op.Opcode) string {
	switch o {
	case opAddrx:
		return "DW_OP_addrx"
	case opEntryValue, opGNUEntryValue:
		return "DW_OP_entry_value"
	case opGNUAddrIndex:
		return "DW_OP_GNU_addr_index"
	}
	var sb strings.Builder
	op.PrettyPrint(&sb, []byte{byte(o)}, nil)
	if n := strings.Fields(sb.String()); len(n) > 0 && strings.HasPrefix(n[0], "DW_OP_") {
		return n[0]
	}
	return fmt.Sprintf("DW_OP %#x", uint8(o))
}
