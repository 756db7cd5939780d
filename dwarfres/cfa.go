package dwarfres

import (
	"cmp"
	"debug/elf"
	"fmt"
	"slices"

	"github.com/go-delve/delve/pkg/dwarf/frame"
)

// cfi is the parsed call-frame information, sorted by start address (delve's
// FDEForPC binary-searches and frame.Parse does not sort).
func (f *File) cfi() (frame.FrameDescriptionEntries, error) {
	f.cfiOnce.Do(func() {
		defer recoverTo(&f.cfiErr, ".debug_frame")
		ptr := 8
		if f.ELF.Class == elf.ELFCLASS32 {
			ptr = 4
		}
		if b := f.sec(".debug_frame"); len(b) > 0 {
			f.fdes, f.cfiErr = frame.Parse(b, f.Order, 0, ptr, 0)
		} else if s := f.ELF.Section(".eh_frame"); s != nil && s.Type != elf.SHT_NOBITS {
			b, err := f.section(".eh_frame")
			if err != nil {
				f.cfiErr = err
				return
			}
			f.fdes, f.cfiErr = frame.Parse(b, f.Order, 0, ptr, s.Addr)
		}
		if f.cfiErr != nil {
			f.cfiErr = &DecodeError{Section: ".debug_frame", Msg: f.cfiErr.Error()}
			return
		}
		slices.SortFunc(f.fdes, func(a, b *frame.FrameDescriptionEntry) int { return cmp.Compare(a.Begin(), b.Begin()) })
	})
	return f.fdes, f.cfiErr
}

// CFA returns the rule for the canonical frame address at pc: the CFA is
// register Reg plus Offset. It is how a DW_OP_call_frame_cfa frame base
// becomes a stack-relative fetcharg.
func (f *File) CFA(pc uint64) (reg uint64, off int64, err error) {
	defer recoverTo(&err, f.Path)
	fdes, err := f.cfi()
	if err != nil {
		return 0, 0, err
	}
	fde, err := fdes.FDEForPC(pc)
	if err != nil {
		return 0, 0, fmt.Errorf("no call-frame information at %#x: %w", pc, ErrNotFound)
	}
	fc, err := fde.EstablishFrame(pc)
	if err != nil {
		return 0, 0, &DecodeError{Section: ".debug_frame", Offset: fde.Begin(), Msg: err.Error()}
	}
	if fc.CFA.Rule != frame.RuleCFA {
		return 0, 0, fmt.Errorf("the frame address at %#x is a DWARF expression: %w", pc, ErrLocation)
	}
	return fc.CFA.Reg, fc.CFA.Offset, nil
}
