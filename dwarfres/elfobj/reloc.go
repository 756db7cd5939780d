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
	size int  // bytes written: 1, 2, 4 or 8
	pc   bool // PC-relative: S + A - P
	op   relocOp
}

// relocOp is what a relocation does with the bytes in place.
type relocOp uint8

const (
	relocSet  relocOp = iota // write the value
	relocAdd                 // add it to what is there (riscv's ADD*)
	relocSub                 // subtract it (SUB*)
	relocSet6                // write its low 6 bits into the byte's (SET6)
	relocSub6                // subtract it from the byte's low 6 bits (SUB6)
)

// relocKinds are the types debug sections use, per machine; others are
// refused rather than read wrong.
var relocKinds = map[elf.Machine]map[uint32]relocKind{
	elf.EM_X86_64: {
		uint32(elf.R_X86_64_64):   {8, false, relocSet},
		uint32(elf.R_X86_64_32):   {4, false, relocSet},
		uint32(elf.R_X86_64_32S):  {4, false, relocSet},
		uint32(elf.R_X86_64_PC32): {4, true, relocSet},
		uint32(elf.R_X86_64_PC64): {8, true, relocSet},
	},
	elf.EM_AARCH64: {
		uint32(elf.R_AARCH64_ABS64):  {8, false, relocSet},
		uint32(elf.R_AARCH64_ABS32):  {4, false, relocSet},
		uint32(elf.R_AARCH64_ABS16):  {2, false, relocSet},
		uint32(elf.R_AARCH64_PREL64): {8, true, relocSet},
		uint32(elf.R_AARCH64_PREL32): {4, true, relocSet},
		uint32(elf.R_AARCH64_PREL16): {2, true, relocSet},
	},
	elf.EM_PPC64: {
		uint32(elf.R_PPC64_ADDR64): {8, false, relocSet},
		uint32(elf.R_PPC64_ADDR32): {4, false, relocSet},
		uint32(elf.R_PPC64_ADDR16): {2, false, relocSet},
		uint32(elf.R_PPC64_REL64):  {8, true, relocSet},
		uint32(elf.R_PPC64_REL32):  {4, true, relocSet},
	},
	elf.EM_S390: {
		uint32(elf.R_390_64):   {8, false, relocSet},
		uint32(elf.R_390_32):   {4, false, relocSet},
		uint32(elf.R_390_16):   {2, false, relocSet},
		uint32(elf.R_390_PC64): {8, true, relocSet},
		uint32(elf.R_390_PC32): {4, true, relocSet},
		uint32(elf.R_390_PC16): {2, true, relocSet},
	},
	// riscv assemblers leave a difference of two labels (a DW_AT_high_pc,
	// a line table's advance, a CFA advance_loc's 6-bit delta) to the
	// linker as an ADD/SUB pair, even with -mno-relax: Debian's 6.12
	// riscv64 modules have them in every debug section.
	elf.EM_RISCV: {
		uint32(elf.R_RISCV_64):       {8, false, relocSet},
		uint32(elf.R_RISCV_32):       {4, false, relocSet},
		uint32(elf.R_RISCV_32_PCREL): {4, true, relocSet},
		uint32(elf.R_RISCV_SET8):     {1, false, relocSet},
		uint32(elf.R_RISCV_SET16):    {2, false, relocSet},
		uint32(elf.R_RISCV_SET32):    {4, false, relocSet},
		uint32(elf.R_RISCV_ADD8):     {1, false, relocAdd},
		uint32(elf.R_RISCV_ADD16):    {2, false, relocAdd},
		uint32(elf.R_RISCV_ADD32):    {4, false, relocAdd},
		uint32(elf.R_RISCV_ADD64):    {8, false, relocAdd},
		uint32(elf.R_RISCV_SUB8):     {1, false, relocSub},
		uint32(elf.R_RISCV_SUB16):    {2, false, relocSub},
		uint32(elf.R_RISCV_SUB32):    {4, false, relocSub},
		uint32(elf.R_RISCV_SUB64):    {8, false, relocSub},
		uint32(elf.R_RISCV_SET6):     {1, false, relocSet6},
		uint32(elf.R_RISCV_SUB6):     {1, false, relocSub6},
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
		o.apply(out[off:], k, k.value(s.Value, addend, dst.Addr+off))
	}
	return nil
}

// apply writes v into b as k does: in place, or into what is there.
func (o *Object) apply(b []byte, k relocKind, v uint64) {
	switch k.op {
	case relocAdd:
		o.writeUint(b, k.size, o.readUint(b, k.size)+v)
	case relocSub:
		o.writeUint(b, k.size, o.readUint(b, k.size)-v)
	case relocSet6:
		b[0] = b[0]&0xc0 | byte(v)&0x3f
	case relocSub6:
		b[0] = b[0]&0xc0 | (b[0]-byte(v))&0x3f
	default:
		o.writeUint(b, k.size, v)
	}
}

func (o *Object) readUint(b []byte, size int) uint64 {
	switch size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(o.Order.Uint16(b))
	case 4:
		return uint64(o.Order.Uint32(b))
	default:
		return o.Order.Uint64(b)
	}
}

func (o *Object) writeUint(b []byte, size int, v uint64) {
	switch size {
	case 1:
		b[0] = byte(v)
	case 2:
		o.Order.PutUint16(b, uint16(v))
	case 4:
		o.Order.PutUint32(b, uint32(v))
	default:
		o.Order.PutUint64(b, v)
	}
}
