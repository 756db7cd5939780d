package elfobj

import (
	"debug/elf"
	"fmt"
)

// Bytes returns n bytes of the loaded image at virtual address addr, from
// the section that contains it.
func (o *Object) Bytes(addr, n uint64) ([]byte, error) {
	for _, s := range o.ELF.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Type == elf.SHT_NOBITS {
			continue
		}
		if addr >= s.Addr && addr+n <= s.Addr+s.Size {
			off := s.Offset + (addr - s.Addr)
			if off+n > uint64(len(o.data)) {
				break
			}
			return o.data[off : off+n], nil
		}
	}
	return nil, fmt.Errorf("address %#x: %w in any section", addr, ErrNotFound)
}

// FileOffset maps a virtual address to its offset in the file through the
// PT_LOAD segments (what uprobe_events wants).
func (o *Object) FileOffset(addr uint64) (uint64, error) {
	for _, p := range o.ELF.Progs {
		if p.Type == elf.PT_LOAD && addr >= p.Vaddr && addr < p.Vaddr+p.Filesz {
			return addr - p.Vaddr + p.Off, nil
		}
	}
	return 0, fmt.Errorf("address %#x is in no loadable segment: %w", addr, ErrNotFound)
}

// UprobeDataOffset is the @+OFFSET a uprobe at code address probe uses to
// read the data at addr. The kernel turns OFFSET into an address as
// probe_vaddr - probe_file_offset + OFFSET, i.e. assuming the code
// segment's address-to-offset delta, so data in another segment (and .bss,
// which has no file bytes) is expressed relative to that delta.
func (o *Object) UprobeDataOffset(probe, addr uint64) (uint64, error) {
	for _, p := range o.ELF.Progs {
		if p.Type == elf.PT_LOAD && probe >= p.Vaddr && probe < p.Vaddr+p.Filesz {
			if addr < p.Vaddr-p.Off {
				break
			}
			return addr - (p.Vaddr - p.Off), nil
		}
	}
	return 0, fmt.Errorf("address %#x: no loadable segment holds the probe at %#x: %w", addr, probe, ErrNotFound)
}

// SectionName names the allocated section holding addr, "" if none. A
// kernel global in ".data..percpu" is a per-CPU variable: its address is
// an offset each CPU adds its own base to.
func (o *Object) SectionName(addr uint64) string {
	for _, s := range o.ELF.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 && addr >= s.Addr && addr < s.Addr+s.Size {
			return s.Name
		}
	}
	return ""
}
