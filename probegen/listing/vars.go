package listing

import (
	"debug/dwarf"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/internal/ctype"
)

// DefaultVarFilter is perf 6.1's filter for variable listings.
const DefaultVarFilter = "!__k???tab_* & !__crc_*"

// VarOptions are the options of perf's variable listing (-V).
type VarOptions struct {
	Externs bool   // --externs: the unit's global variables too
	Ranges  bool   // --range: [VAL]/[INV]/[EXT] and location ranges
	Filter  string // --filter rules on variable names; "" for DefaultVarFilter
}

// VarList is the -V answer for one probe address.
type VarList struct {
	Point string   // "vfs_read+114", as perf's @<...> label
	Lines []string // perf's "TYPE\tNAME" lines (with --range, prefixed and suffixed), sorted
	// Missing names the parameters and variables in scope that have no
	// usable location at this address (perf leaves them out silently).
	Missing []string
	// Unreadable are the variables in scope whose location a probe cannot
	// read (an operation a fetcharg cannot do, such as DW_OP_and): left
	// out of Lines, where perf, which looks at the first operation only,
	// may list them.
	Unreadable []UnreadableVar
}

// UnreadableVar is a variable left out of a -V listing, with the reason
// (an error wrapping dwarfres.ErrLocation or another location error).
type UnreadableVar struct {
	Name string
	Err  error
}

// PerfPoint renders a point as perf's synthesize_perf_probe_point does, for
// the "Available variables at" header.
func PerfPoint(p *grammar.Point) string {
	var b strings.Builder
	if p.Function != "" {
		b.WriteString(p.Function)
		switch {
		case p.Offset != 0:
			fmt.Fprintf(&b, "+%d", p.Offset)
		case p.Line != 0:
			fmt.Fprintf(&b, ":%d", p.Line)
		case p.Return:
			b.WriteString("%return")
		}
	}
	if p.File != "" {
		f := p.File
		if len(f) > 30 {
			tail := f[len(f)-30:]
			if i := strings.IndexByte(tail, '/'); i >= 0 {
				f = tail[i+1:]
			} else {
				f = tail
			}
		}
		b.WriteString("@" + f)
		if p.Function == "" && p.Line != 0 {
			fmt.Fprintf(&b, ":%d", p.Line)
		}
	}
	return b.String()
}

// Vars lists the variables a probe can read at an address (-V's answer
// there), with one VarOptions and its filter parsed once.
type Vars struct {
	vo    VarOptions
	match func(string) bool
}

// NewVars parses vo's filter rules ("" for DefaultVarFilter).
func NewVars(vo VarOptions) (*Vars, error) {
	rules := vo.Filter
	if rules == "" {
		rules = DefaultVarFilter
	}
	flt, err := lazymatch.ParseFilter(rules)
	if err != nil {
		return nil, err
	}
	return &Vars{vo: vo, match: flt.Match}, nil
}

// At is the -V answer at sc's address: perf's lines, sorted, and the
// variables left out, by reason.
func (v *Vars) At(sc *dwarfres.Scope) VarList {
	return varsAt(sc, v.vo, v.match)
}

// varsAt is the -V answer at one address: perf's lines, sorted, and the
// variables left out, by reason.
func varsAt(sc *dwarfres.Scope, vo VarOptions, match func(string) bool) VarList {
	vl := VarList{Point: varsLabel(sc)}
	seen := map[string]bool{}
	for _, a := range sc.Available(vo.Externs) {
		name := a.Var.Name()
		if name == "" {
			continue
		}
		inv := false
		if a.Err != nil {
			// perf's --range shows local variables without a location
			// here as [INV]; everything else without one is left out.
			inv = vo.Ranges && !a.External && a.Var.Tag() == dwarf.TagVariable && errors.Is(a.Err, dwarfres.ErrNoLocation) && sc.LocatedLater(a.Var)
			if !inv {
				vl.leaveOut(name, a)
				continue
			}
		}
		if vo.Ranges && !a.External && !a.Var.HasLocation() {
			// perf's die_get_var_range fails on a variable without
			// DW_AT_location (a constant), and --range drops it.
			continue
		}
		line := varLine(sc, a, inv, vo.Ranges)
		// perf filters on the text after the first tab: the name, or
		// with --range the type, name and range.
		if !match(line[strings.IndexByte(line, '\t')+1:]) {
			continue
		}
		if !seen[line] {
			seen[line] = true
			vl.Lines = append(vl.Lines, line)
		}
	}
	slices.Sort(vl.Lines)
	return vl
}

// varsLabel is perf's @<SYMBOL+OFFS> for the scope's address
// (convert_to_trace_point): from the DWARF function's entry when it has
// one; else, its code being split into ranges (print_cpu and its
// print_cpu.cold part), from the symbol covering the address, as -D names
// it: print_cpu.cold+259, not print_cpu+11802835 from the first range.
func varsLabel(sc *dwarfres.Scope) string {
	if entry, ok := sc.FuncEntryPC(); ok {
		return sc.Func() + "+" + strconv.FormatUint(sc.Addr-entry, 10)
	}
	if s, ok := sc.File().Symbols().At(sc.Addr); ok {
		return s.Name + "+" + strconv.FormatUint(sc.Addr-s.Start, 10)
	}
	entry, _ := sc.FuncEntry()
	return sc.Func() + "+" + strconv.FormatUint(sc.Addr-entry, 10)
}

// leaveOut records why variable name, whose location a.Err refused, is not
// listed: optimized out here (Missing) or unreadable by a probe.
func (vl *VarList) leaveOut(name string, a dwarfres.Avail) {
	switch {
	case !errors.Is(a.Err, dwarfres.ErrNoLocation):
		vl.Unreadable = append(vl.Unreadable, UnreadableVar{name, a.Err})
	case !a.External:
		vl.Missing = append(vl.Missing, name)
	}
}

// varLine is perf's "TYPE\tNAME" line for a, with --range's [VAL], [INV]
// or [EXT] prefix and location ranges.
func varLine(sc *dwarfres.Scope, a dwarfres.Avail, inv, ranges bool) string {
	typ, ok := ctype.Name(ctype.FromDWARF(a.Var))
	if !ok {
		typ = "(unknown_type)"
	}
	line := typ + "\t" + a.Var.Name()
	if !ranges {
		return line
	}
	switch {
	case a.External:
		return "[EXT]\t" + line
	case inv:
		line = "[INV]\t" + line
	default:
		line = "[VAL]\t" + line
	}
	if r := sc.PerfRanges(a.Var); r != "" {
		line += "\t" + r
	}
	return line
}
