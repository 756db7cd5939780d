package dwarfres

import (
	"debug/elf"
	"errors"
	"fmt"
	"sync"

	"github.com/dwprobe/dwprobe/dwarfres/cfi"
	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// cfiTable is a file's call-frame information (.debug_frame, else
// .eh_frame), parsed and sorted once (cfi.Parse): where the canonical
// frame address is at a pc (cfa).
type cfiTable struct {
	once sync.Once
	tab  *cfi.Table
	err  error
}

// load is f's parsed call-frame information.
func (c *cfiTable) load(f *File) (*cfi.Table, error) {
	c.once.Do(func() {
		defer elfobj.Guard(&c.err, ".debug_frame")
		ptr := 8
		if f.ELF.Class == elf.ELFCLASS32 {
			ptr = 4
		}
		if b := f.sec(".debug_frame"); len(b) > 0 {
			c.tab, c.err = cfi.Parse(b, f.Order, ptr, 0)
		} else if s := f.ELF.Section(".eh_frame"); s != nil && s.Type != elf.SHT_NOBITS {
			b, err := f.section(".eh_frame")
			if err != nil {
				c.err = err
				return
			}
			c.tab, c.err = cfi.Parse(b, f.Order, ptr, s.Addr)
		}
		if _, ok := c.err.(*DecodeError); ok {
			return // the byte-order pass's own
		}
		if c.err != nil {
			c.err = &DecodeError{Section: ".debug_frame", Msg: c.err.Error()}
		}
	})
	return c.tab, c.err
}

// cfa returns f's rule for the canonical frame address at pc: the CFA is
// register reg plus off. It is how a DW_OP_call_frame_cfa frame base
// becomes a stack-relative fetcharg.
func (c *cfiTable) cfa(f *File, pc uint64) (reg uint64, off int64, err error) {
	defer f.nameMalformed(&err)
	defer elfobj.Guard(&err, f.Path)
	tab, err := c.load(f)
	if err != nil {
		return 0, 0, err
	}
	reg, off, err = tab.CFA(pc)
	if errors.Is(err, cfi.ErrExpression) {
		return 0, 0, fmt.Errorf("the frame address at %#x is a DWARF expression: %w", pc, ErrLocation)
	}
	return reg, off, err
}
