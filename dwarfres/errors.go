package dwarfres

import (
	"errors"
	"fmt"

	"github.com/dwprobe/dwprobe/dwarfres/locate"
)

// Sentinel errors. Functions document which of these the errors they return
// wrap; test with errors.Is.
var (
	// ErrNotELF: the input is not an ELF file (or not a regular file).
	ErrNotELF = errors.New("not an ELF file")
	// ErrNoDebugInfo: the ELF has no .debug_info (stripped, or debuginfo
	// lives in a separate file that was not found).
	ErrNoDebugInfo = locate.ErrNoDebugInfo
	// ErrMalformed: the debuginfo could not be decoded; the concrete error
	// is a *DecodeError naming section and offset.
	ErrMalformed = errors.New("malformed debuginfo")
	// ErrNotFound: the function, file or line asked for does not exist.
	ErrNotFound = errors.New("not found")
	// ErrNoCode: the source line exists but no instruction is attributed
	// to it.
	ErrNoCode = errors.New("no code at line")
	// ErrOutOfRange: an offset lies outside the function.
	ErrOutOfRange = errors.New("offset out of function")
	// ErrInlineReturn: a return probe was asked for on an inlined
	// instance, which has no return point.
	ErrInlineReturn = errors.New("inlined function has no return point")
	// ErrAmbiguous: a source file name matches several different files.
	ErrAmbiguous = errors.New("ambiguous source file")
	// ErrTooMany: a query matched more probe points than allowed.
	ErrTooMany = errors.New("too many probe points")
	// ErrSharedLine: the line shares its address with another line, so a
	// probe there would really be on that other line.
	ErrSharedLine = errors.New("line shares its address with another line")
	// ErrCompressed: a compressed file (a .ko.xz, .ko.zst, .ko.gz module)
	// does not decompress: truncated or corrupt.
	ErrCompressed = errors.New("corrupt compressed file")
	// ErrModuleNotFound: no module of that name for the kernel release.
	ErrModuleNotFound = locate.ErrModuleNotFound
	// ErrRelease: a module was built for another kernel release than the
	// kernel it is probed with.
	ErrRelease = errors.New("module built for another kernel release")
	// ErrBuildIDMismatch: a separate debuginfo file was found whose
	// build-id is not the binary's.
	ErrBuildIDMismatch = errors.New("debuginfo build-id mismatch")
	// ErrDebugLinkCRC: the file a .gnu_debuglink names has another CRC-32
	// than the link records.
	ErrDebugLinkCRC = locate.ErrDebugLinkCRC
)

// DecodeError reports malformed debuginfo: which section, at which offset,
// and what was wrong. It wraps ErrMalformed.
type DecodeError struct {
	Section string
	Offset  uint64
	Msg     string
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("malformed %s at offset %#x: %s", e.Section, e.Offset, e.Msg)
}

func (e *DecodeError) Unwrap() error { return ErrMalformed }
