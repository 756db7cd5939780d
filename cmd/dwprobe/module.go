package main

import (
	"fmt"

	"github.com/dwprobe/dwprobe/dwarfres"
)

// openModule opens the kernel module at path (-m PATH) with its
// debuginfo: its own DWARF, or separate debuginfo found by build-id as for
// -x. A file that is not a relocatable object (a vmlinux, a program) is
// refused: its definitions would not name a module.
func openModule(path string) (*dwarfres.File, error) {
	f, err := newLocator().Open(path)
	if err != nil {
		return nil, err
	}
	if !f.IsModule() {
		f.Close()
		return nil, fmt.Errorf("%s: %w: not a kernel module (ELF type %v, not a relocatable object)", path, dwarfres.ErrNotELF, f.ELF.Type)
	}
	return f, nil
}
