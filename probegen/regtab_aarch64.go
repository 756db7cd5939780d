package probegen

import (
	"debug/elf"
	"strconv"
)

// arm64: DWARF numbers from the AArch64 DWARF ABI (x0-x30 are 0-30, sp is
// 31); names from the kernel's arch/arm64/kernel/ptrace.c regoffset_table.
func init() {
	t := &regTable{dwarf: map[uint64]string{31: "sp"}}
	for i := 0; i <= 30; i++ {
		t.dwarf[uint64(i)] = "x" + strconv.Itoa(i)
	}
	register(elf.EM_AARCH64, t)
}
