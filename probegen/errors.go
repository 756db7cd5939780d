// Package probegen parses perf probe 6.1 probe commands, names the events
// the way perf does, and builds kprobe_events / uprobe_events lines.
//
// Nothing here touches the system: every function is pure, so the grammar
// and the naming rules can be tested exhaustively without tracefs.
package probegen

import (
	"errors"
	"fmt"
)

// Sentinel errors. Functions in this package return errors that wrap one of
// these, so callers can branch with errors.Is without parsing messages.
var (
	// ErrSyntax is wrapped by every *SyntaxError: the probe command does not
	// follow the perf probe grammar (or breaks one of its exclusion rules).
	ErrSyntax = errors.New("syntax error")

	// ErrBadEventName reports an event name that the kernel would refuse:
	// empty, 64 bytes or longer, or not a C identifier.
	ErrBadEventName = errors.New("bad event name")

	// ErrBadGroupName reports a group name that perf would refuse:
	// empty, 64 bytes or longer, or not a C identifier.
	ErrBadGroupName = errors.New("bad group name")

	// ErrBadArgName reports an argument NAME= that the kernel would refuse:
	// not a C identifier, longer than 32 bytes, reserved or duplicated.
	ErrBadArgName = errors.New("bad argument name")

	// ErrEventExists is returned by Namer when the wanted name is taken and
	// no numeric suffix may be added (perf's "event already exists",
	// overridden by perf probe -f).
	ErrEventExists = errors.New("event already exists")

	// ErrTooManyEvents is returned by Namer when name_1 ... name_1023 are all
	// taken (perf's MAX_EVENT_INDEX).
	ErrTooManyEvents = errors.New("too many events with the same name")

	// ErrNotSupported marks valid perf syntax that dwprobe does not
	// implement, such as SDT and cached events (%[PROVIDER:]EVENT).
	ErrNotSupported = errors.New("not supported")

	// ErrBadDefinition reports a kprobe_events / uprobe_events line that the
	// kernel would reject or misread (whitespace inside a field, a '#' that
	// starts a comment, a newline that starts a new command, ...).
	ErrBadDefinition = errors.New("bad probe definition")
)

// SyntaxError describes a problem in a probe command, with the 1-based
// (byte) column where it was found so the CLI can point at it.
type SyntaxError struct {
	Spec string // the whole text that was parsed
	Col  int    // 1-based byte column in Spec; len(Spec)+1 means "at the end"
	Msg  string // lowercase, no trailing period

	// Err optionally names a more specific sentinel (ErrBadEventName,
	// ErrBadGroupName, ErrBadArgName, ErrNotSupported); errors.Is matches it
	// as well as ErrSyntax.
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
