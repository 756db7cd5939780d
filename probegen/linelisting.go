package probegen

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/sources"
)

// extraLines is perf's NR_ADDITIONAL_LINES: context shown after the last
// probeable line of an open range.
const extraLines = 2

// ErrShortSource: the source file found ends before the lines debuginfo
// attributes code to (another version of the file).
var ErrShortSource = errors.New("source file is shorter than expected")

// Listing is a line range's answer, perf's show_line_range: the source
// lines of the range, probeable ones numbered.
type Listing struct {
	Function string // the function listed, "" for a SRC range
	Path     string // the source file as found, else as debuginfo names it
	Start    int    // the header's line: relative to Function, or absolute
	Found    bool   // the source was found; else Lines are the probeable ones, without text
	Tried    []string
	Lines    []ListedLine
}

// ListedLine is one line of a Listing.
type ListedLine struct {
	Num       int  // relative to the function (or absolute)
	Probeable bool // code is attributed to the line
	Text      string
	// Points, with ListLineVars, are the line's probe points: the
	// out-of-line copy and each inlined copy, with their variables.
	Points []LinePoint
}

// LinePoint is one probe point of a listed line and what a probe there
// can read: -V's answer at that address.
type LinePoint struct {
	// Addr and Point are the address and its SYMBOL+OFFS, as -D FUNC:RLN
	// writes the probe (but _text+OFFS for a kernel name that is not
	// unique, and a uprobe's file offset). Vars.Point is -V's label,
	// from the DWARF entry as perf's: on arm64, whose functions start
	// with patchable NOPs before DW_AT_low_pc, 8 less (submit_bio+100
	// for -D's submit_bio+108).
	Addr        uint64
	Point       string
	Function    string // the function whose line it is (the inlined one for an inlined copy)
	InlinedInto string // the out-of-line function holding an inlined copy, else ""
	Vars        VarList
}

// aliasShown is the name a listing of the function DWARF calls fn, found
// through the symbol asked, shows: the name asked, as perf shows it, for
// a Rust or C++ function whose symbol is not its qualified name (the
// kernel's rust_begin_unwind is kernel::panic); fn for a C alias (glibc's
// malloc is __libc_malloc, which perf does not find).
func aliasShown(asked, fn string) string {
	if dwarfres.IsScoped(fn) {
		return asked
	}
	return fn
}

// ListLines resolves a line range (ParseLineRange's syntax) against t and
// reads its lines from the source src finds (nil: where the debuginfo
// names it). A source that is not found is no error: the listing then
// holds the probeable line numbers only.
func ListLines(t *dwarfres.File, spec string, src *sources.Sources) (*Listing, error) {
	return listLines(t, spec, src, nil)
}

// ListLineVars is ListLines with each probeable line's points and the
// variables readable at each (as -V lists them), found in one walk of
// the range's units rather than one -V per line.
func ListLineVars(t *dwarfres.File, spec string, src *sources.Sources, vo VarOptions) (*Listing, error) {
	rules := vo.Filter
	if rules == "" {
		rules = DefaultVarFilter
	}
	flt, err := lazymatch.ParseFilter(rules)
	if err != nil {
		return nil, err
	}
	return listLines(t, spec, src, func(sc *dwarfres.Scope) VarList { return varsAt(sc, vo, flt.Match) })
}

// listLines is ListLines; with vars, each line's points and their variables.
func listLines(t *dwarfres.File, spec string, src *sources.Sources, vars func(*dwarfres.Scope) VarList) (*Listing, error) {
	if src == nil {
		src = &sources.Sources{}
	}
	lq, err := grammar.ParseLineRange(spec)
	if err != nil {
		return nil, err
	}
	points := vars != nil
	shown := lq.Function // the name the header shows
	lr, err := t.FindLineRange(dwarfres.LineQuery{Function: lq.Function, File: lq.File, Start: lq.Start, End: lq.End, Points: points})
	if err != nil {
		return nil, err
	}
	if lr == nil && lq.Function != "" {
		// A symbol alias (malloc): list the function it is, as -D probes it.
		if alt, ok, err := symbolAlias(t, lq.Function); err == nil && ok && alt.Offset == 0 && alt.Line == 0 {
			shown = aliasShown(lq.Function, alt.Function)
			lq.Function = alt.Function
			if lr, err = t.FindLineRange(dwarfres.LineQuery{Function: lq.Function, File: lq.File, Start: lq.Start, End: lq.End, Points: points}); err != nil {
				return nil, err
			}
		}
	}
	if lr == nil {
		return nil, &dwarfres.ProbeError{Err: dwarfres.ErrNotFound, Msg: fmt.Sprintf("line range %q: no probeable source line found", spec)}
	}
	l := &Listing{Function: shown, Path: lr.Path, Start: lr.Start - lr.Offset}
	if lq.Function == "" {
		l.Start = lr.Start
	}
	path, tried, ok := src.Find(lr.Path, lr.CompDir)
	if !ok {
		// perf gives up here; the probeable lines are still worth having.
		l.Tried = tried
		for _, n := range lr.Lines {
			l.Lines = append(l.Lines, ListedLine{Num: n - lr.Offset, Probeable: true})
		}
		addPoints(t, l, lr, vars)
		return l, nil
	}
	l.Path, l.Found = src.Shown(path), true
	fp, err := elfobj.OpenRegular(path) // not a FIFO: it would hang the run
	if err != nil {
		return nil, err
	}
	defer fp.Close()
	if l.Lines, err = readRange(bufio.NewReader(fp), lr); err != nil {
		return nil, err
	}
	addPoints(t, l, lr, vars)
	return l, nil
}

// addPoints gives each probeable line of l its points from lr, with the
// variables vars lists at each.
func addPoints(t *dwarfres.File, l *Listing, lr *dwarfres.LineRange, vars func(*dwarfres.Scope) VarList) {
	if vars == nil {
		return
	}
	for i := range l.Lines {
		ln := &l.Lines[i]
		if !ln.Probeable {
			continue
		}
		for _, p := range lr.Points[ln.Num+lr.Offset] {
			lp := LinePoint{Addr: p.Addr, Function: p.RealName, Vars: vars(p.Scope)}
			lp.Point = lp.Vars.Point
			if p.Symbol != "" {
				lp.Point = p.Symbol + "+" + strconv.FormatUint(p.Offset, 10)
				if t.IsKernel() {
					// As -D writes it: _text+OFFS for a name the
					// kernel has several of (two copies of
					// lru_gen_del_folio.constprop.0 are not alike).
					lp.Point = kernelTarget(t, p.Symbol, p.Offset, p.Addr, p.RealName, p.InText).at.Place()
				}
			}
			if p.RealName != p.Func {
				lp.InlinedInto = p.Func
			}
			ln.Points = append(ln.Points, lp)
		}
	}
}

// readRange reads the lines of lr as perf shows them: from the start to
// the last probeable line, then, for an open range, a little context.
func readRange(r *bufio.Reader, lr *dwarfres.LineRange) ([]ListedLine, error) {
	next := func() (string, bool) {
		s, err := r.ReadString('\n')
		return s, s != "" || err == nil
	}
	for l := 1; l < lr.Start; l++ {
		if _, ok := next(); !ok {
			return nil, ErrShortSource
		}
	}
	var out []ListedLine
	l := max(lr.Start, 1) // a SRC range from line 0 starts at the first line
	show := func(probeable bool) error {
		s, ok := next()
		if !ok {
			return ErrShortSource
		}
		out = append(out, ListedLine{Num: l - lr.Offset, Probeable: probeable, Text: s})
		l++
		return nil
	}
	for _, ln := range lr.Lines {
		for ln > l {
			if err := show(false); err != nil {
				return nil, err
			}
		}
		if err := show(true); err != nil {
			return nil, err
		}
	}
	end := lr.End
	if end == math.MaxInt32 {
		end = l + extraLines
	}
	for l <= end {
		if show(false) != nil {
			break // an open range's context may run past the file's end
		}
	}
	return out, nil
}
