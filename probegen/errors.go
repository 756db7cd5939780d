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
	// ErrNotSupported) or the typed error behind Msg (*MemberError,
	// *VarError); errors.Is and errors.As find it as well as ErrSyntax.
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

// VarError: no variable of the name asked for is declared where the probe
// is (its function, the blocks around the point, or the unit's globals).
type VarError struct {
	Name     string   // the name asked for
	Function string   // the function searched
	Closest  []string // the names visible there nearest to Name
}

// Error formats as `no variable "fil" in vfs_read or its unit; did you
// mean file?`.
func (e *VarError) Error() string {
	msg := fmt.Sprintf("no variable %q in %s or its unit", e.Name, e.Function)
	if len(e.Closest) > 0 {
		msg += "; did you mean " + strings.Join(e.Closest, ", ") + "?"
	}
	return msg
}
