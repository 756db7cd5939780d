package dwarfres

import (
	"debug/elf"
	"fmt"
	"os"
	"syscall"
)

// A relocatable object (a kernel module) leaves the addresses and section
// offsets of its debug sections to relocations: with RELA the bytes in
// place are 0 and the value is the symbol's address plus the addend.
// debug/elf's DWARF() applies them for some sections only, and dwarfres
// decodes sections itself, so every debug section with a relocation
// section is relocated here, once, in place, with the section layout of
// layoutSections.

// relocKind is how one relocation type writes its value.
type relocKind struct {
	size int  // bytes written: 2, 4 or 8
	pc   bool // PC-relative: S + A - P
}

// relocKinds are the types debug sections use, per machine; others are
// refused rather than read wrong.
var relocKinds = map[elf.Machine]map[uint32]relocKind{
	elf.EM_X86_64: {
		uint32(elf.R_X86_64_64):   {8, false},
		uint32(elf.R_X86_64_32):   {4, false},
		uint32(elf.R_X86_64_32S):  {4, false},
		uint32(elf.R_X86_64_PC32): {4, true},
		uint32(elf.R_X86_64_PC64): {8, true},
	},
	elf.EM_AARCH64: {
		uint32(elf.R_AARCH64_ABS64):  {8, false},
		uint32(elf.R_AARCH64_ABS32):  {4, false},
		uint32(elf.R_AARCH64_ABS16):  {2, false},
		uint32(elf.R_AARCH64_PREL64): {8, true},
		uint32(elf.R_AARCH64_PREL32): {4, true},
		uint32(elf.R_AARCH64_PREL16): {2, true},
	},
}

// value is what a relocation of kind k writes for symbol value sym,
// addend a at address p (the truncation to k.size is writeUint's).
func (k relocKind) value(sym, a, p uint64) uint64 {
	v := sym + a
	if k.pc {
		v -= p
	}
	return v
}

// relocNone is R_X86_64_NONE and R_AARCH64_NONE: nothing to do.
const relocNone = 0

// relocate applies to b, the contents of section target, the relocation
// sections (SHT_RELA) whose sh_info names it, in place: b is the file's
// private writable mapping (Open makes a relocatable object's so) or a
// decompressed copy, so only the pages relocations touch are copied,
// once. Symbols resolve through rawSymAt, so to the laid-out section
// addresses. x86_64 and arm64 objects use RELA only; a SHT_REL section,
// whose addends sit in the bytes it rewrites, is refused.
func (f *File) relocate(target int, b []byte) error {
	for _, rs := range f.ELF.Sections {
		if rs.Type != elf.SHT_RELA && rs.Type != elf.SHT_REL || int(rs.Info) != target {
			continue
		}
		if rs.Type == elf.SHT_REL {
			return &DecodeError{Section: rs.Name, Msg: "SHT_REL relocations are not supported (x86_64 and arm64 objects use SHT_RELA)"}
		}
		if err := f.applyRelocs(rs, b, f.ELF.Sections[target]); err != nil {
			return err
		}
		f.dropPages(rs.Offset, rs.FileSize)
	}
	return nil
}

// dropPages gives back the pages wholly inside the file range [off,
// off+n) of a relocation section once applied (13 MB for btrfs's
// .rela.debug_info): nothing reads it again, and a page of a file mapping
// that is read again is read from the file. An anonymous mapping (a
// decompressed module) would read back zeros: its pages are kept.
func (f *File) dropPages(off, n uint64) {
	if f.f == nil {
		return
	}
	pg := uint64(os.Getpagesize())
	lo, hi := (off+pg-1)/pg*pg, (off+n)/pg*pg
	if hi > lo && hi <= uint64(len(f.data)) {
		syscall.Madvise(f.data[lo:hi], syscall.MADV_DONTNEED)
	}
}

// applyRelocs applies the RELA section rs to out, the contents of section
// dst.
func (f *File) applyRelocs(rs *elf.Section, out []byte, dst *elf.Section) error {
	kinds := relocKinds[f.Machine]
	if kinds == nil || f.ELF.Class != elf.ELFCLASS64 {
		return &DecodeError{Section: rs.Name, Msg: fmt.Sprintf("relocations of %v %v objects are not supported", f.ELF.Class, f.Machine)}
	}
	if rs.Offset+rs.FileSize > uint64(len(f.data)) {
		return &DecodeError{Section: rs.Name, Msg: "extends past the end of the file"}
	}
	data := f.data[rs.Offset : rs.Offset+rs.FileSize]
	syms, _ := f.symbolSection(elf.SHT_SYMTAB)
	for i := 0; i+24 <= len(data); i += 24 {
		off := f.Order.Uint64(data[i:])
		info := f.Order.Uint64(data[i+8:])
		addend := f.Order.Uint64(data[i+16:])
		typ, symIdx := uint32(info), uint32(info>>32)
		if typ == relocNone {
			continue
		}
		k, ok := kinds[typ]
		if !ok {
			return &DecodeError{Section: rs.Name, Offset: uint64(i), Msg: fmt.Sprintf("relocation type %d for %v is not supported", typ, f.Machine)}
		}
		if off+uint64(k.size) > uint64(len(out)) {
			return &DecodeError{Section: rs.Name, Offset: uint64(i), Msg: fmt.Sprintf("relocation at %#x past the end of %s", off, dst.Name)}
		}
		s, ok := f.rawSymAt(syms, symIdx)
		if !ok {
			return &DecodeError{Section: rs.Name, Offset: uint64(i), Msg: fmt.Sprintf("relocation against symbol %d, which the symbol table does not have", symIdx)}
		}
		f.writeUint(out[off:], k.size, k.value(s.value, addend, dst.Addr+off))
	}
	return nil
}

// rawSymAt is entry i of the symbol section data, its value laid out.
func (f *File) rawSymAt(data []byte, i uint32) (rawSym, bool) {
	size := uint64(f.symSize())
	at := uint64(i) * size
	if i == 0 || at+size > uint64(len(data)) {
		return rawSym{}, i == 0 // the null symbol is 0
	}
	return f.decodeRawSym(data[at : at+size]), true
}

func (f *File) writeUint(b []byte, size int, v uint64) {
	switch size {
	case 2:
		f.Order.PutUint16(b, uint16(v))
	case 4:
		f.Order.PutUint32(b, uint32(v))
	default:
		f.Order.PutUint64(b, v)
	}
}

// sectionIndex is the index of s in ef.Sections.
func sectionIndex(ef *elf.File, s *elf.Section) int {
	for i, x := range ef.Sections {
		if x == s {
			return i
		}
	}
	return -1
}
