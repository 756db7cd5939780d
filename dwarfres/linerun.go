package dwarfres

import (
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// lineFlows is the control flow of the functions one line-rule walk
// (copiesLinePoints) looks into, each decoded once when first asked.
type lineFlows struct {
	t     *cuTree
	flows map[int]*codeFlow // by real function; nil: not decoded (no decoder, no code bytes, a byte that does not decode)
}

// codeFlow is a function's decoded code: for each instruction, the ones
// that can run just before it (the one before it when that falls
// through, the branches to it, and the static branches whose block
// starts there: the kernel patches those NOPs into jumps), and which of
// those edges close a loop (back); and the other way round (succs).
type codeFlow struct {
	insn  map[uint64]bool
	preds map[uint64][]uint64
	succs map[uint64][]uint64
	back  map[[2]uint64]bool // from, to
}

// flowOf decodes the code of real function sp.
func (lf *lineFlows) flowOf(sp int) *codeFlow {
	if fl, ok := lf.flows[sp]; ok {
		return fl
	}
	if lf.flows == nil {
		lf.flows = map[int]*codeFlow{}
	}
	fl := lf.t.decodeFlow(sp)
	lf.flows[sp] = fl
	return fl
}

// decodeFlow decodes function sp's code, all its ranges (a .cold part
// jumps back into the body), nil when it cannot. A module's branches
// between sections are relocations not applied to its code, so a
// function of a module in more than one range is not decoded.
func (t *cuTree) decodeFlow(sp int) *codeFlow {
	a, ok := arch.For(t.f.ELF.Machine)
	rs := t.ranges(sp)
	if !ok || len(rs) == 0 || t.f.IsModule() && len(rs) > 1 {
		return nil
	}
	fl := &codeFlow{insn: map[uint64]bool{}, preds: map[uint64][]uint64{}}
	succs := map[uint64][]uint64{}
	fl.succs = succs
	var order []uint64
	edge := func(from, to uint64) {
		succs[from] = append(succs[from], to)
		fl.preds[to] = append(fl.preds[to], from)
	}
	for _, r := range rs {
		if r.High <= r.Low || r.High-r.Low > maxFlowBytes {
			return nil
		}
		code, err := t.f.Bytes(r.Low, r.High-r.Low)
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
			order = append(order, at)
			if next := at + uint64(s.Len); s.Falls && next < r.High {
				edge(at, next)
			}
			for _, tg := range s.Targets {
				edge(at, tg)
			}
			if t.f.Image != nil {
				if tg, size, ok := t.f.StaticBranchAt(at); ok {
					edge(at, tg)
					edge(at, at+size)
				}
			}
			off += uint64(s.Len)
		}
	}
	fl.back = backEdges(rs[0].Low, order, fl.insn, fl.preds, succs)
	return fl
}

// backEdges finds the edges that close a loop: those to an instruction
// still open in a depth-first walk from the entry (then from each
// instruction nothing branches to, an indirect branch's target, in
// address order), the back edges of a reducible flow graph.
func backEdges(entry uint64, order []uint64, insn map[uint64]bool, preds, succs map[uint64][]uint64) map[[2]uint64]bool {
	back := map[[2]uint64]bool{}
	const (
		open = 1
		done = 2
	)
	state := map[uint64]int{}
	type frame struct {
		at uint64
		n  int
	}
	walk := func(root uint64) {
		stack := []frame{{at: root}}
		state[root] = open
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			ss := succs[f.at]
			if f.n == len(ss) {
				state[f.at] = done
				stack = stack[:len(stack)-1]
				continue
			}
			to := ss[f.n]
			f.n++
			switch {
			case !insn[to]:
			case state[to] == open:
				back[[2]uint64{f.at, to}] = true
			case state[to] == 0:
				state[to] = open
				stack = append(stack, frame{at: to})
			}
		}
	}
	if insn[entry] {
		walk(entry)
	}
	for _, at := range order {
		if state[at] == 0 && len(preds[at]) == 0 {
			walk(at)
		}
	}
	for _, at := range order {
		if state[at] == 0 {
			walk(at)
		}
	}
	return back
}

// maxFlowBytes bounds the code of one range decodeFlow reads (the
// largest kernel functions are tens of KiB).
const maxFlowBytes = 1 << 20

// ownRun reports whether the statement row of a line at b can run
// without one of the line's probes (points, the addresses written) in
// the same pass: whether some path reaches b from the function's entry,
// from code nothing is seen to branch to (an indirect branch's target),
// or from the start of a loop's iteration (crossing a back edge
// backwards), without passing a probe. Code of other lines on the way
// does not end the walk: the compiler schedules a line's instructions
// among its neighbours' (security_file_open's prologue between line 2's
// rows), and straight-line code after a probe runs once per run of it.
// Nor does a static branch's out-of-line block whose every path comes
// back to a probe (a tracepoint's call; runsOn probes after the NOP):
// the run passes the probe after b. A block that does not come back
// (do_nanosleep:16 of 7.3, whose __set_current_state tracepoint block
// goes on with a copy of the rest of the function) holds a run of its
// own. Where the code cannot be decoded every later row is a run of its
// own, as perf takes it.
//
// security_file_open:2 of 6.12, `return call_int_hook(file_open, file)`,
// is the whole function: a row after each LSM's static call, reached
// only through the static branch at the line's start, and one at the
// shared exit; one probe, not 13. A `for` line's condition at the
// bottom of its loop, reached again from the loop's latch, is a run of
// its own each time round.
func (lf *lineFlows) ownRun(points map[uint64]bool, b uint64) bool {
	t := lf.t
	sp := t.realFunc(b)
	if sp < 0 {
		return true
	}
	fl := lf.flowOf(sp)
	if fl == nil || !fl.insn[b] {
		return true
	}
	seen := map[uint64]bool{}
	stack := []uint64{b}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[i] || i != b && points[i] {
			continue
		}
		seen[i] = true
		ps := fl.preds[i]
		if len(ps) == 0 {
			return true
		}
		for _, p := range ps {
			if fl.back[[2]uint64{p, i}] || !fl.insn[p] {
				return true
			}
			if tg, _, ok := t.f.StaticBranchAt(p); ok && tg == i && fl.reaches(i, points) {
				continue
			}
			stack = append(stack, p)
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
