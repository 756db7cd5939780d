package locate

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors; dwarfres re-exports them under the same names.
var (
	// ErrNoDebugInfo: no debuginfo was found for a binary.
	ErrNoDebugInfo = errors.New("no DWARF debuginfo")
	// ErrDebugLinkCRC: the file a .gnu_debuglink names has another CRC-32
	// than the link records.
	ErrDebugLinkCRC = errors.New("debuglink CRC mismatch")
	// ErrModuleNotFound: no module of that name for the kernel release.
	ErrModuleNotFound = errors.New("module not found")
)

// NotFoundError reports that no debuginfo was found; it wraps
// ErrNoDebugInfo. Path is the binary (empty when no vmlinux was found for
// the kernel Release) and Tried every place looked at, in order (empty
// for a stripped binary without a build-id to look by). The command words
// it for the user; Error is the plain form.
type NotFoundError struct {
	Path    string
	Release string
	Tried   []string
}

func (e *NotFoundError) Error() string {
	what := e.Path
	if what == "" {
		what = "kernel " + e.Release
	}
	if len(e.Tried) == 0 {
		return fmt.Sprintf("%s: %v", what, ErrNoDebugInfo)
	}
	return fmt.Sprintf("%s: %v; tried %s", what, ErrNoDebugInfo, strings.Join(e.Tried, ", "))
}

func (e *NotFoundError) Unwrap() error { return ErrNoDebugInfo }
