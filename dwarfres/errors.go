package dwarfres

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"

	"github.com/dwprobe/dwprobe/dwarfres/locate"
)

// Sentinel errors. Functions document which of these the errors they return
// wrap; test with errors.Is.
var (
	// ErrNotELF: the input is not an ELF file (or not a regular file).
	ErrNotELF = elfobj.ErrNotELF
	// ErrNoDebugInfo: the ELF has no .debug_info (stripped, or debuginfo
	// lives in a separate file that was not found).
	ErrNoDebugInfo = locate.ErrNoDebugInfo
	// ErrMalformed: the debuginfo could not be decoded; the concrete error
	// is a *DecodeError naming section and offset.
	ErrMalformed = elfobj.ErrMalformed
	// ErrNotFound: the function, file or line asked for does not exist.
	ErrNotFound = elfobj.ErrNotFound
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
	ErrCompressed = elfobj.ErrCompressed
	// ErrExpandBound: a compressed file expands past the bound set
	// against decompression bombs (an *ExpandError); it need not be
	// corrupt.
	ErrExpandBound = elfobj.ErrExpandBound
	// ErrModuleNotFound: no module of that name for the kernel release.
	ErrModuleNotFound = locate.ErrModuleNotFound
	// ErrRelease: a module was built for another kernel release than the
	// kernel it is probed with.
	ErrRelease = errors.New("module built for another kernel release")
	// ErrBuildIDMismatch: a separate debuginfo file was found whose
	// build-id is not the binary's.
	ErrBuildIDMismatch = elfobj.ErrBuildIDMismatch
	// ErrDebugLinkCRC: the file a .gnu_debuglink names has another CRC-32
	// than the link records.
	ErrDebugLinkCRC = locate.ErrDebugLinkCRC
)

// DecodeError reports malformed debuginfo: which section, at which offset,
// and what was wrong. It wraps ErrMalformed.
type DecodeError = elfobj.DecodeError

// CompressedError reports a compressed file that does not decompress
// (truncated, corrupt, or larger than MaxDecompressed); it wraps
// ErrCompressed.
type CompressedError = elfobj.CompressedError

// ExpandError reports a compressed file expanding past the bound set
// against decompression bombs; it wraps ErrExpandBound.
type ExpandError = elfobj.ExpandError

// MaxDecompressed bounds what a compressed file may expand to.
const MaxDecompressed = elfobj.MaxDecompressed

// nameMalformed names f's DWARF file in a malformed-debuginfo error that
// names none ("malformed .debug_info at offset 0x3132e58" of a vmlinux):
// the public queries defer it, so that an error says of which file its
// offset is. One that names the file already (a section that does not
// decompress) is left as it is.
func (f *File) nameMalformed(err *error) {
	if *err == nil || !errors.Is(*err, ErrMalformed) {
		return
	}
	p := f.dwarfFile().Path
	if strings.Contains((*err).Error(), p) {
		return
	}
	*err = fmt.Errorf("%s: %w", p, *err)
}
