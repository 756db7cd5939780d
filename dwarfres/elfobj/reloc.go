package elfobj

import (
	"debug/elf"
	"fmt"
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
	elf.EM_PPC64: {
		uint32(elf.R_PPC64_ADDR64): {8, false},
		uint32(elf.R_PPC64_ADDR32): {4, false},
		uint32(elf.R_PPC64_ADDR16): {2, false},
		uint32(elf.R_PPC64_REL64):  {8, true},
		uint32(elf.R_PPC64_REL32):  {4, true},
	},
	elf.EM_S390: {
		uint32(elf.R_390_64):   {8, false},
		uint32(elf.R_390_32):   {4, false},
		uint32(elf.R_390_16):   {2, false},
		uint32(elf.R_390_PC64): {8, true},
		uint32(elf.R_390_PC32): {4, true},
		uint32(elf.R_390_PC16): {2, true},
	},
	// The kernel builds riscv modules with -mno-relax (arch/riscv/Makefile),
	// so their debug sections hold no ADD/SUB pairs.
	elf.EM_RISCV: {
		uint32(elf.R_RISCV_64):       {8, false},
		uint32(elf.R_RISCV_32):       {4, false},
		uint32(elf.R_RISCV_32_PCREL): {4, true},
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

// relocNone is R_X86_64_NONE, R_AARCH64_NONE, R_PPC64_NONE, R_390_NONE
// and R_RISCV_NONE: nothing to do.
const relocNone = 0

// relocate applies to b, the contents of section target, the relocation
// sections (SHT_RELA) whose sh_info names it, in place: b is the file's
// private writable mapping (Open makes a relocatable object's so) or a
// decompressed copy, so only the pages relocations touch are copied,
// once. Symbols resolve through rawSymAt, so to the laid-out section
// addresses. x86_64 and arm64 objects use RELA only; a SHT_REL section,
// whose addends sit in the bytes it rewrites, is refused.
func (o *Object) relocate(target int, b []byte) error {
	for _, rs := range o.ELF.Sections {
		if rs.Type != elf.SHT_RELA && rs.Type != elf.SHT_REL || int(rs.Info) != target {
			continue
		}
		if rs.Type == elf.SHT_REL {
			return &DecodeError{Section: rs.Name, Msg: "SHT_REL relocations are not supported (x86_64 and arm64 objects use SHT_RELA)"}
		}
		if err := o.applyRelocs(rs, b, o.ELF.Sections[target]); err != nil {
			return err
		}
		o.DropPages(rs.Offset, rs.FileSize)
	}
	return nil
}

// applyRelocs applies the RELA section rs to out, the contents of section
// dst.
func (o *Object) applyRelocs(rs *elf.Section, out []byte, dst *elf.Section) error {
	kinds := relocKinds[o.Machine]
	if kinds == nil || o.ELF.Class != elf.ELFCLASS64 {
		return &DecodeError{Section: rs.Name, Msg: fmt.Sprintf("relocations of %v %v objects are not supported", o.ELF.Class, o.Machine)}
	}
	if rs.Offset+rs.FileSize > uint64(len(o.data)) {
		return &DecodeError{Section: rs.Name, Msg: "extends past the end of the file"}
	}
	data := o.data[rs.Offset : rs.Offset+rs.FileSize]
	syms, _ := o.SymbolSection(elf.SHT_SYMTAB)
	for i := 0; i+24 <= len(data); i += 24 {
		off := o.Order.Uint64(data[i:])
		info := o.Order.Uint64(data[i+8:])
		addend := o.Order.Uint64(data[i+16:])
		typ, symIdx := uint32(info), uint32(info>>32)
		if typ == relocNone {
			continue
		}
		k, ok := kinds[typ]
		if !ok {
			return &DecodeError{Section: rs.Name, Offset: uint64(i), Msg: fmt.Sprintf("relocation type %d for %v is not supported", typ, o.Machine)}
		}
		if off+uint64(k.size) > uint64(len(out)) {
			return &DecodeError{Section: rs.Name, Offset: uint64(i), Msg: fmt.Sprintf("relocation at %#x past the end of %s", off, dst.Name)}
		}
		s, ok := o.RawSymAt(syms, symIdx)
		if !ok {
			return &DecodeError{Section: rs.Name, Offset: uint64(i), Msg: fmt.Sprintf("relocation against symbol %d, which the symbol table does not have", symIdx)}
		}
		o.writeUint(out[off:], k.size, k.value(s.Value, addend, dst.Addr+off))
	}
	return nil
}

func (o *Object) writeUint(b []byte, size int, v uint64) {
	switch size {
	case 2:
		o.Order.PutUint16(b, uint16(v))
	case 4:
		o.Order.PutUint32(b, uint32(v))
	default:
		o.Order.PutUint64(b, v)
	}
}
