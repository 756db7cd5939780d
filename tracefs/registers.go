package tracefs

import (
	"debug/elf"

	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// MachineName is the kernel's name of machine m: "x86_64", "arm64" (the
// registers themselves are tracefs/arch's).
func MachineName(m elf.Machine) string { return arch.MachineName(m) }
