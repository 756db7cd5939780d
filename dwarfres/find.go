package dwarfres

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"

	"github.com/dwprobe/dwprobe/lazymatch"
)

// FindProbes resolves q over every unit that can hold it, in unit order, with
// perf probe's semantics (see tools/perf/util/probe-finder.c), and names each
// address by its containing symbol.
func (f *File) FindProbes(q Query) (ps []Probe, err error) {
	defer f.nameMalformed(&err)
	defer elfobj.Guard(&err, f.Path)
	ps, defined, err := f.findProbes(q)
	// A file the index's names make ambiguous is confirmed too: the
	// names are the index's.
	ambiguous := q.fn() == "" && errors.Is(err, ErrAmbiguous)
	if len(ps) == 0 && !defined && (err == nil || errors.Is(err, ErrNotFound) || ambiguous) && f.indexMissed(q) {
		q.scan = true
		ps, _, err = f.findProbes(q)
	}
	return ps, err
}

// indexMissed reports whether an index that answered nothing for q must
// be confirmed by the scan: always, but for what the language proves
// absent. The index only narrows which units are read, and a file that
// passed its checksum may still have been rewritten (a posting list or
// a file table emptied, its checksum recomputed): "not found" is never
// answered from the index alone. A function the index led to (a unit
// defining it was read: FUNC:RLN at a line without code) was not
// hidden, and is not rescanned. Nor is a GCC clone's name
// (do_sysinfo.isra.0, .constprop.0, .part.0, .cold) in a C binary: no
// C unit can name a function so. The price is the scan, on failures
// only: a pass over .debug_info for an exact name (60 ms on a vmlinux),
// the top-level DIEs of every unit for a pattern, the line tables' file
// names for a file. A file query is confirmed only when the index named
// no unit for the file (or several files): a line without code in a file
// the index found (fs/read_write.c:5000) would cost the scan of every
// unit's files (20 → 150 ms) to say the same.
func (f *File) indexMissed(q Query) bool {
	ix := f.index()
	if q.scan || ix == nil {
		return false
	}
	if q.fn() == "" {
		us, paths, ok := ix.fileUnits(sourceName{name: q.File})
		return !ok || len(us) == 0 || len(paths) > 1
	}
	return !ix.onlyC || !strings.Contains(q.fn(), ".") || q.Function.IsGlob()
}

// findProbes is FindProbes over the units the index or a scan names;
// defined says a unit defining q's function was read.
func (f *File) findProbes(q Query) (ps []Probe, defined bool, err error) {
	f.index() // loaded first: its unit headers spare reading them
	units, err := f.unitsList()
	if err != nil {
		return nil, false, err
	}
	src := sourceName{name: q.File}
	cands, paths, err := unitScan{f}.candidates(units, q, src)
	if err != nil {
		return nil, false, err
	}
	if q.fn() == "" {
		if src, err = src.disambiguate(paths); err != nil {
			return nil, false, err
		}
	}
	s := &search{f: f, q: q, src: src, syms: f.Symbols(), seen: map[uint64]bool{}}
	var need func(*unit) (bool, error)
	if q.fn() != "" {
		if defs, ok := (unitScan{f}).definingUnits(q, cands); ok {
			cands = defs
		} else {
			need = func(u *unit) (bool, error) { return unitScan{f}.definesFunc(u, q) }
		}
	}
	var decodeErr error
	err = f.eachTree(units, cands, need, func(t *cuTree, err error) error {
		if err != nil {
			decodeErr = err
			return err
		}
		if t == nil {
			return nil // the unit does not define the function
		}
		defined = true
		n := len(s.out)
		err = s.unit(t)
		if q.Asked != nil {
			f.asked.answerEarly(f, t, s.out[n:], q.Asked)
		}
		return err
	})
	if decodeErr != nil {
		return nil, defined, decodeErr
	}
	if err != nil {
		return s.out, defined, err
	}
	if len(s.out) == 0 && s.sharedLine != nil {
		return nil, defined, s.sharedLine
	}
	return s.out, defined, s.supplementary()
}

// search holds the state of one query across units, like perf's
// probe_finder: the probes found so far (for its duplicate-address check).
type search struct {
	f    *File
	q    Query
	src  sourceName // q.File
	syms *Symtab
	out  []Probe
	seen map[uint64]bool
	t    *cuTree
	// lazyLines caches the matching lines of each source file.
	lazyLines map[string]map[int]bool
	// sharedLine is FUNC:RLN's refusal in a unit where the line shares
	// its addresses with another: the answer when no unit has points.
	sharedLine error
}

// unit is find_probe_point_by_func / find_probe_point_by_line for one unit.
func (s *search) unit(t *cuTree) error {
	s.t = t
	q := s.q
	if q.File != "" {
		// The unit must name the file (perf's cu_find_realpath).
		lt, err := t.lineTable()
		if err != nil {
			return err
		}
		fname := lt.realPath(s.src)
		if fname == "" {
			return nil
		}
		if q.fn() == "" {
			if q.LazyLines != nil {
				return s.lazy(-1, fname)
			}
			return s.byLine(fname, q.Line)
		}
	}
	for _, i := range t.topFuncs() {
		if !t.isFuncDef(i) || !t.funcMatches(i, q) {
			continue
		}
		if q.File != "" && !s.src.matches(t.declFile(i)) {
			continue
		}
		var err error
		switch {
		case q.HasLine && s.shared(t):
			decl, _ := t.declLine(i)
			err = s.foreignLines(i, decl+q.Line)
		case q.HasLine:
			decl, _ := t.declLine(i)
			err = s.funcLine(i, decl+q.Line)
		case t.isFuncInstance(i):
			err = s.outOfLine(i)
		case !q.NoInlines:
			err = s.instances(i)
		}
		if err != nil {
			return err
		}
		if !q.Function.IsGlob() && t.u.cOnly() {
			break // C has one function of a name; C++ overloads all go
		}
	}
	return nil
}

// outOfLine probes the function instance i: at its entry (past the
// prologue when asked) plus the query's offset, or, for a lazy pattern, at
// its matching lines.
func (s *search) outOfLine(i int) error {
	t, q := s.t, s.q
	addr, _ := t.dieEntryPC(i)
	switch {
	case addr == 0:
		return nil
	case q.LazyLines != nil:
		return s.lazy(i, t.declFile(i))
	}
	entry := addr
	if q.SkipPrologue && q.Offset == 0 && !(prologue{t, i}).optimized() {
		if a, ok := (prologue{t, i}).end(addr); ok {
			addr = a
		}
	}
	err := s.probeAt(i, addr+q.Offset)
	if err == nil && addr != entry && len(s.out) > 0 && s.out[len(s.out)-1].Addr == addr {
		s.out[len(s.out)-1].PrologueOf = entry
	}
	return err
}

// instances is die_walk_instances with probe_point_inline_cb.
func (s *search) instances(abs int) error {
	t := s.t
	for _, j := range t.instancesOf(abs) {
		addr, ok := t.dieEntryPC(j)
		if !ok || addr == 0 {
			return nil // perf stops the walk here (-ENOENT, then ignored)
		}
		var err error
		if s.q.LazyLines != nil {
			err = s.lazy(j, t.declFile(abs))
		} else {
			err = s.probeAt(j, addr+s.q.Offset)
		}
		if err != nil {
			return err
		}
	}
	if s.shared(t) {
		return s.foreignInstances(abs)
	}
	return nil
}

// probeAt is call_probe_finder + add_probe_trace_event for scope sc.
func (s *search) probeAt(sc int, addr uint64) error {
	t := s.t
	sp := sc
	if !t.isFuncDef(sc) {
		sp = t.realFunc(addr)
		if sp < 0 {
			return &ProbeError{Err: ErrNotFound, Msg: fmt.Sprintf("failed to find probe point at %#x in any function", addr)}
		}
	}
	if s.seen[addr] {
		return nil
	}
	if s.q.MaxProbes > 0 && len(s.out) >= s.q.MaxProbes {
		return &ProbeError{Err: ErrTooMany, Msg: fmt.Sprintf("too many (> %d) probe points found", s.q.MaxProbes)}
	}
	if !t.hasPC(sp, addr) {
		return &ProbeError{Err: ErrOutOfRange, Msg: fmt.Sprintf("offset %d is outside %s", s.q.Offset, t.name(sp))}
	}
	p := unitProbes{t}.probe(sc, sp, addr)
	s.seen[addr] = true
	s.out = append(s.out, p)
	return nil
}

// lazy is find_probe_point_lazy: every line of scope sc (or, with sc < 0,
// of the whole unit) whose source matches the pattern gets a probe.
func (s *search) lazy(sc int, fname string) error {
	t := s.t
	if s.lazyLines == nil {
		s.lazyLines = map[string]map[int]bool{}
	}
	lines, ok := s.lazyLines[fname]
	if !ok {
		var err error
		if lines, err = s.q.LazyLines(fname, t.u.compDir); err != nil {
			return err
		}
		s.lazyLines[fname] = lines
	}
	if len(lines) == 0 {
		return nil
	}
	cb := func(file string, line int, addr uint64) error {
		if !lines[line] || !lazymatch.SourceTail(file, fname) {
			return nil
		}
		scope := s.bestScope(fname, line, addr)
		if scope < 0 {
			return &ProbeError{Err: ErrNotFound, Msg: "failed to find the scope of the probe point"}
		}
		return s.probeAt(scope, addr)
	}
	if sc < 0 {
		return t.lineWalk().walkLines(cb)
	}
	return t.lineWalk().walkScopeLines(sc, cb)
}

// byLine is SRC:LINE over the current unit: in C, the points of the
// function of the file holding the line, as FUNC:RLN probes it (the
// same line probes the same points either way); elsewhere perf's
// find_probe_point_by_line.
func (s *search) byLine(fname string, lno int) error {
	if s.t.partial() {
		// dwz's: the abstract instances of the file's inline functions,
		// whose copies are in the units importing it.
		return s.t.lineWalk().fileFuncs(fname, lno, lno, func(i, _, _ int) error { return s.foreignLines(i, lno) })
	}
	if s.t.u.cOnly() {
		return s.t.lineWalk().fileFuncs(fname, lno, lno, func(i, _, _ int) error { return s.funcLine(i, lno) })
	}
	var rows []uint64
	err := s.t.lineWalk().walkLines(func(file string, line int, addr uint64) error {
		if line != lno || !lazymatch.SourceTail(file, fname) {
			return nil
		}
		if err := s.verifyLine(file, line, addr); err != nil {
			return err
		}
		rows = append(rows, addr)
		return nil
	})
	if err != nil {
		return err
	}
	for _, addr := range s.t.lineWalk().runStarts(fname, rows) {
		sc := s.bestScope(fname, lno, addr)
		if sc < 0 {
			return &ProbeError{Err: ErrNotFound, Msg: "failed to find the scope of the probe point"}
		}
		if err := s.probeAt(sc, addr); err != nil {
			return err
		}
	}
	return nil
}

// funcLine is FUNC:RLN for function i: the line lno of its declaration
// file at the points funcLinePoints gives it, where its code starts in
// each copy of i, as -L lists them. perf searches the whole unit for the
// line, and where another function holds it, probes that function; it
// also refuses a line whose first row shares its address with another
// line's. The points come in perf's order (the unit's rows, then its
// functions' lines).
func (s *search) funcLine(i, lno int) error {
	return s.copiesLine(s.t.lineWalk().copiesOf(i), lno)
}

// copiesLine is funcLine over the copies fc of a function in s.t.
func (s *search) copiesLine(fc funcCopies, lno int) error {
	t, w := s.t, s.t.lineWalk()
	fname := fc.file
	own := map[uint64]bool{}
	var order []uint64
	err := w.copiesLinePoints(fc, lno, lno, func(_ string, _ int, addr uint64) error {
		own[addr] = true
		order = append(order, addr)
		return nil
	})
	if err != nil || len(own) == 0 {
		return err
	}
	// A point placed for the line is at the line, whatever other row
	// shares its address (Scope.Source).
	probe := func(file string, addr uint64) error {
		sc := s.bestScope(fname, lno, addr)
		if sc < 0 {
			return &ProbeError{Err: ErrNotFound, Msg: "failed to find the scope of the probe point"}
		}
		n := len(s.out)
		if err := s.probeAt(sc, addr); err != nil {
			return err
		}
		for k := n; k < len(s.out); k++ {
			s.out[k].Scope.srcFile, s.out[k].Scope.srcLine = file, lno
		}
		return nil
	}
	done := map[uint64]bool{}
	err = w.walkLines(func(file string, line int, addr uint64) error {
		if line != lno || !own[addr] || done[addr] || !lazymatch.SourceTail(file, fname) {
			return nil
		}
		done[addr] = true
		return probe(file, addr)
	})
	if err != nil {
		return err
	}
	for _, a := range order {
		if !done[a] {
			done[a] = true
			if err := probe(fname, a); err != nil {
				return err
			}
		}
	}
	if len(s.out) > 0 {
		first := &s.out[len(s.out)-1]
		for k := len(s.out) - 1; k >= 0 && own[s.out[k].Addr]; k-- {
			first = &s.out[k]
		}
		first.LeftOut = append(first.LeftOut, unitProbes{t}.copiesWithout(fc.copies, own)...)
	}
	return nil
}

// verifyLine is verify_representive_line: refuse a line whose address is
// really attributed to another line of the same file.
func (s *search) verifyLine(fname string, lineno int, addr uint64) error {
	t := s.t
	rf, rl, ok := t.lineInfo(addr)
	if !ok || rf != fname || rl == lineno {
		return nil
	}
	where := fmt.Sprintf("%s:%d", rf, rl)
	if s.q.File != "" {
		where = fmt.Sprintf("%s:%d", s.q.File, rl) // as the user named the file
	}
	if s.q.fn() != "" {
		if sc := s.bestScope(fname, lineno, addr); sc >= 0 && s.q.Function.Match(t.name(sc)) {
			if dl, ok := t.declLine(sc); ok {
				where = fmt.Sprintf("%s:%d", t.name(sc), rl-dl)
			}
		}
	}
	return &ProbeError{Err: ErrSharedLine, Msg: fmt.Sprintf("line %d shares its address with line %d", lineno, rl), Hint: "probe " + where + " instead"}
}

// bestScope is find_best_scope.
func (s *search) bestScope(fname string, line int, addr uint64) int {
	return unitProbes{s.t}.bestScopeBy(fname, line, addr, s.q.fn() != "", s.q.Function.Match)
}
