package grammar

import (
	"errors"
	"fmt"
)

// Sentinel errors of the grammar and of event naming; callers branch with
// errors.Is without parsing messages.
var (
	// ErrSyntax is wrapped by every *SyntaxError: the probe command does not
	// follow the perf probe grammar (or breaks one of its exclusion rules).
	ErrSyntax = errors.New("syntax error")

	// ErrTooManyEvents is returned by Namer when name_1 ... name_1023 are all
	// taken (perf's MAX_EVENT_INDEX).
	ErrTooManyEvents = errors.New("too many events with the same name")

	// ErrNotSupported marks valid perf syntax that dwprobe does not
	// implement, or that the kernel cannot express (an SDT operand).
	ErrNotSupported = errors.New("not supported")
)

// SyntaxError describes a problem in a probe command, with the 1-based
// (byte) column where it was found so the CLI can point at it.
type SyntaxError struct {
	Spec string // the whole text that was parsed
	Col  int    // 1-based byte column in Spec; len(Spec)+1 means "at the end"
	Msg  string // lowercase, no trailing period

	// Detail holds internals (a DIE offset) for a verbose run, not part
	// of Error().
	Detail string

	// Err optionally names a more specific sentinel (tracefs's
	// ErrBadEventName, ErrBadGroupName, ErrBadArgName or ErrBadDefinition,
	// ErrNotSupported) or the typed error behind Msg
	// (probegen's *MemberError, *VarError); errors.Is and errors.As find
	// it as well as ErrSyntax.
	Err error
}

// Error formats as `spec "vfs_read+": column 10: offset missing after '+'`.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("spec %q: column %d: %s", e.Spec, e.Col, e.Msg)
}

// Unwrap returns ErrSyntax, so errors.Is(err, ErrSyntax) holds for every
// syntax error, and Err where there is one.
func (e *SyntaxError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrSyntax}
	}
	return []error{ErrSyntax, e.Err}
}
