package dwarfres

import "github.com/dwprobe/dwprobe/lazymatch"

// Query asks where a probe point is, in perf probe's terms. Exactly one of
// Function or File (for SRC:ALN) is the anchor.
type Query struct {
	// Function names the function: lazymatch.NewNameMatcher for a name
	// as typed (a glob lets several functions match),
	// lazymatch.ExactName for one found elsewhere. The zero value (the
	// name "") means no function.
	Function lazymatch.NameMatcher
	// File is @SRC or the SRC of SRC:ALN, matched against the
	// debuginfo's file names by lazymatch.SourceTail.
	File      string
	Line      int // relative to the function (with Function) or absolute
	HasLine   bool
	Offset    uint64
	NoInlines bool
	MaxProbes int
	// SkipPrologue moves a function-entry probe past the prologue in
	// units built without optimization, as perf does for uprobes that read
	// variables (their stack slots are only set up after it).
	SkipPrologue bool
	// LazyLines, when set, makes this a lazy-pattern query (;PTN): it
	// returns the lines of source file (as the line table names it, in a
	// unit compiled in compDir) that match the pattern.
	LazyLines func(file, compDir string) (map[int]bool, error)

	// Asked, if set, says at which probe addresses the caller will ask
	// FuncAt and ProbePointAt (a kprobe's notes): they are answered while
	// the probe's unit is decoded, not by decoding it again once a
	// thousand units have gone through the cache.
	Asked func(addr uint64) bool

	scan bool // units chosen by the scans, not the index (FindProbes' check)
}

// fn is the function name or pattern, "" if the query has none.
func (q *Query) fn() string { return q.Function.String() }

// Probe is one resolved probe address.
type Probe struct {
	Addr     uint64
	Symbol   string // ELF symbol containing Addr, as perf names it
	Offset   uint64 // Addr - symbol start
	RealName string // name of the scope DIE (the inlined function for inline sites)
	Func     string // the out-of-line function containing Addr
	InText   bool   // Symbol came from the symbol map (not DWARF)
	// Scope finds the variables reachable at Addr.
	Scope *Scope
	// PrologueOf is the function entry when SkipPrologue moved the probe.
	PrologueOf uint64
	// LeftOut, on the first probe of a FUNC:RLN or SRC:LINE line, are
	// the copies of the function (their entries) that have no code at
	// the line while others do: the compiler folded or dropped it there,
	// so the probe cannot fire in them. Named, not dropped silently.
	LeftOut []Probe
}

// ProbeError carries perf's message for a failed resolution; it wraps one
// of the package sentinels.
type ProbeError struct {
	Err  error
	Msg  string
	Hint string
}

func (e *ProbeError) Error() string {
	if e.Hint != "" {
		return e.Msg + " (" + e.Hint + ")"
	}
	return e.Msg
}
func (e *ProbeError) Unwrap() error { return e.Err }
