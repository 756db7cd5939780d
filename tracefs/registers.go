package tracefs

import (
	"debug/elf"

	"github.com/dwprobe/dwprobe/probegen/arch"
)

// MachineName is the kernel's name of machine m: "x86_64", "arm64" (the
// registers themselves are probegen/arch's).
func MachineName(m elf.Machine) string { return arch.MachineName(m) }
