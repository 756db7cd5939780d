package dwarfres

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Query asks where a probe point is, in perf probe's terms. Exactly one of
// Function or File (for SRC:ALN) is the anchor.
type Query struct {
	Function  string
	Match     func(name string) bool // nil: exact match on Function
	Glob      bool                   // several functions may match
	File      string                 // @SRC or the SRC of SRC:ALN
	TailMatch func(path, tail string) bool
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
}

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

// FindProbes resolves q over every unit that can hold it, in unit order, with
// perf probe's semantics (see tools/perf/util/probe-finder.c), and names each
// address by its containing symbol.
func (f *File) FindProbes(q Query) (ps []Probe, err error) {
	defer recoverTo(&err, f.Path)
	units, err := f.unitsList()
	if err != nil {
		return nil, err
	}
	if q.Match == nil {
		name := q.Function
		q.Match = func(s string) bool { return s == name }
	}
	if q.TailMatch == nil {
		q.TailMatch = perfTail
	}
	cands, paths, err := f.candidates(units, q)
	if err != nil {
		return nil, err
	}
	if q.Function == "" {
		if q.TailMatch, err = unambiguous(paths, q.File, q.TailMatch); err != nil {
			return nil, err
		}
	}
	s := &search{f: f, q: q, syms: f.Symbols(), seen: map[uint64]bool{}}
	for _, ui := range cands {
		t, err := f.decodeUnit(&units[ui])
		if err != nil {
			return nil, err
		}
		if err := s.unit(t); err != nil {
			return s.out, err
		}
	}
	return s.out, nil
}

// unambiguous refuses a source name that matches different files in the
// candidate units (perf would probe them all, whatever file was meant). A
// name that is exactly one of the paths ("mm/mmap.c", not also
// "arch/x86/mm/mmap.c") is not ambiguous: the returned matcher then accepts
// that path only.
func unambiguous(paths []string, file string, match func(string, string) bool) (func(string, string) bool, error) {
	if len(paths) > 1 && slices.Contains(paths, file) {
		return func(p, name string) bool { return p == name }, nil
	}
	if n := len(paths); n > 1 {
		slices.Sort(paths)
		if n > 8 {
			paths = append(paths[:8], "...")
		}
		return nil, &ProbeError{Err: ErrAmbiguous, Msg: fmt.Sprintf("source file %q matches %d files: %s", file, n, strings.Join(paths, ", ")), Hint: "give more of the path"}
	}
	return match, nil
}

// perfTail is perf's strtailcmp(a, b) == 0: one string is a tail of the other.
func perfTail(a, b string) bool {
	i, j := len(a)-1, len(b)-1
	for i >= 0 && j >= 0 {
		if a[i] != b[j] {
			return false
		}
		i--
		j--
	}
	return true
}

// candidates returns the indexes of units that may contain the query, and
// for a file query the distinct file paths that matched in them.
// For an exact function name it scans .debug_info for references to the
// name's string (a few tens of milliseconds for a vmlinux) instead of
// decoding every unit; otherwise it scans each unit's top-level DIEs, in
// parallel.
func (f *File) candidates(units []unit, q Query) ([]int, []string, error) {
	if q.Function != "" && !q.Glob {
		if c, ok := f.refScan(units, q.Function); ok {
			return c, nil, nil
		}
	}
	keep := make([]bool, len(units))
	found := make([][]string, len(units))
	var firstErr error
	var mu sync.Mutex
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ui := range work {
				ok, paths, err := f.unitMatches(&units[ui], q)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
				keep[ui], found[ui] = ok, paths
			}
		}()
	}
	for i := range units {
		if units[i].utype == utCompile || units[i].utype == utPartial {
			work <- i
		}
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return nil, nil, firstErr
	}
	var out []int
	var paths []string
	for i, k := range keep {
		if k {
			out = append(out, i)
			for _, p := range found[i] {
				if !slices.Contains(paths, p) {
					paths = append(paths, p)
				}
			}
		}
	}
	return out, paths, nil
}

// unitMatches checks one unit: for a function query, whether a top-level
// subprogram's own name matches; for a file query, whether the unit's line
// table names the file, and with which paths.
func (f *File) unitMatches(u *unit, q Query) (bool, []string, error) {
	if _, err := f.rootDIE(u); err != nil {
		return false, nil, err
	}
	if q.Function == "" {
		names, err := f.fileNames(u)
		if err != nil {
			return false, nil, err
		}
		var paths []string
		for _, n := range names {
			if n != "" && q.TailMatch(n, q.File) && !slices.Contains(paths, n) {
				paths = append(paths, n)
			}
		}
		return len(paths) > 0, paths, nil
	}
	r := f.newReader(u)
	var d DIE
	if !r.next(&d) { // root
		return false, nil, r.err
	}
	for r.next(&d) {
		if d.Depth < 1 {
			break
		}
		if d.Tag == tagSubprogram && d.HasName() && q.Match(f.rawName(u, &d)) {
			return true, nil, nil
		}
		r.skipChildren(&d)
	}
	return false, nil, r.err
}

// refScan finds units whose bytes reference name: as a .debug_str offset
// (DW_FORM_strp) or inline (DW_FORM_string). It reports ok=false when the
// file uses forms a byte scan cannot see (string offsets tables, 64-bit
// DWARF), and the caller falls back to a full scan.
func (f *File) refScan(units []unit, name string) ([]int, bool) {
	if f.sec(".debug_str_offsets") != nil {
		return nil, false
	}
	for i := range units {
		if units[i].offSize != 4 {
			return nil, false
		}
	}
	str := f.sec(".debug_str")
	key := append([]byte(name), 0)
	// A linker merging .debug_str keeps one copy of each distinct string:
	// either standalone (after a NUL) or, tail-merged, inside a longer
	// string. So references all use the standalone copies when there are
	// any, and only otherwise one of the tail positions.
	var whole, tails []uint32
	for off := 0; ; {
		i := bytes.Index(str[off:], key)
		if i < 0 {
			break
		}
		at := off + i
		if at == 0 || str[at-1] == 0 {
			whole = append(whole, uint32(at))
		} else {
			tails = append(tails, uint32(at))
		}
		off = at + 1
	}
	if len(whole) == 0 {
		whole = tails
	}
	var pats [][]byte
	for _, at := range whole {
		p := make([]byte, 4)
		f.Order.PutUint32(p, at)
		pats = append(pats, p)
	}
	if len(name) < 4 || len(pats) == 0 {
		pats = append(pats, key) // DW_FORM_string
	}
	info := f.sec(".debug_info")
	hit := make([]bool, len(units))
	// Read through small buffers rather than the mapping, so the scan
	// does not leave the whole section resident; chunks go to all cores.
	const chunk = 4 << 20
	nchunks := (len(info) + chunk - 1) / chunk
	work := make(chan int, nchunks)
	for c := 0; c < nchunks; c++ {
		work <- c
	}
	close(work)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bufb := make([]byte, chunk+16)
			for c := range work {
				off := c * chunk
				end := min(off+chunk+15, len(info))
				b := bufb[:f.readInfo(bufb[:end-off], uint64(off))]
				for _, p := range pats {
					indexAll(b, p, func(i int) {
						if ui := f.unitIndex(uint64(off + i)); ui >= 0 {
							mu.Lock()
							hit[ui] = true
							mu.Unlock()
						}
					})
				}
			}
		}()
	}
	wg.Wait()
	var out []int
	for i := range units {
		if hit[i] && (units[i].utype == utCompile || units[i].utype == utPartial) {
			out = append(out, i)
		}
	}
	return out, true
}

// indexAll calls fn with every position of pat in b. It searches for the
// pattern's rarest-looking byte (the largest value: small ones fill DWARF)
// and checks the rest, which beats bytes.Index when the first byte of a
// string offset happens to be common.
func indexAll(b, pat []byte, fn func(int)) {
	j := 0
	for k := range pat {
		if pat[k] > pat[j] {
			j = k
		}
	}
	for k := j; k < len(b); {
		i := bytes.IndexByte(b[k:], pat[j])
		if i < 0 {
			return
		}
		at := k + i - j
		if at+len(pat) <= len(b) && bytes.Equal(b[at:at+len(pat)], pat) {
			fn(at)
		}
		k += i + 1
	}
}

// search holds the state of one query across units, like perf's
// probe_finder: the probes found so far (for its duplicate-address check).
type search struct {
	f    *File
	q    Query
	syms *Symtab
	out  []Probe
	seen map[uint64]bool
	t    *cuTree
	// lazyLines caches the matching lines of each source file.
	lazyLines map[string]map[int]bool
}

// unit is find_probe_point_by_func / find_probe_point_by_line for one unit.
func (s *search) unit(t *cuTree) error {
	s.t = t
	q := s.q
	if q.File != "" {
		// The unit must name the file (perf's cu_find_realpath).
		fname, err := t.realPath(q.File, q.TailMatch)
		if err != nil || fname == "" {
			return err
		}
		if q.Function == "" {
			if q.LazyLines != nil {
				return s.lazy(-1, fname)
			}
			return s.byLine(fname, q.Line)
		}
	}
	for _, i := range t.topFuncs() {
		if !t.isFuncDef(i) || !q.Match(t.name(i)) {
			continue
		}
		if q.File != "" && !q.TailMatch(t.declFile(i), q.File) {
			continue
		}
		var err error
		switch {
		case q.HasLine:
			decl, _ := t.declLine(i)
			err = s.byLine(t.declFile(i), decl+q.Line)
		case t.isFuncInstance(i):
			addr, _ := t.dieEntryPC(i)
			if addr != 0 && q.LazyLines != nil {
				err = s.lazy(i, t.declFile(i))
			} else if addr != 0 {
				entry := addr
				if q.SkipPrologue && q.Offset == 0 && !t.optimized() {
					if a, ok := t.postPrologue(i, addr); ok {
						addr = a
					}
				}
				err = s.probeAt(i, addr+q.Offset)
				if err == nil && addr != entry && len(s.out) > 0 && s.out[len(s.out)-1].Addr == addr {
					s.out[len(s.out)-1].PrologueOf = entry
				}
			}
		case !q.NoInlines:
			err = s.instances(i)
		}
		if err != nil {
			return err
		}
		if !q.Glob {
			break
		}
	}
	return nil
}

// instancesOf lists, in DIE order, the concrete instances of the abstract
// function abs that perf's die_walk_instances visits: out-of-line copies and
// inlined copies, less the "redundant" inlined ones whose call site is the
// function's own declaration line.
func (t *cuTree) instancesOf(abs int) []int {
	absOff := t.dies[abs].Off
	decl, _ := t.declLine(abs)
	df, _ := t.declFileNo(abs)
	var out []int
	for j := 1; j < len(t.dies); j++ {
		d := &t.dies[j]
		if !d.HasOrigin || d.OriginIsSpec || d.Origin != absOff || !t.isFuncInstance(j) {
			continue
		}
		if d.Tag == tagInlined && d.HasCallLine && int(d.CallLine) == decl && d.CallFile == df {
			continue
		}
		out = append(out, j)
	}
	return out
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
		return &ProbeError{Err: ErrTooMany, Msg: fmt.Sprintf("too many (> %d) probe points found", s.q.MaxProbes), Hint: "raise --max-probes"}
	}
	if !t.hasPC(sp, addr) {
		return &ProbeError{Err: ErrOutOfRange, Msg: fmt.Sprintf("offset %d is outside %s", s.q.Offset, t.name(sp))}
	}
	p := Probe{Addr: addr, RealName: t.name(sc), Func: t.name(sp), Scope: &Scope{t: t, sc: sc, sp: sp, Addr: addr}}
	if e, ok := t.entryPC(sp); ok {
		p.Symbol, p.Offset = p.Func, addr-e
	} else if sym, ok := s.syms.At(addr); ok {
		p.Symbol, p.Offset = sym.Name, addr-sym.Start
	}
	if sym, ok := s.syms.At(addr); ok {
		p.Symbol, p.Offset, p.InText = sym.Name, addr-sym.Start, true
	}
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
		if !lines[line] || !perfTail(file, fname) {
			return nil
		}
		scope := s.bestScope(fname, line, addr)
		if scope < 0 {
			return &ProbeError{Err: ErrNotFound, Msg: "failed to find the scope of the probe point"}
		}
		return s.probeAt(scope, addr)
	}
	if sc < 0 {
		return t.walkLines(cb)
	}
	return t.walkScopeLines(sc, cb)
}

// byLine is find_probe_point_by_line over the current unit.
func (s *search) byLine(fname string, lno int) error {
	return s.t.walkLines(func(file string, line int, addr uint64) error {
		if line != lno || !perfTail(file, fname) {
			return nil
		}
		if err := s.verifyLine(file, line, addr); err != nil {
			return err
		}
		sc := s.bestScope(fname, lno, addr)
		if sc < 0 {
			return &ProbeError{Err: ErrNotFound, Msg: "failed to find the scope of the probe point"}
		}
		return s.probeAt(sc, addr)
	})
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
	if s.q.Function != "" {
		if sc := s.bestScope(fname, lineno, addr); sc >= 0 && s.q.Match(t.name(sc)) {
			if dl, ok := t.declLine(sc); ok {
				where = fmt.Sprintf("%s:%d", t.name(sc), rl-dl)
			}
		}
	}
	return &ProbeError{Err: ErrSharedLine, Msg: fmt.Sprintf("line %d shares its address with line %d", lineno, rl), Hint: "probe " + where + " instead"}
}

// realPath is perf's cu_find_realpath: the first file of the unit's line
// table that tail-matches file, or "".
func (t *cuTree) realPath(file string, match func(path, tail string) bool) (string, error) {
	lt, err := t.lineTable()
	if err != nil {
		return "", err
	}
	for _, n := range lt.files {
		if n != "" && match(n, file) {
			return n, nil
		}
	}
	return "", nil
}

// lineInfo is cu_find_lineinfo.
func (t *cuTree) lineInfo(addr uint64) (string, int, bool) {
	if sp := t.realFunc(addr); sp >= 0 {
		if e, ok := t.dieEntryPC(sp); ok && e == addr {
			l, _ := t.declLine(sp)
			f := t.declFile(sp)
			return f, l, l != 0 && f != ""
		}
	}
	lt, err := t.lineTable()
	if err != nil {
		return "", 0, false
	}
	i := lt.stmtRowAt(addr)
	if i < 0 {
		return "", 0, false
	}
	r := lt.rows[i]
	f := ""
	if int(r.File) < len(lt.files) {
		f = lt.files[r.File]
	}
	return f, int(r.Line), f != "" && r.Line != 0
}

// bestScope is find_best_scope.
func (s *search) bestScope(fname string, line int, addr uint64) int {
	t := s.t
	chain := t.scopesAt(addr)
	best, diff := -1, int(^uint(0)>>1)
	for _, fn := range chain {
		if fname != "" && t.declFile(fn) != fname {
			continue
		}
		if s.q.Function != "" {
			if s.q.Match(t.name(fn)) {
				return fn
			}
			continue
		}
		if l, _ := t.declLine(fn); l < line && diff > line-l {
			diff, best = line-l, fn
		}
	}
	if best < 0 && len(chain) > 0 {
		best = chain[len(chain)-1]
	}
	return best
}

// scopesAt is cu_walk_functions_at: the real function containing addr, then
// each inlined subroutine nested in the previous one that contains addr.
func (t *cuTree) scopesAt(addr uint64) []int {
	sp := t.realFunc(addr)
	if sp < 0 {
		return nil
	}
	chain := []int{sp}
	for cur := sp; ; {
		next := -1
		end := t.end(cur)
		for j := cur + 1; j < end; j++ {
			if t.dies[j].Tag == tagInlined && t.hasPC(j, addr) {
				next = j
				break
			}
		}
		if next < 0 {
			return chain
		}
		chain = append(chain, next)
		cur = next
	}
}

// walkLines is die_walk_lines over a whole unit: statement rows in libdw's
// order, then the declaration and call-site lines of every function.
func (t *cuTree) walkLines(cb func(file string, line int, addr uint64) error) error {
	lt, err := t.lineTable()
	if err != nil {
		return err
	}
	for _, r := range lt.rows {
		if r.EndSeq || !r.Stmt {
			continue
		}
		f := ""
		if int(r.File) < len(lt.files) {
			f = lt.files[r.File]
		}
		if err := cb(f, int(r.Line), r.Addr); err != nil {
			return err
		}
	}
	for _, sp := range t.topFuncs() {
		if err := t.walkFuncLines(sp, true, cb); err != nil {
			return err
		}
	}
	return nil
}

// walkFuncLines is __die_walk_funclines.
func (t *cuTree) walkFuncLines(sp int, recursive bool, cb func(string, int, uint64) error) error {
	if f := t.declFile(sp); f != "" {
		if l, ok := t.declLine(sp); ok {
			if a, ok := t.dieEntryPC(sp); ok {
				if err := cb(f, l, a); err != nil {
					return err
				}
			}
		}
	}
	end := t.end(sp)
	for j := sp + 1; j < end; j++ {
		d := &t.dies[j]
		var addr uint64
		if d.Tag == tagInlined {
			f := t.callFile(j)
			if a, ok := t.dieEntryPC(j); ok {
				addr = a
				if f != "" && d.CallLine > 0 {
					if err := cb(f, int(d.CallLine), a); err != nil {
						return err
					}
				}
			}
			if !recursive {
				j = t.end(j) - 1
				continue
			}
		}
		if addr != 0 {
			if f := t.declFile(j); f != "" {
				if l, ok := t.declLine(j); ok {
					if err := cb(f, l, addr); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}
