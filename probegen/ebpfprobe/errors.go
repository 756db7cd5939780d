package ebpfprobe

import (
	"errors"
	"fmt"
)

// Errors of attaching (UprobeOf, KprobeOf, Attach): each says what kind
// of point cilium/ebpf's link package cannot attach at.
var (
	// ErrTracepoint: a tracepoint probe (t:) is an event of the
	// kernel's, attached with link.Tracepoint, not at an address.
	ErrTracepoint = errors.New("a tracepoint probe is not a kprobe or uprobe")
	// ErrAbsoluteAddress: a kernel probe at an absolute address has no
	// symbol for link.Kprobe to attach at.
	ErrAbsoluteAddress = errors.New("a kernel probe at an absolute address has no symbol")
	// ErrNoFileOffset: a uprobe without a file offset in its binary.
	ErrNoFileOffset = errors.New("a uprobe without a file offset")
	// ErrKind: a probe kind this package does not attach.
	ErrKind = errors.New("probe kind not attachable")
)

// Errors of reading arguments (Generate, CollectionSpec), wrapped in an
// *ArgError naming the argument.
var (
	// ErrUnreadable: the argument is not readable at its point
	// (answer.LocUnreadable); ArgError.Reason says why.
	ErrUnreadable = errors.New("argument not readable at this point")
	// ErrKernelOnly: the argument is read by the kernel by name through
	// its BTF (answer.LocKernel), with no location a program can
	// follow.
	ErrKernelOnly = errors.New("argument read by the kernel through BTF, with no location")
	// ErrUnsupported: a plan this package does not turn into
	// instructions yet: an array of strings, or not through a load; a
	// type the kernel prints from a lookup of its own (symstr, %pd, %pD); a
	// global by file offset without the probe's (Options.FileOffset); a
	// register that is not in the context's pt_regs; an offset beyond 32
	// bits.
	ErrUnsupported = errors.New("argument location not supported")
	// ErrTooMany: more arguments than the record's fault mask has bits.
	ErrTooMany = errors.New("too many arguments for one record")
	// ErrTooLarge: a record whose last byte is past MaxRecord (long
	// strings, large arrays, many arguments, a large Options.Offset), or
	// an Options.Offset that is negative or not a multiple of 8: an
	// instruction's store offset is 16-bit and signed, and the verifier
	// would refuse the program with "invalid access to memory". A
	// *RecordSizeError wraps it.
	ErrTooLarge = errors.New("record too large for one program")
	// ErrBitfield: a bitfield whose offset and width do not fit its
	// container (BitOffset+BitWidth past its Size bytes, as the kernel's
	// parse_probe_arg refuses too), or a negative one.
	ErrBitfield = errors.New("bitfield outside its container")
)

// MaxRecord is the largest record (Layout.Size) Generate and Program
// make: one past the largest offset a BPF store instruction can hold.
const MaxRecord = 1 << 15

// RecordSizeError is a layout Generate cannot write: the record's Size,
// or the Offset it was asked to start at. It wraps ErrTooLarge.
type RecordSizeError struct {
	Size, Offset int
}

func (e *RecordSizeError) Error() string {
	if e.Offset < 0 || e.Offset%8 != 0 {
		return fmt.Sprintf("%v: buffer offset %d is not a multiple of 8 at or above 0", ErrTooLarge, e.Offset)
	}
	return fmt.Sprintf("%v: %d bytes, at most %d (store offsets are 16-bit): fewer or shorter arguments (MaxString) fit", ErrTooLarge, e.Size, MaxRecord)
}

func (e *RecordSizeError) Unwrap() error { return ErrTooLarge }

// Errors of finding the running kernel's KASLR offset (KernelOffset).
var (
	// ErrNoAnchor: no point of the kernel itself whose symbol the
	// running kernel lists, to measure the offset at: the probes were
	// resolved against another kernel's vmlinux, or only modules' points.
	ErrNoAnchor = errors.New("no kernel symbol to measure the KASLR offset at")
	// ErrHiddenAddresses: kallsyms shows every address as 0
	// (kernel.kptr_restrict, or not root): run as root, or with
	// CAP_SYSLOG where kptr_restrict is 1.
	ErrHiddenAddresses = errors.New("kallsyms hides the kernel's addresses")
)

// ArgError is an argument that Generate cannot read.
type ArgError struct {
	// Index and Name are the argument's position and name.
	Index int
	Name  string
	// Reason is the location's own reason (answer.Location.Reason, or
	// what is unsupported).
	Reason string
	// Err is one of ErrUnreadable, ErrKernelOnly, ErrUnsupported,
	// ErrBitfield.
	Err error
}

func (e *ArgError) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("argument %d (%s): %v", e.Index, e.Name, e.Err)
	}
	return fmt.Sprintf("argument %d (%s): %v: %s", e.Index, e.Name, e.Err, e.Reason)
}

func (e *ArgError) Unwrap() error { return e.Err }
