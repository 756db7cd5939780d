package dwarfres

import (
	"slices"
	"sort"

	"github.com/dwprobe/dwprobe/lazymatch"
)

// lineFlows is the control flow of the functions one line-rule walk
// (copiesLinePoints) looks into, each decoded once when first asked.
type lineFlows struct {
	w     *lineWalk
	flows map[int]*codeFlow // by real function; nil: not decoded (no decoder, no code bytes, a byte that does not decode)
}

// codeFlow is a function's decoded code: for each instruction, the ones
// that can run just before it (the one before it when that falls
// through, the branches to it, and the static branches whose block
// starts there: the kernel patches those NOPs into jumps), and the other
// way round (succs).
type codeFlow struct {
	insn  map[uint64]bool
	preds map[uint64][]uint64
	succs map[uint64][]uint64
	// static maps each static branch's code to its block's start.
	static map[uint64]uint64
}

// flowOf decodes the code of real function sp.
func (lf *lineFlows) flowOf(sp int) *codeFlow {
	if fl, ok := lf.flows[sp]; ok {
		return fl
	}
	if lf.flows == nil {
		lf.flows = map[int]*codeFlow{}
	}
	fl := lf.w.decodeFlow(sp)
	lf.flows[sp] = fl
	return fl
}

// decodeFlow decodes function sp's code, all its ranges (a .cold part
// jumps back into the body), nil when it cannot. A module's branches
// between sections are relocations not applied to its code, so a
// function of a module in more than one range is not decoded.
func (w *lineWalk) decodeFlow(sp int) *codeFlow {
	a := w.isa
	rs := w.t.ranges(sp)
	if a == nil || len(rs) == 0 || w.text.IsModule() && len(rs) > 1 {
		return nil
	}
	fl := newCodeFlow()
	for _, r := range rs {
		if r.High <= r.Low || r.High-r.Low > maxFlowBytes {
			return nil
		}
		code, err := w.text.Bytes(r.Low, r.High-r.Low)
		if err != nil {
			return nil
		}
		for off := uint64(0); off < uint64(len(code)); {
			at := r.Low + off
			s, err := a.StepAt(code[off:], at)
			if err != nil || s.Len <= 0 {
				return nil
			}
			fl.insn[at] = true
			if next := at + uint64(s.Len); s.Falls && next < r.High {
				fl.edge(at, next)
			}
			for _, tg := range s.Targets {
				fl.edge(at, tg)
			}
			if w.jumps != nil {
				if tg, size, ok := w.jumps.StaticBranchAt(at); ok {
					fl.static[at] = tg
					fl.edge(at, tg)
					fl.edge(at, at+size)
				}
			}
			off += uint64(s.Len)
		}
	}
	return fl
}

func newCodeFlow() *codeFlow {
	return &codeFlow{insn: map[uint64]bool{}, preds: map[uint64][]uint64{}, succs: map[uint64][]uint64{}, static: map[uint64]uint64{}}
}

// edge records that to can run right after from.
func (fl *codeFlow) edge(from, to uint64) {
	fl.succs[from] = append(fl.succs[from], to)
	fl.preds[to] = append(fl.preds[to], from)
}

// maxFlowBytes bounds the code of one range decodeFlow reads (the
// largest kernel functions are tens of KiB).
const maxFlowBytes = 1 << 20

// ownRun reports whether the statement row of a line at b can run
// without one of the line's probes (points, the addresses written) in
// the same pass: whether some path reaches b without passing a probe,
// from the function's entry, from code nothing is seen to branch to (an
// indirect branch's target), or from b itself (a loop that runs b again
// without passing a probe).
//
// Code of other lines on the way does not end the walk: the compiler
// schedules a line's instructions among its neighbours'
// (security_file_open's prologue between line 2's rows), and code after
// a probe that runs b once per pass, loops of other lines included, is
// one run of the line. Nor does a static branch's out-of-line block
// whose every path comes back to a probe (a tracepoint's call; runsOn
// probes after the NOP): the run passes the probe after b. A block that
// does not come back (do_nanosleep:16 of 7.3, whose __set_current_state
// tracepoint block goes on with a copy of the rest of the function)
// holds a run of its own. Where the code cannot be decoded every later
// row is a run of its own, as perf takes it.
//
// security_file_open:2 of 6.12, `return call_int_hook(file_open, file)`,
// is the whole function: a row after each LSM's static call, reached
// only through the static branch at the line's start, and one at the
// shared exit; one probe, not 13. A `for` line's increment, after the
// body, is a run of its own each time round; its condition, reached
// from the initialisation's probe and the increment's, is not.
func (lf *lineFlows) ownRun(points map[uint64]bool, b uint64) bool {
	sp := lf.w.t.realFunc(b)
	if sp < 0 {
		return true
	}
	fl := lf.flowOf(sp)
	return fl == nil || fl.ownRun(points, b)
}

// ownRun is lineFlows.ownRun in fl's code.
func (fl *codeFlow) ownRun(points map[uint64]bool, b uint64) bool {
	if !fl.insn[b] {
		return true
	}
	seen := map[uint64]bool{}
	stack := []uint64{b}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[i] {
			continue
		}
		seen[i] = true
		ps := fl.preds[i]
		if len(ps) == 0 {
			return true
		}
		for _, p := range ps {
			switch tg, static := fl.static[p]; {
			case points[p]:
			case p == b || !fl.insn[p]:
				return true
			case static && tg == i && fl.reaches(i, points):
			default:
				stack = append(stack, p)
			}
		}
	}
	return false
}

// reaches reports whether every path from the instruction at from runs
// into one of points before it leaves the function (a return, a tail
// call, an indirect jump).
func (fl *codeFlow) reaches(from uint64, points map[uint64]bool) bool {
	seen := map[uint64]bool{}
	stack := []uint64{from}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[i] || points[i] {
			continue
		}
		seen[i] = true
		ss := fl.succs[i]
		if len(ss) == 0 {
			return false
		}
		for _, s := range ss {
			if !fl.insn[s] {
				return false
			}
			stack = append(stack, s)
		}
	}
	return true
}

// blockRuns are the points a line starting at addr, a static branch's
// code that runsOn probes after at probe, needs inside the branches'
// out-of-line blocks (the static branches from addr up to probe): where
// a block's path leaves every way back to probe, if that is still the
// line's code in copy c (in a call inlined at the line, or under a row
// of the line). A tracepoint's block on 6.1 arm64, kernel_clone:51's
// trace_sched_process_fork, comes back to the probe only when the CPU is
// offline; otherwise it calls the tracepoint and goes on with its own
// copy of the next lines: the run is there, after the test (booted,
// the probe after the NOP alone missed the 5 forks traced with the
// event on).
func (lf *lineFlows) blockRuns(c int, file string, line int, addr, probe uint64) []uint64 {
	w := lf.w
	if w.jumps == nil || addr == probe {
		return nil
	}
	sp := w.t.realFunc(addr)
	if sp < 0 {
		return nil
	}
	fl := lf.flowOf(sp)
	if fl == nil {
		return nil
	}
	back := fl.reaching(probe)
	var out []uint64
	for a := addr; a < probe; {
		tg, size, ok := w.jumps.StaticBranchAt(a)
		if !ok {
			break
		}
		for _, f := range fl.leaving(tg, probe, back) {
			if w.inLineRun(c, file, line, f) {
				out = append(out, f)
			}
		}
		a += size
	}
	return out
}

// reaching is the set of instructions from which a path runs into to.
func (fl *codeFlow) reaching(to uint64) map[uint64]bool {
	in := map[uint64]bool{to: true}
	stack := []uint64{to}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range fl.preds[i] {
			if !in[p] {
				in[p] = true
				stack = append(stack, p)
			}
		}
	}
	return in
}

// leaving is, on each path from the instruction at from that does not
// run into probe first, the first instruction from which no path runs
// into probe (back: those from which one does), in address order.
func (fl *codeFlow) leaving(from, probe uint64, back map[uint64]bool) []uint64 {
	var out []uint64
	seen := map[uint64]bool{}
	stack := []uint64{from}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[i] || i == probe || !fl.insn[i] {
			continue
		}
		seen[i] = true
		if !back[i] {
			out = append(out, i)
			continue
		}
		stack = append(stack, fl.succs[i]...)
	}
	sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
	return out
}

// inLineRun reports whether the instruction at addr, in copy c, is code
// of line (of file): in a call inlined at the line, or under a row of the
// line.
func (w *lineWalk) inLineRun(c int, file string, line int, addr uint64) bool {
	t := w.t
	if !t.hasPC(c, addr) {
		return false
	}
	if in := t.topInline(c, addr); in >= 0 {
		return int(t.dies[in].CallLine) == line && lazymatch.SourceTail(t.callFile(in), file)
	}
	lt, err := w.lt, w.ltErr
	if err != nil {
		return false
	}
	r, ok := lt.rowOf(addr)
	return ok && int(r.Line) == line && lazymatch.SourceTail(lt.fileOf(r), file)
}

// rowOf is the row the instruction at addr is attributed to: the last row
// at the highest address not above it; ok is false in a gap between
// sequences.
func (lt *lineTable) rowOf(addr uint64) (lineRow, bool) {
	rows := lt.rows
	i := sort.Search(len(rows), func(i int) bool { return rows[i].Addr > addr }) - 1
	if i < 0 || rows[i].EndSeq {
		return lineRow{}, false
	}
	return rows[i], true
}

// runStarts keeps, of the rows of one line at addrs (in the order
// given, which it keeps), those the line rule (ownRun) takes: in each
// copy (the innermost inlined call of a function of fname holding the
// row, else the function) the lowest, and a later one where control reaches it without passing
// one kept. It is SRC:LINE outside C (perf's every row of the line), so
// that it probes the points FUNC:RLN does (from_ghz@kernel/clk.rs:1 of
// 7.3, Rust: +12, not also +23 in the same run).
func (w *lineWalk) runStarts(fname string, addrs []uint64) []uint64 {
	t := w.t
	byCopy := map[int][]uint64{}
	for _, a := range addrs {
		c := -1
		for _, sc := range t.scopesAt(a) {
			if c < 0 || lazymatch.SourceTail(t.declFile(sc), fname) {
				c = sc
			}
		}
		byCopy[c] = append(byCopy[c], a)
	}
	lf := &lineFlows{w: w}
	keep := map[uint64]bool{}
	for _, as := range byCopy {
		slices.Sort(as)
		points := map[uint64]bool{}
		for n, a := range as {
			if n == 0 || !points[a] && lf.ownRun(points, a) {
				points[a] = true
				keep[a] = true
			}
		}
	}
	var out []uint64
	for _, a := range addrs {
		if keep[a] {
			out = append(out, a)
			keep[a] = false
		}
	}
	return out
}
