package probegen

import (
	kbtf "github.com/dwprobe/dwprobe/dwarfres/btf"
	"github.com/dwprobe/dwprobe/dwarfres/debuginfod"
	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// The sentinels and the fault guard of dwarfres's sub-packages that a
// caller of Open and Resolver meets, so that it needs only probegen and
// dwarfres: each is the sub-package's own value (errors.Is holds
// either way).
var (
	// ErrNoBTF is dwarfres/btf's: the input carries no BTF, or it
	// could not be decoded.
	ErrNoBTF = kbtf.ErrNoBTF

	// ErrFetch is dwarfres/debuginfod's: a debuginfod server gave no
	// usable file (down, slow, an HTTP error, another build's file).
	ErrFetch = debuginfod.ErrFetch
)

// GuardFault, deferred directly at the top of a command (defer
// probegen.GuardFault(&err)), turns a fault reading a mapped input (a
// file truncated under the reader) into an error, a
// *elfobj.FaultError; any other panic goes on. It is elfobj.GuardFault
// itself, so its recover runs in the deferred call.
var GuardFault = elfobj.GuardFault
