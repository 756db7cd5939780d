package dwarfres

import (
	"slices"

	"github.com/dwprobe/dwprobe/lazymatch"
)

// funcLinePoints is the one rule for where a line of function i runs,
// which -L FUNC, -L --detail, -D FUNC:RLN and -D SRC:LINE share: cb gets,
// for each line of i's declaration file between lo and hi (absolute,
// inclusive), the addresses where the line's own code starts in each
// copy of i (out of line, each inlined copy, each copy inlined into
// itself), each address once per line, the lines in no particular order.
//
// A line's candidates in a copy are its own statement rows (ownRow) and
// the entries of the calls inlined at it. The copy contributes the
// lowest of them, where the line's code starts, even when the row shares
// its address with another line's earlier row (perf refuses such a line,
// "sharing the address with other lines"; its instructions are there:
// the last row at an address is the one its instructions are
// attributed to, so an earlier line at the same address has none of its
// own there). It also contributes each later statement row that starts
// at its address (representsLine) and that control reaches without
// passing a probe of the line already taken (ownRun, on the function's
// decoded code): the line again on another path (code the compiler
// duplicated), or again round a loop, as perf probes it; perf also
// probes a later row in the same straight-line run, which fires twice
// (6.12's security_file_open:2: 13 points, 1 run). A later row that shares
// its address with another line, or the later entry of an inlined call,
// is not taken: it runs in the middle of the line, on a branch of it
// (s_show:18's toupper, blk_mq_start_request:19's req_op after
// blk_integrity_rq's &&), so a probe there would miss the runs that do
// not take the branch. Nor is a later row starting the block of a
// static branch of the line (staticBlockOf): the line's run continues
// there from its start. Where the line starts at a static branch, whose
// block does not come back to where runsOn probes, the block gets a
// point where it leaves the way back (blockRuns).
func (w *lineWalk) funcLinePoints(i, lo, hi int, cb func(file string, line int, addr uint64) error) error {
	return w.copiesLinePoints(w.copiesOf(i), lo, hi, cb)
}

// funcCopies is a function as the line rule walks it in one unit: its
// declaration's file and line, and its copies there (funcInstances).
// dwz moves an inline function's abstract instance to a partial unit,
// and its copies stay in the units that import it: each of those units
// holds some of the copies (referrers.copies).
type funcCopies struct {
	file   string
	decl   int
	copies []int
}

// copiesOf is function i's copies in w's unit.
func (w *lineWalk) copiesOf(i int) funcCopies {
	t := w.t
	decl, _ := t.declLine(i)
	return funcCopies{file: t.declFile(i), decl: decl, copies: w.funcInstances(i)}
}

// funcInstances is the scopes -L walks for function i: i itself when it
// has code, else its instances.
func (w *lineWalk) funcInstances(i int) []int {
	if w.t.isFuncInstance(i) {
		return []int{i}
	}
	return w.t.instancesOf(i)
}

// copiesLinePoints is funcLinePoints over the copies fc of a function in
// w's unit.
func (w *lineWalk) copiesLinePoints(fc funcCopies, lo, hi int, cb func(file string, line int, addr uint64) error) error {
	fname, decl := fc.file, fc.decl
	type cand struct {
		addr uint64
		row  bool
	}
	type key struct{ copy, line int }
	cands := map[key][]cand{}
	var keys []key
	for _, j := range fc.copies {
		add := func(row bool) func(string, int, uint64) error {
			return func(file string, line int, addr uint64) error {
				if line < lo || line > hi || !lazymatch.SourceTail(file, fname) {
					return nil
				}
				c := w.copyAt(j, addr)
				if line != decl && w.atFuncEntry(c, addr) && w.entryRow(file, line, addr) {
					return nil // the entry line's (perf's line 0), the opening brace's row
				}
				if line == decl && c != j {
					// Line 0 is the entry of the copies -D FUNC
					// probes; a copy inlined into the function
					// itself is not one (perf's redundant instance).
					return nil
				}
				k := key{c, line}
				if _, ok := cands[k]; !ok {
					keys = append(keys, k)
				}
				cands[k] = append(cands[k], cand{addr, row})
				return nil
			}
		}
		if err := w.walkScopeRows(j, w.ownRow, add(true)); err != nil {
			return err
		}
		if err := w.walkFuncLines(j, false, add(false)); err != nil {
			return err
		}
		if err := w.walkCopyCalls(j, j, add(false)); err != nil {
			return err
		}
	}
	seen := map[key]map[uint64]bool{}
	lf := &lineFlows{w: w}
	for _, k := range keys {
		cs := cands[k]
		slices.SortStableFunc(cs, func(a, b cand) int {
			switch {
			case a.addr < b.addr:
				return -1
			case a.addr > b.addr:
				return 1
			}
			return 0
		})
		lk := key{line: k.line}
		if seen[lk] == nil {
			seen[lk] = map[uint64]bool{}
		}
		points := map[uint64]bool{}
		for n, c := range cs {
			if n > 0 && (!c.row || !w.representsLine(fname, k.line, c.addr) || w.staticBlockOf(k.copy, fname, k.line, c.addr) ||
				!lf.ownRun(points, c.addr)) {
				continue
			}
			at := w.runsOn(c.addr)
			at = append(at, lf.blockRuns(k.copy, fname, k.line, c.addr, at[0])...)
			for _, a := range at {
				points[a] = true
				if seen[lk][a] {
					continue
				}
				seen[lk][a] = true
				if err := cb(fname, k.line, a); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// staticBlockOf reports whether addr starts the out-of-line block of a
// static branch (a jump label: static_branch_unlikely, static_key_false)
// whose code is line's own in copy c: its row inside the block, when the
// key is on, is the same run of the line as the code that jumped there,
// not another start of it. nft_do_chain:14 of 6.1's nf_tables, `if
// (static_branch_unlikely(&nft_trace_enabled))`, starts at +111, the NOP
// the kernel turns into a jump to +960 while nft tracing is on; a probe
// at +960 too would fire twice in one run. The kernel's table of static
// branches (__jump_table) names each one's code and block.
func (w *lineWalk) staticBlockOf(c int, file string, line int, addr uint64) bool {
	t := w.t
	if w.jumps == nil {
		return false
	}
	for _, code := range w.jumps.StaticBranchesTo(addr) {
		if !t.hasPC(c, code) {
			continue
		}
		if in := t.topInline(c, code); in >= 0 {
			if t.callFile(in) == file && int(t.dies[in].CallLine) == line {
				return true
			}
			continue
		}
		if rf, rl, ok := t.lineInfo(code); ok && rf == file && rl == line {
			return true
		}
	}
	return false
}

// runsOn is where a line starting at addr can be probed: addr, unless it
// is a static branch's code (a jump label's NOP or JMP, which the kernel
// refuses probes on: "Failed to register probe event"), when it is the
// instruction after it. The run goes on there with the key off, and with
// it on once the out-of-line block is done: a tracepoint's block, and an
// `if (static_branch_unlikely(&k)) { ... }`'s, end with a jump back to
// it. kernel_clone:51 of 6.12, trace_sched_process_fork, starts at the
// tracepoint's NOP at +213: +218, which fired 21 times for 21 forks
// booted, 5 of them with the event on (probing the block too counted
// those twice). Branches in a row are passed together: 6.1's
// __schedule:15, `if (sched_feat(HRTICK) || sched_feat(HRTICK_DL))`, is
// two NOPs at +150 and +155, whose blocks come back to +160. A block
// that does not come back (an early return under the key) is not
// followed.
func (w *lineWalk) runsOn(addr uint64) []uint64 {
	if w.jumps == nil {
		return []uint64{addr}
	}
	a := addr
	for n := 0; n < maxBranchRun; n++ {
		_, size, ok := w.jumps.StaticBranchAt(a)
		if !ok {
			break
		}
		a += size
	}
	return []uint64{a}
}

// maxBranchRun bounds how many static branches in a row runsOn passes
// (6.12's call_int_hook has one per LSM slot: a dozen).
const maxBranchRun = 64

// atFuncEntry reports whether addr is the entry of c, an out-of-line
// function, whose line is its declaration's (lineInfo): the row of its
// opening brace there, which holds the prologue, is the entry line perf
// calls line 0 (SystemTap calls it the brace's line). The entry of the
// function a copy c is inlined into is not c's: the rows of c's lines
// there are where they start (pt_scale:2 at scale_a+0, inlined before
// any instruction of scale_a's own).
func (w *lineWalk) atFuncEntry(c int, addr uint64) bool {
	t := w.t
	return t.realFunc(addr) == c && t.isEntryOf(c, addr)
}

// entryRow reports whether file:line is the first statement row at addr,
// a function's entry: the opening brace's row, which is line 0's. A
// later row there is a line whose code starts at the entry, in a
// function without a prologue (score:3, `return x * 3;`, the one
// instruction before ret): the line runs every time the function does,
// and is probed there.
func (w *lineWalk) entryRow(file string, line int, addr uint64) bool {
	lt, err := w.lt, w.ltErr
	if err != nil {
		return true
	}
	i := lt.stmtRowAt(addr)
	if i < 0 || lt.rows[i].Addr != addr {
		return true
	}
	// The first of the file's: a header's rows may come first there
	// (bio_add_hw_page's highmem.h:279, then its brace, bio.c:951).
	for ; i < len(lt.rows) && lt.rows[i].Addr == addr; i++ {
		r := lt.rows[i]
		if r.Stmt && !r.EndSeq && lt.fileOf(r) == file {
			return int(r.Line) == line
		}
	}
	return true
}

// copyAt is the copy of the function j is an instance of that holds
// addr: the innermost inlined subroutine nested in j containing addr
// that is a copy of the same function (GCC inlines a function into its
// own body: update_load_avg, submit_bio), else j.
func (w *lineWalk) copyAt(j int, addr uint64) int {
	t := w.t
	decl, _ := t.declLine(j)
	decf := t.declFile(j)
	c := j
	for cur := j; ; {
		in := w.inlineChildAt(cur, addr)
		if in < 0 {
			return c
		}
		if l, _ := t.declLine(in); l == decl && t.declFile(in) == decf {
			c = in
		}
		cur = in
	}
}

// fileFuncs calls fn for each function of a C unit declared in file
// fname whose lines, from its declaration to the next function's
// (funcEnd), meet [lo, hi], with the part of them that does: the
// functions -L SRC and -D SRC:LINE ask funcLinePoints about. An
// out-of-line copy of an inline function is its abstract instance's
// (funcInstances walks it).
func (w *lineWalk) fileFuncs(fname string, lo, hi int, fn func(i, lo, hi int) error) error {
	t := w.t
	for _, i := range t.topFuncs() {
		d := &t.dies[i]
		if d.HasOrigin && !d.OriginIsSpec || !t.isFuncDef(i) || t.declFile(i) != fname {
			continue
		}
		decl, ok := t.declLine(i)
		if !ok {
			continue
		}
		a, b := max(lo, decl), min(hi, w.funcEnd(i)-1)
		if a > b {
			continue
		}
		if err := fn(i, a, b); err != nil {
			return err
		}
	}
	return nil
}
