package dwarfres

import (
	"cmp"
	"debug/elf"
	"fmt"
	"slices"
	"sync"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"

	"github.com/go-delve/delve/pkg/dwarf/frame"
)

// cfiTable is a file's call-frame information, parsed and sorted once.
type cfiTable struct {
	once sync.Once
	fdes frame.FrameDescriptionEntries
	err  error
}

// cfi is the parsed call-frame information, sorted by start address (delve's
// FDEForPC binary-searches and frame.Parse does not sort).
func (f *File) cfi() (frame.FrameDescriptionEntries, error) {
	f.frames.once.Do(func() {
		defer elfobj.Guard(&f.frames.err, ".debug_frame")
		ptr := 8
		if f.ELF.Class == elf.ELFCLASS32 {
			ptr = 4
		}
		if b := f.sec(".debug_frame"); len(b) > 0 {
			f.frames.fdes, f.frames.err = frame.Parse(b, f.Order, 0, ptr, 0)
		} else if s := f.ELF.Section(".eh_frame"); s != nil && s.Type != elf.SHT_NOBITS {
			b, err := f.section(".eh_frame")
			if err != nil {
				f.frames.err = err
				return
			}
			f.frames.fdes, f.frames.err = frame.Parse(b, f.Order, 0, ptr, s.Addr)
		}
		if f.frames.err != nil {
			f.frames.err = &DecodeError{Section: ".debug_frame", Msg: f.frames.err.Error()}
			return
		}
		slices.SortFunc(f.frames.fdes, func(a, b *frame.FrameDescriptionEntry) int { return cmp.Compare(a.Begin(), b.Begin()) })
		cies := map[*frame.CommonInformationEntry]bool{}
		for _, fde := range f.frames.fdes {
			fde.Instructions = vendorCFAAsNop(fde.Instructions, ptr)
			if fde.CIE != nil && !cies[fde.CIE] {
				cies[fde.CIE] = true
				fde.CIE.InitialInstructions = vendorCFAAsNop(fde.CIE.InitialInstructions, ptr)
			}
		}
	})
	return f.frames.fdes, f.frames.err
}

// CFA returns the rule for the canonical frame address at pc: the CFA is
// register Reg plus Offset. It is how a DW_OP_call_frame_cfa frame base
// becomes a stack-relative fetcharg.
func (f *File) CFA(pc uint64) (reg uint64, off int64, err error) {
	defer f.nameMalformed(&err)
	defer elfobj.Guard(&err, f.Path)
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
	// riscv64's CIEs set the CFA with DW_CFA_def_cfa_register alone
	// (sp, offset 0), which defines a register-plus-offset rule; delve
	// only records the register and leaves the rule undefined.
	if fc.CFA.Rule != frame.RuleCFA && fc.CFA.Rule != frame.RuleUndefined {
		return 0, 0, fmt.Errorf("the frame address at %#x is a DWARF expression: %w", pc, ErrLocation)
	}
	return fc.CFA.Reg, fc.CFA.Offset, nil
}

// vendorCFAAsNop returns ins with DW_CFA_AARCH64_negate_ra_state (0x2d,
// also DW_CFA_GNU_window_save; no operands) replaced by DW_CFA_nop: arm64
// kernels built with pointer authentication use it around every frame, it
// does not change the CFA, and delve's interpreter stops at it. ins is
// copied only when it holds one; a malformed stream is returned as is.
func vendorCFAAsNop(ins []byte, ptr int) []byte {
	b := buf{data: ins}
	var out []byte
	for b.off < len(b.data) && b.err == nil {
		at := b.off
		o := b.u8()
		switch o >> 6 {
		case 1, 3: // advance_loc, restore: operand in the opcode
			continue
		case 2: // offset
			b.uleb()
			continue
		}
		switch o {
		case 0x00, 0x0a, 0x0b: // nop, remember_state, restore_state
		case 0x2d:
			if out == nil {
				out = slices.Clone(ins)
			}
			out[at] = 0x00
		case 0x01: // set_loc
			b.skip(ptr)
		case 0x02:
			b.skip(1)
		case 0x03:
			b.skip(2)
		case 0x04:
			b.skip(4)
		case 0x06, 0x07, 0x08, 0x0d, 0x0e, 0x2e: // one ULEB
			b.uleb()
		case 0x13: // def_cfa_offset_sf
			b.sleb()
		case 0x05, 0x09, 0x0c, 0x14, 0x2f: // two ULEBs
			b.uleb()
			b.uleb()
		case 0x11, 0x12, 0x15: // ULEB, SLEB
			b.uleb()
			b.sleb()
		case 0x0f: // def_cfa_expression
			b.skip(int(b.uleb()))
		case 0x10, 0x16: // expression, val_expression
			b.uleb()
			b.skip(int(b.uleb()))
		default:
			return ins // unknown: leave it to delve to report
		}
	}
	if out == nil {
		return ins
	}
	return out
}
