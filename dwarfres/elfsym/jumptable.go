package elfsym

import (
	"debug/elf"
)

// jumpEntrySize is the size of a struct jump_entry with relative code and
// target (CONFIG_HAVE_ARCH_JUMP_LABEL_RELATIVE, x86_64's and arm64's):
// s32 code, s32 target, long key.
const jumpEntrySize = 16

// StaticBranchesTo lists the static branches (jump labels:
// static_branch_likely/unlikely, static_key_false/true) whose out-of-line
// block starts at target, as the addresses of their code: the NOP or JMP
// the kernel patches to enter the block when the key flips. They come
// from the kernel's table, __jump_table (between __start___jump_table and
// __stop___jump_table in a vmlinux, a section of its own, relocated, in a
// module), read once. Nil when the file has no such table.
func (im *Image) StaticBranchesTo(target uint64) []uint64 {
	return im.staticBranches()[target]
}

// staticBranches is the static branch table as target → codes, read once.
func (im *Image) staticBranches() map[uint64][]uint64 {
	im.jumpOnce.Do(func() { im.jumps = im.jumpTable() })
	return im.jumps
}

// jumpTable reads the static branch table as target → codes.
func (im *Image) jumpTable() map[uint64][]uint64 {
	o := im.obj
	if o.ELF.Class != elf.ELFCLASS64 || o.ELF.Machine != elf.EM_X86_64 && o.ELF.Machine != elf.EM_AARCH64 {
		return nil
	}
	var b []byte
	var base uint64
	if o.IsModule() {
		s := o.ELF.Section("__jump_table")
		if s == nil || s.Type == elf.SHT_NOBITS {
			return nil
		}
		sb, err := o.Section("__jump_table")
		if err != nil {
			return nil
		}
		b, base = sb, s.Addr
	} else {
		start, ok1 := im.SymbolAddr("__start___jump_table")
		stop, ok2 := im.SymbolAddr("__stop___jump_table")
		if !ok1 || !ok2 || stop <= start {
			return nil
		}
		sb, err := o.Bytes(start, stop-start)
		if err != nil {
			return nil
		}
		b, base = sb, start
	}
	return jumpEntries(b, base, o.Order.Uint32)
}

// jumpEntries decodes the jump_entry table b, at address base: each
// entry's code and target are offsets from their own fields.
func jumpEntries(b []byte, base uint64, u32 func([]byte) uint32) map[uint64][]uint64 {
	out := map[uint64][]uint64{}
	for i := 0; i+jumpEntrySize <= len(b); i += jumpEntrySize {
		at := base + uint64(i)
		code := at + uint64(int64(int32(u32(b[i:]))))
		target := at + 4 + uint64(int64(int32(u32(b[i+4:]))))
		if code == at || target == at+4 {
			continue // an entry left zero (init code dropped)
		}
		out[target] = append(out[target], code)
	}
	return out
}
