package probegen

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Functions in this package return errors that wrap one of
// these, or one of tracefs's for what the kernel's language refuses (bad
// names, definitions, a taken event name), so callers can branch with
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
	// ErrNotSupported); errors.Is matches it as well as ErrSyntax.
	Err error
}

// Error formats as `spec "vfs_read+": column 10: offset missing after '+'`.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("spec %q: column %d: %s", e.Spec, e.Col, e.Msg)
}

// Unwrap returns ErrSyntax, so errors.Is(err, ErrSyntax) holds for every
// syntax error.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// Is reports whether target is the more specific sentinel in e.Err.
func (e *SyntaxError) Is(target error) bool {
	return e.Err != nil && target == e.Err
}

// MemberError: a structure or union has no member of the name asked for.
type MemberError struct {
	Var     string   // the variable or member whose type was searched
	Type    string   // "struct file"
	Member  string   // the name asked for
	Closest []string // the type's member names nearest to Member
}

// Error formats as `f (type struct file) has no member f_nosuch; did you
// mean f_mode?`.
func (e *MemberError) Error() string {
	msg := fmt.Sprintf("%s (type %s) has no member %s", e.Var, e.Type, e.Member)
	if len(e.Closest) > 0 {
		msg += "; did you mean " + strings.Join(e.Closest, ", ") + "?"
	}
	return msg
}
