package elfsym

import (
	"cmp"
	"debug/elf"
	"slices"
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
	t := im.staticBranches()
	i, _ := slices.BinarySearchFunc(t.byTarget, target, func(e jumpEntry, a uint64) int { return cmp.Compare(e.target, a) })
	var codes []uint64
	for ; i < len(t.byTarget) && t.byTarget[i].target == target; i++ {
		codes = append(codes, t.byTarget[i].code)
	}
	return codes
}

// jumpEntry is one static branch: the instruction the kernel patches and
// the start of its out-of-line block.
type jumpEntry struct{ code, target uint64 }

// jumpTable is the static branch table, sorted both ways: a vmlinux has
// about 40k entries, and maps of them cost a line query 2 ms to build.
type jumpTable struct {
	byCode, byTarget []jumpEntry
}

// staticBranches is the static branch table, read once.
func (im *Image) staticBranches() *jumpTable {
	im.jumpOnce.Do(func() {
		es := im.jumpEntries()
		byCode := slices.Clone(es)
		slices.SortFunc(byCode, func(a, b jumpEntry) int { return cmp.Compare(a.code, b.code) })
		// Stable: a target's codes in table order.
		slices.SortStableFunc(es, func(a, b jumpEntry) int { return cmp.Compare(a.target, b.target) })
		im.jumps = &jumpTable{byCode: byCode, byTarget: es}
	})
	return im.jumps
}

// StaticBranchAt reports whether code is a static branch's code, the
// instruction the kernel patches (a kprobe there is refused:
// jump_label_text_reserved), with the start of its out-of-line block and
// the instruction's size: the run goes on at code+size while the key is
// off, at target while it is on. ok is false for any other address, and
// for a static branch whose instruction is not one the kernel writes
// (x86: the 2- and 5-byte NOPs and JMPs; arm64: 4 bytes).
func (im *Image) StaticBranchAt(code uint64) (target, size uint64, ok bool) {
	t := im.staticBranches()
	i, found := slices.BinarySearchFunc(t.byCode, code, func(e jumpEntry, c uint64) int { return cmp.Compare(e.code, c) })
	if !found {
		return 0, 0, false
	}
	target = t.byCode[i].target
	switch im.obj.ELF.Machine {
	case elf.EM_AARCH64:
		return target, 4, true
	case elf.EM_X86_64:
		b, err := im.obj.Bytes(code, 5)
		if err != nil {
			return 0, 0, false
		}
		if n := x86JumpSize(b); n > 0 {
			return target, n, true
		}
	}
	return 0, 0, false
}

// x86JumpSize is the size of the static branch instruction b starts
// with, as x86's jump_label writes them (arch/x86/kernel/jump_label.c:
// JMP8/JMP32 or the NOP of the same size), 0 for anything else.
func x86JumpSize(b []byte) uint64 {
	switch {
	case len(b) >= 2 && (b[0] == 0xeb || b[0] == 0x66 && b[1] == 0x90):
		return 2
	case len(b) >= 5 && (b[0] == 0xe9 || b[0] == 0x0f && b[1] == 0x1f && b[2] == 0x44 && b[3] == 0 && b[4] == 0):
		return 5
	}
	return 0
}

// jumpEntries reads the static branch table, in its order.
func (im *Image) jumpEntries() []jumpEntry {
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
		// The linker's NOTYPE bounds: an index answers them by binary
		// search (TestAddrOfLinkerBounds), the table by a scan.
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
func jumpEntries(b []byte, base uint64, u32 func([]byte) uint32) []jumpEntry {
	out := make([]jumpEntry, 0, len(b)/jumpEntrySize)
	for i := 0; i+jumpEntrySize <= len(b); i += jumpEntrySize {
		at := base + uint64(i)
		code := at + uint64(int64(int32(u32(b[i:]))))
		target := at + 4 + uint64(int64(int32(u32(b[i+4:]))))
		if code == at || target == at+4 {
			continue // an entry left zero (init code dropped)
		}
		out = append(out, jumpEntry{code, target})
	}
	return out
}
