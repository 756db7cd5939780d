package cfi

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"

	"github.com/go-delve/delve/pkg/dwarf/frame"
)

// ErrExpression: the CFA at a pc is a DWARF expression, not a register
// plus an offset.
var ErrExpression = errors.New("the frame address is a DWARF expression")

// Table is one section's call-frame information, sorted by start address
// (delve's FDEForPC binary-searches and frame.Parse does not sort).
type Table struct {
	fdes frame.FrameDescriptionEntries
}

// Parse reads the call-frame information in b: a .debug_frame (addr 0)
// or an .eh_frame at address addr, of a machine with ptrSize-byte
// addresses. Its error is delve's, unwrapped.
func Parse(b []byte, order binary.ByteOrder, ptrSize int, addr uint64) (*Table, error) {
	if order == binary.BigEndian {
		// delve's parser reads the entries' headers as little-endian
		// whatever the order it is given.
		var err error
		if b, err = frameAsLittleEndian(b, ptrSize, addr != 0); err != nil {
			return nil, err
		}
	}
	fdes, err := frame.Parse(b, order, 0, ptrSize, addr)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(fdes, func(a, b *frame.FrameDescriptionEntry) int { return cmp.Compare(a.Begin(), b.Begin()) })
	cies := map[*frame.CommonInformationEntry]bool{}
	for _, fde := range fdes {
		fde.Instructions = vendorCFAAsNop(fde.Instructions, ptrSize)
		if fde.CIE != nil && !cies[fde.CIE] {
			cies[fde.CIE] = true
			fde.CIE.InitialInstructions = vendorCFAAsNop(fde.CIE.InitialInstructions, ptrSize)
		}
	}
	return &Table{fdes: fdes}, nil
}

// CFA returns the rule for the canonical frame address at pc: the CFA is
// register reg plus off. A pc no entry covers is an error wrapping
// elfobj.ErrNotFound; a rule that is an expression, ErrExpression; an
// entry that does not decode, an *elfobj.DecodeError.
func (t *Table) CFA(pc uint64) (reg uint64, off int64, err error) {
	var fdes frame.FrameDescriptionEntries
	if t != nil {
		fdes = t.fdes
	}
	fde, err := fdes.FDEForPC(pc)
	if err != nil {
		return 0, 0, fmt.Errorf("no call-frame information at %#x: %w", pc, elfobj.ErrNotFound)
	}
	fc, err := fde.EstablishFrame(pc)
	if err != nil {
		return 0, 0, &elfobj.DecodeError{Section: ".debug_frame", Offset: fde.Begin(), Msg: err.Error()}
	}
	// riscv64's CIEs set the CFA with DW_CFA_def_cfa_register alone
	// (sp, offset 0), which defines a register-plus-offset rule; delve
	// only records the register and leaves the rule undefined.
	if fc.CFA.Rule != frame.RuleCFA && fc.CFA.Rule != frame.RuleUndefined {
		return 0, 0, ErrExpression
	}
	return fc.CFA.Reg, fc.CFA.Offset, nil
}
