package listing

import (
	"bufio"
	"errors"
	"math"
	"strconv"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
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
	// Points, when List is given vars, are the line's probe points: the
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

// Range is a line range found in a target's debuginfo: what a Listing
// lists. probegen finds it from the spec with the resolver's rules (a
// symbol alias such as glibc's malloc is listed as the function it is).
type Range struct {
	Function string // the name the header shows; "" for a SRC range
	Lines    *dwarfres.LineRange
}

// List lists r's lines, read from the source src finds (nil: where the
// debuginfo names it). A source that is not found is no error: the
// listing then holds the probeable line numbers only. With vars, each
// probeable line has its points and the variables vars lists at each (as
// -V lists them), found in one walk of the range's units rather than one
// -V per line; place, when not nil, writes a point as -D writes its
// probe (the resolver's rule for a kernel name that is not unique), else
// it is SYMBOL+OFFS.
func List(r Range, src *sources.Sources, vars *Vars, place func(dwarfres.Probe) string) (*Listing, error) {
	if src == nil {
		src = &sources.Sources{}
	}
	lr := r.Lines
	l := &Listing{Function: r.Function, Path: lr.Path, Start: lr.Start - lr.Offset}
	if r.Function == "" {
		l.Start = lr.Start
	}
	path, tried, ok := src.Find(lr.Path, lr.CompDir)
	if !ok {
		// perf gives up here; the probeable lines are still worth having.
		l.Tried = tried
		for _, n := range lr.Lines {
			l.Lines = append(l.Lines, ListedLine{Num: n - lr.Offset, Probeable: true})
		}
		addPoints(l, lr, vars, place)
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
	addPoints(l, lr, vars, place)
	return l, nil
}

// addPoints gives each probeable line of l its points from lr, with the
// variables vars lists at each, written by place (nil: SYMBOL+OFFS).
func addPoints(l *Listing, lr *dwarfres.LineRange, vars *Vars, place func(dwarfres.Probe) string) {
	if vars == nil {
		return
	}
	for i := range l.Lines {
		ln := &l.Lines[i]
		if !ln.Probeable {
			continue
		}
		for _, p := range lr.Points[ln.Num+lr.Offset] {
			lp := LinePoint{Addr: p.Addr, Function: p.RealName, Vars: vars.At(p.Scope)}
			lp.Point = lp.Vars.Point
			if p.Symbol != "" {
				lp.Point = p.Symbol + "+" + strconv.FormatUint(p.Offset, 10)
				if place != nil {
					lp.Point = place(p)
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
