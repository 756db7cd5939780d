package probegen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
)

// Errors of resolution that carry their data, so that a caller can word
// what the user can do in its own terms (the option to raise, the listing
// to ask for) through their Hint fields.

// TooManyError: a point has more places (N) than ResolveOptions.MaxProbes
// (Max) allows: functions of the symbol table matching a pattern, or
// points the debuginfo gives (inlined copies, a line's places). It wraps
// dwarfres.ErrTooMany, and Err where set.
type TooManyError struct {
	Function string // the pattern
	N, Max   int
	Limit    string // how the caller names the limit; "" for "max"
	// Err is the debuginfo search's own error (a *dwarfres.ProbeError,
	// perf's wording), which Error prints; nil for the symbol table's.
	Err error
}

func (e *TooManyError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	limit := e.Limit
	if limit == "" {
		limit = "max"
	}
	return fmt.Sprintf("too many functions match %q (%d > %s %d)", e.Function, e.N, limit, e.Max)
}

func (e *TooManyError) Unwrap() []error {
	if e.Err != nil {
		return []error{dwarfres.ErrTooMany, e.Err}
	}
	return []error{dwarfres.ErrTooMany}
}

// LazyMissError: a lazy pattern matches no line with code (perf silently
// probes the function entry instead). It wraps dwarfres.ErrNotFound.
type LazyMissError struct {
	Pattern  string
	Function string // the function searched, "" for a SRC;PTN point
	File     string
	Lines    []int // the function's probeable lines, relative to it
	Hint     string
}

func (e *LazyMissError) Error() string {
	where := e.Function
	if where == "" {
		where = e.File
	}
	s := fmt.Sprintf("lazy pattern %q matches no line with code in %s", e.Pattern, where)
	if len(e.Lines) > 0 {
		ls := make([]string, len(e.Lines))
		for i, l := range e.Lines {
			ls[i] = strconv.Itoa(l)
		}
		s += "; its probeable lines are " + strings.Join(ls, " ")
	}
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

func (e *LazyMissError) Unwrap() error { return dwarfres.ErrNotFound }

// DecodeError: an instruction between a function's entry and the offset
// of a FUNC+OFFS does not decode, so whether the offset starts an
// instruction cannot be told (and the kernel's own check would refuse it
// or trust it blindly). Offsets count from the function as the user named
// it, never from a symbol the user did not name.
type DecodeError struct {
	Func   string // the function as the user wrote it
	Offset uint64 // the user's offset from it
	At     uint64 // the offset of the instruction that does not decode
	Addr   uint64 // its address
	Bytes  []byte // its first bytes (up to 8)
	Arch   string
	Err    error  // the decoder's reason, or nil
	Hint   string // what the user can do, worded by the caller
}

func (e *DecodeError) Error() string {
	s := fmt.Sprintf("%s+%d: cannot decode the %s instruction at %s+%d (%#x: % x), so whether the offset starts an instruction is unknown",
		e.Func, e.Offset, e.Arch, e.Func, e.At, e.Addr, e.Bytes)
	if e.Err != nil {
		s += " (" + e.Err.Error() + ")"
	}
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

func (e *DecodeError) Unwrap() error { return e.Err }

// PointError is a failed resolution of one probe command. Its message is
// formatted when asked for, so that a caller may still fill the Hint of an
// error it wraps.
type PointError struct {
	Spec string // the command as written
	Err  error
}

func (e *PointError) Error() string { return fmt.Sprintf("probe %q: %v", e.Spec, e.Err) }

func (e *PointError) Unwrap() error { return e.Err }

// NoCodeError reports a FUNC:RLN or SRC:ALN line without code, naming the
// nearest lines that have some. It wraps dwarfres.ErrNotFound.
type NoCodeError struct {
	Point          string // the probe point as written, quoted
	Function, File string // as the spec names them
	Line           int    // as the spec numbers it
	// Before and After are the nearest probeable lines; Spec "" when
	// there is none on that side.
	Before, After NearLine
	// Last: the line is past the function's (or file's) last probeable
	// line, which Before is.
	Last bool
	// Outside, when not "", says why --nearest does not probe Before or
	// After: the line is outside the function (past its source, or, for
	// SRC:ALN, in no function of the file), or past the file's end.
	Outside string
	// Suggested is the line offered in place of the one asked for, which
	// --nearest probes: Nearest, or when it does not resolve the other
	// of Before and After, resolved before it is offered; nil when
	// neither resolves.
	Suggested *SuggestedSpec
	Hint      string // what the user can do, in the caller's words; "" for none
}

// SuggestedSpec is a probe point offered in place of a refused one,
// resolved before it is offered.
type SuggestedSpec struct {
	NearLine
	Points int // the probe points it resolved to (at least one)
}

// NearLine is a probeable line near one without code.
type NearLine struct {
	Spec string // as a probe point: FUNC:RLN or SRC:ALN
	Line int    // numbered as the spec numbers lines
	Text string // its source, trimmed; "" when unread
}

func (e *NoCodeError) Error() string {
	s := fmt.Sprintf("probe point %s %v: no code at that line; %s", e.Point, dwarfres.ErrNotFound, e.near())
	if e.Outside != "" {
		s += "; " + e.Outside
	}
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// Nearest is the probeable line --nearest would probe: the closer of
// Before and After, After on a tie (the statement that runs next).
func (e *NoCodeError) Nearest() NearLine {
	if e.After.Spec == "" || e.Before.Spec != "" && e.Line-e.Before.Line < e.After.Line-e.Line {
		return e.Before
	}
	return e.After
}

// near words the nearest lines as perf users read them.
func (e *NoCodeError) near() string {
	if e.Last {
		what := "file"
		if e.Function != "" {
			what = "function"
		}
		last := e.Before.Spec
		if e.Before.Text != "" {
			last += " (" + e.Before.Text + ")"
		}
		return fmt.Sprintf("the %s's last probeable line is %s", what, last)
	}
	var near []string
	for _, n := range []NearLine{e.Before, e.After} {
		switch {
		case n.Spec == "":
		case n.Text != "":
			near = append(near, fmt.Sprintf("%s (%s)", n.Spec, n.Text))
		default:
			near = append(near, n.Spec)
		}
	}
	return "nearest probeable lines: " + strings.Join(near, " and ")
}

func (e *NoCodeError) Unwrap() error { return dwarfres.ErrNotFound }
