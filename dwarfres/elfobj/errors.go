package elfobj

import (
	"errors"
	"fmt"
)

// Sentinel errors; dwarfres re-exports them under the same names.
var (
	// ErrNotELF: the input is not an ELF file (or not a regular file).
	ErrNotELF = errors.New("not an ELF file")
	// ErrMalformed: the input could not be decoded; the concrete error
	// is a *DecodeError naming section and offset.
	ErrMalformed = errors.New("malformed debuginfo")
	// ErrNotFound: what was asked for (an address, a symbol) is not there.
	ErrNotFound = errors.New("not found")
	// ErrCompressed: a compressed file (a .ko.xz, .ko.zst, .ko.gz module)
	// does not decompress: truncated or corrupt.
	ErrCompressed = errors.New("corrupt compressed file")
	// ErrExpandBound: a compressed file expands past the bound dwprobe
	// sets against decompression bombs (an *ExpandError says which); it
	// need not be corrupt.
	ErrExpandBound = errors.New("expands past dwprobe's bound for compressed files")
	// ErrBuildIDMismatch: a file was found whose build-id is not the one
	// wanted (separate debuginfo of another build, a wrong download).
	ErrBuildIDMismatch = errors.New("debuginfo build-id mismatch")
)

// DecodeError reports malformed input: which section, at which offset,
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
