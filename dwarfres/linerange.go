package dwarfres

import (
	"errors"
	"math"
	"slices"
	"sort"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"

	"github.com/dwprobe/dwprobe/lazymatch"
)

// LineQuery asks which lines of a range can be probed, as perf probe -L.
type LineQuery struct {
	Function string
	File     string // matched as Query.File
	Start    int    // relative to the function with Function, else absolute
	End      int    // inclusive; math.MaxInt32 for "to the end"
	// Points asks for each line's probe points (LineRange.Points), found
	// in the same walk: what -D would probe at the line, with its scope.
	Points bool
}

// LineRange is the answer: the probeable lines in [Start, End].
type LineRange struct {
	Path    string // source file as the line table names it
	CompDir string
	Offset  int // the function's declaration line (0 for SRC ranges)
	Start   int // absolute
	End     int // absolute, inclusive (MaxInt32 when open)
	Lines   []int
	// Points, when asked for, are each line's probe points (one per
	// address: the out-of-line copy and each inlined copy), in walk order.
	Points map[int][]Probe
	// Extent, for a function, is the last line its source can hold,
	// absolute: the line before the next function the unit defines in
	// its file (C), else MaxInt32. --nearest looks no further.
	Extent int
	// Funcs, for a source range of a C unit, are the extents of the
	// functions of the file it meets: a line is nearest to lines of its
	// own function only.
	Funcs []FuncExtent
}

// FuncExtent is the span of source lines a function can hold: from its
// declaration to the line before the next function's (MaxInt32 for the
// last of its file).
type FuncExtent struct {
	Decl, End int
}

// FindLineRange is perf's debuginfo__find_line_range, but over every
// unit: perf answers from the first unit that has the function (or names
// the file). The other units defining the function (a header's static
// inline, fsnotify_access, memcmp), or naming the file (a header's
// functions are inlined into many units, each unit's copies holding the
// lines it uses: include/linux/fsnotify.h:383-400 of 6.12), add the lines
// their copies have, as -D FUNC:RLN and -D SRC:LINE probe every unit's
// copies.
func (f *File) FindLineRange(q LineQuery) (lr *LineRange, err error) {
	defer f.nameMalformed(&err)
	defer elfobj.Guard(&err, f.Path)
	fq := Query{Function: lazymatch.ExactName(q.Function), File: q.File}
	lr, err = f.findLineRange(q, fq)
	// Nothing found, or a file the index's names make ambiguous: the
	// index's answer is confirmed by the scan (see indexMissed).
	if lr == nil && (err == nil || errors.Is(err, ErrAmbiguous) && q.Function == "") && f.indexMissed(fq) {
		fq.scan = true
		lr, err = f.findLineRange(q, fq)
	}
	return lr, err
}

// findLineRange is FindLineRange over the units the index or (fq.scan)
// the scan names.
func (f *File) findLineRange(q LineQuery, fq Query) (lr *LineRange, err error) {
	f.index() // loaded first
	units, err := f.unitsList()
	if err != nil {
		return nil, err
	}
	src := sourceName{name: q.File}
	cands, paths, err := unitScan{f}.candidates(units, fq, src)
	if err != nil {
		return nil, err
	}
	var need func(*unit) (bool, error)
	if q.Function == "" {
		if src, err = src.disambiguate(paths); err != nil {
			return nil, err
		}
	} else if defs, ok := (unitScan{f}).definingUnits(fq, cands); ok {
		cands = defs
	} else {
		need = func(u *unit) (bool, error) { return unitScan{f}.definesFunc(u, fq) }
	}
	err = f.eachTree(units, cands, need, func(t *cuTree, err error) error {
		if err != nil || t == nil {
			return err
		}
		r, err := t.lineWalk().lineRange(q, src)
		switch {
		case err != nil:
			return err
		case r == nil || len(r.Lines) == 0:
			return nil
		case lr == nil:
			lr = r
			if lr.CompDir == "" {
				lr.CompDir = t.u.compDir
			}
		case q.Function == "" && lazymatch.SourceTail(r.Path, lr.Path):
			lr.merge(r)
			lr.mergeFuncs(r.Funcs)
		case r.Path == lr.Path && r.Offset == lr.Offset:
			lr.merge(r)
			lr.Extent = max(lr.Extent, r.Extent)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return lr, nil
}

// mergeFuncs adds the extents fs, another unit's functions of the file,
// to lr's, each once, in order.
func (lr *LineRange) mergeFuncs(fs []FuncExtent) {
	for _, fe := range fs {
		if !slices.Contains(lr.Funcs, fe) {
			lr.Funcs = append(lr.Funcs, fe)
		}
	}
	slices.SortFunc(lr.Funcs, func(a, b FuncExtent) int { return a.Decl - b.Decl })
}

// merge adds r's lines and points, another unit's copy of the same
// function, to lr's.
func (lr *LineRange) merge(r *LineRange) {
	for _, l := range r.Lines {
		if _, ok := slices.BinarySearch(lr.Lines, l); !ok {
			lr.Lines = append(lr.Lines, l)
			slices.Sort(lr.Lines)
		}
	}
	for l, ps := range r.Points {
		if lr.Points == nil {
			lr.Points = map[int][]Probe{}
		}
		for _, p := range ps {
			if !slices.ContainsFunc(lr.Points[l], func(q Probe) bool { return q.Addr == p.Addr }) {
				lr.Points[l] = append(lr.Points[l], p)
			}
		}
	}
}

func (w *lineWalk) lineRange(q LineQuery, src sourceName) (*LineRange, error) {
	t := w.t
	lr := &LineRange{}
	seen := map[int]bool{}
	var walkErr error
	collect := func(w *lineWalk, fname string, lo, hi int) func(string, int, uint64) error {
		t := w.t
		return func(file string, line int, addr uint64) error {
			if !lazymatch.SourceTail(file, fname) || line < lo || line > hi {
				return nil
			}
			if q.Function == "" && !t.u.cOnly() && !w.representsLine(file, line, addr) {
				return nil
			}
			if lr.Path == "" {
				lr.Path = file
			}
			if q.Points {
				lr.addPoint(t, q.Function, file, line, addr)
			}
			if !seen[line] {
				seen[line] = true
				lr.Lines = append(lr.Lines, line)
			}
			return nil
		}
	}
	if q.Function == "" {
		if w.ltErr != nil {
			return nil, w.ltErr
		}
		fname := w.lt.realPath(src)
		if fname == "" {
			return nil, nil
		}
		lr.Start, lr.End = q.Start, q.End
		switch {
		case t.partial():
			// dwz's: each abstract function of the file by the rule of
			// -L FUNC, over its copies in the units importing it.
			walkErr = w.fileFuncs(fname, q.Start, q.End, func(i, lo, hi int) error {
				lr.Funcs = append(lr.Funcs, w.extent(i))
				return referrers{t.f, t, i}.copies(func(t2 *cuTree, fc funcCopies) error {
					w2 := t2.lineWalk()
					return w2.copiesLinePoints(fc, lo, hi, collect(w2, fname, lo, hi))
				})
			})
		case t.u.cOnly():
			// Each function of the file, by the rule of -L FUNC.
			walkErr = w.fileFuncs(fname, q.Start, q.End, func(i, lo, hi int) error {
				lr.Funcs = append(lr.Funcs, w.extent(i))
				return w.funcLinePoints(i, lo, hi, collect(w, fname, lo, hi))
			})
		default:
			walkErr = w.walkLines(collect(w, fname, q.Start, q.End))
		}
	} else {
		for _, i := range t.topFuncs() {
			if q.File != "" && !src.matches(t.declFile(i)) {
				continue
			}
			if !t.isFuncDef(i) || !t.funcMatches(i, Query{Function: lazymatch.ExactName(q.Function)}) {
				continue
			}
			fname := t.declFile(i)
			decl, _ := t.declLine(i)
			lr.Offset = decl
			lr.Start = sat(decl, q.Start)
			lr.End = sat(decl, q.End)
			lr.Extent = w.extent(i).End
			if t.partial() {
				// dwz moved the abstract instance here; its copies
				// are in the units importing this one.
				walkErr = referrers{t.f, t, i}.copies(func(t2 *cuTree, fc funcCopies) error {
					if lr.CompDir == "" {
						lr.CompDir = t2.u.compDir
					}
					w2 := t2.lineWalk()
					return w2.copiesLinePoints(fc, lr.Start, lr.End, collect(w2, fname, lr.Start, lr.End))
				})
			} else {
				walkErr = w.funcLinePoints(i, lr.Start, lr.End, collect(w, fname, lr.Start, lr.End))
			}
			break
		}
	}
	if walkErr != nil {
		return nil, walkErr
	}
	sort.Ints(lr.Lines)
	for _, ps := range lr.Points {
		sort.SliceStable(ps, func(a, b int) bool { return ps[a].Addr < ps[b].Addr })
	}
	return lr, nil
}

// addPoint records addr as a probe point of line, in the scope -D would
// choose there (bestScope), unless the line has it already.
func (lr *LineRange) addPoint(t *cuTree, fn, file string, line int, addr uint64) {
	if lr.Points == nil {
		lr.Points = map[int][]Probe{}
	}
	for _, p := range lr.Points[line] {
		if p.Addr == addr {
			return
		}
	}
	sc := unitProbes{t}.bestScope(fn, file, line, addr)
	sp := t.realFunc(addr)
	if sc < 0 || sp < 0 {
		return
	}
	lr.Points[line] = append(lr.Points[line], unitProbes{t}.probe(sc, sp, addr))
}

// extent is function i's FuncExtent.
func (w *lineWalk) extent(i int) FuncExtent {
	t := w.t
	decl, _ := t.declLine(i)
	end := w.funcEnd(i)
	if end >= math.MaxInt32 {
		return FuncExtent{decl, math.MaxInt32}
	}
	return FuncExtent{decl, end - 1}
}

// sat adds without overflowing, as perf clamps to INT_MAX.
func sat(a, b int) int {
	if b >= math.MaxInt32-a {
		return math.MaxInt32
	}
	return a + b
}
