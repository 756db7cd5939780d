package probegen

import (
	"debug/elf"
	"fmt"

	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// dwarfRegister returns the fetcharg name ("%di") of DWARF register n on
// machine m, the machine of the file probed (arch.For). It wraps
// grammar.ErrNotSupported for an unknown machine or register.
func dwarfRegister(m elf.Machine, n uint64) (string, error) {
	a, ok := arch.For(m)
	if !ok {
		return "", fmt.Errorf("machine %v: %w", m, grammar.ErrNotSupported)
	}
	name, ok := a.DWARFRegister(n)
	if !ok {
		return "", fmt.Errorf("DWARF register %d on %v has no kprobe name: %w", n, m, grammar.ErrNotSupported)
	}
	return "%" + name, nil
}

// checkRawReg refuses a raw register argument ("%rax") that the kernel
// does not read on machine m, with the kernel's name for it if the user
// wrote an assembler's.
func checkRawReg(m elf.Machine, s string) error {
	a, ok := arch.For(m)
	if !ok {
		return fmt.Errorf("the kernel has no register %s on %s", s, arch.MachineName(m))
	}
	if r := reRawReg.FindStringSubmatch(s); r != nil && a.HasRegister(r[1]) {
		return nil
	}
	if hint := a.RegisterHint(s); hint != "" {
		return fmt.Errorf("the kernel has no register %s on %s; it calls it %s", s, a.Name, hint)
	}
	return fmt.Errorf("the kernel has no register %s on %s", s, a.Name)
}

// fetchRegs spells register names as fetchargs: "di" is "%di".
func fetchRegs(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "%" + n
	}
	return out
}
