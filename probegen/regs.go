package probegen

import (
	"debug/elf"
	"fmt"
)

// regTable maps DWARF register numbers of one architecture to the names
// kprobe fetchargs use (without the '%'); which names the kernel accepts
// is tracefs's (HasRegister).
type regTable struct {
	dwarf map[uint64]string
}

// regTables is keyed by the ELF machine of the file being probed, never by
// the host: an x86_64 build machine writes arm64 definitions for an arm64
// vmlinux.
var regTables = map[elf.Machine]*regTable{}

func register(m elf.Machine, t *regTable) { regTables[m] = t }

// dwarfRegister returns the fetcharg name ("%di") of DWARF register n on
// machine m. It wraps ErrNotSupported for an unknown machine or register.
func dwarfRegister(m elf.Machine, n uint64) (string, error) {
	t, ok := regTables[m]
	if !ok {
		return "", fmt.Errorf("machine %v: %w", m, ErrNotSupported)
	}
	name, ok := t.dwarf[n]
	if !ok {
		return "", fmt.Errorf("DWARF register %d on %v has no kprobe name: %w", n, m, ErrNotSupported)
	}
	return "%" + name, nil
}
