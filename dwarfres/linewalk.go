package dwarfres

import (
	"math"
	"sort"
	"sync"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
	"github.com/dwprobe/dwprobe/dwarfres/elfsym"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// lineWalk is the line code of one unit: the walks over its rows and its
// functions' lines (die_walk_lines), the one rule for where a line runs
// (funcLinePoints, linepoints.go) and the runs of a line in the code
// (linerun.go). It holds what they read: the unit's tree (t: its
// functions, scopes and inline trees), its line table, the kernel's
// static branches (__jump_table) and what decodes the code, and the
// declaration lines that bound a C function's (funcEnd). A unit's walk
// is part of its tree, set up once when first asked (cuTree.lineWalk),
// and shared by the queries.
type lineWalk struct {
	t     *cuTree
	lt    *lineTable // t's unit's; nil, with ltErr, when it does not read
	ltErr error

	jumps *elfsym.Image  // the static branches; nil without the symbol facts
	isa   *arch.Arch     // decodes the code; nil for a machine without a model
	text  *elfobj.Object // the code's bytes, and whether it is a module's

	declsOnce sync.Once
	decls     map[string][]int // funcEnd's sorted declaration lines, per file
}

// init sets w up as t's line walk, reading the unit's line table.
func (w *lineWalk) init(t *cuTree) {
	w.t, w.jumps, w.text = t, t.f.Image, t.f.Object
	w.lt, w.ltErr = t.lineTable()
	w.isa, _ = arch.For(t.f.ELF.Machine)
}

// representsLine reports whether addr is a probe point of file:line for
// -L and -D FUNC:RLN: an address whose statement row names another line
// of the file is that line's. An address with no statement row of its own
// (the entry of an inlined call, nft_do_chain's nft_net) is the line's:
// perf 6.12 lists it; perf 6.1 read a stale answer there and listed it on
// some runs only. So is one whose row is in another file: the entry of a
// call inlined from a header (vfs_read's inc_syscr(current) at +182), as
// perf's -D verify_representive_line takes it; perf's -L did not.
func (w *lineWalk) representsLine(file string, line int, addr uint64) bool {
	rf, rl, ok := w.t.lineInfo(addr)
	return !ok || rf != file || rl == line
}

// walkLines is die_walk_lines over a whole unit: statement rows in libdw's
// order, then the declaration and call-site lines of every function.
func (w *lineWalk) walkLines(cb func(file string, line int, addr uint64) error) error {
	t := w.t
	lt, err := w.lt, w.ltErr
	if err != nil {
		return err
	}
	for _, r := range lt.rows {
		if r.EndSeq || !r.Stmt {
			continue
		}
		if err := cb(lt.fileOf(r), int(r.Line), r.Addr); err != nil {
			return err
		}
	}
	for _, sp := range t.topFuncs() {
		if err := w.walkFuncLines(sp, true, cb); err != nil {
			return err
		}
	}
	return nil
}

// walkFuncLines is __die_walk_funclines.
func (w *lineWalk) walkFuncLines(sp int, recursive bool, cb func(string, int, uint64) error) error {
	t := w.t
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

// walkScopeLines is die_walk_lines for a function or inlined instance:
// statement rows inside the scope that are not inside a nested inline
// (unless they are that inline's call line), then the scope's own
// declaration and call-site lines.
func (w *lineWalk) walkScopeLines(rt int, cb func(string, int, uint64) error) error {
	return w.walkScope(rt, w.perfScopeRow, cb)
}

// walkCopyCalls walks the call sites of the inlines in each copy of rt
// inlined into in (GCC inlines submit_bio into its own out-of-line body):
// the copy is rt's own code, as ownRow takes its rows, so the entries of
// the calls it holds are rt's lines as a direct inline's are
// (submit_bio:7 at +116, the entry of count_vm_events).
func (w *lineWalk) walkCopyCalls(rt, in int, cb func(string, int, uint64) error) error {
	t := w.t
	decl, _ := t.declLine(rt)
	decf := t.declFile(rt)
	end := t.end(in)
	for j := in + 1; j < end; j++ {
		if t.dies[j].Tag != tagInlined {
			continue
		}
		if l, _ := t.declLine(j); l == decl && t.declFile(j) == decf {
			if err := w.walkFuncLines(j, false, cb); err != nil {
				return err
			}
			if err := w.walkCopyCalls(rt, j, cb); err != nil {
				return err
			}
		}
		j = t.end(j) - 1
	}
	return nil
}

// walkScope walks rt's statement rows that keep accepts, then its
// declaration and call-site lines.
func (w *lineWalk) walkScope(rt int, keep func(rt int, file string, line int, addr uint64) bool, cb func(string, int, uint64) error) error {
	if err := w.walkScopeRows(rt, keep, cb); err != nil {
		return err
	}
	return w.walkFuncLines(rt, false, cb)
}

// walkScopeRows walks rt's statement rows that keep accepts.
func (w *lineWalk) walkScopeRows(rt int, keep func(rt int, file string, line int, addr uint64) bool, cb func(string, int, uint64) error) error {
	t := w.t
	lt, err := w.lt, w.ltErr
	if err != nil {
		return err
	}
	rs := t.ranges(rt)
	for _, r := range lt.rows {
		if r.EndSeq || !r.Stmt || !inRanges(rs, r.Addr) {
			continue
		}
		file := lt.fileOf(r)
		if !keep(rt, file, int(r.Line), r.Addr) {
			continue
		}
		if err := cb(file, int(r.Line), r.Addr); err != nil {
			return err
		}
	}
	return nil
}

// perfScopeRow is die_walk_lines' test of a row inside a nested inline:
// kept when it is the innermost inline's call line, or that inline is a
// copy of rt itself (recursion).
func (w *lineWalk) perfScopeRow(rt int, file string, line int, addr uint64) bool {
	t := w.t
	in := w.innermostInline(rt, addr)
	if in < 0 {
		return true
	}
	decl, _ := t.declLine(rt)
	decf, _ := t.declFileNo(rt)
	if cf := t.callFile(in); cf != "" && cf == t.fileName(decf) && int(t.dies[in].CallLine) == line {
		return true
	}
	il, _ := t.declLine(in)
	inf, _ := t.declFileNo(in)
	return il == decl && inf == decf
}

// innermostInline is die_find_inlinefunc/die_find_top_inlinefunc helper:
// the innermost inlined_subroutine under sp containing pc, or -1.
func (w *lineWalk) innermostInline(sp int, pc uint64) int {
	t := w.t
	best := -1
	end := t.end(sp)
	for i := sp + 1; i < end; i++ {
		d := &t.dies[i]
		if d.Tag == tagInlined && (d.HasLow || d.HasRanges) && t.hasPC(i, pc) {
			best = i // later matches are deeper (preorder)
		} else if d.Tag == tagInlined {
			i = t.end(i) - 1 // not containing pc: skip its subtree
		}
	}
	return best
}

// ownRow reports whether a row of file:line at addr is rt's. In C, a
// row of rt's file is rt's when its line lies between rt's declaration
// and the next function's (funcEnd), whatever inline nested in rt holds
// the address: C functions do not nest, so no other function has the
// line. A line outside is a caller's, where rt is inlined (getname's call
// in getname_flags). Such rows inside a nested inline are the caller's
// code scheduled into the callee: try_to_wake_up:38-39 (6.12), whose
// rows come at the entry of the inlined ttwu_state_match, before its
// own. Elsewhere (C++ nests functions in classes): no inline nested in
// rt at addr is declared in that file (a line of another file cannot be
// the nested function's), or the outermost one that is has its call
// there (the call site in rt), or starts at addr, where the line table
// names the line first (dput:3 at +28, before fast_dput's rows).
func (w *lineWalk) ownRow(rt int, file string, line int, addr uint64) bool {
	t := w.t
	decl, _ := t.declLine(rt)
	decf := t.declFile(rt)
	if file == decf && (line < decl || line >= w.funcEnd(rt)) {
		return false // a caller's line, where rt is inlined (getname's call in getname_flags)
	}
	if file == decf && t.u.cOnly() {
		return true
	}
	for cur := rt; ; {
		in := w.inlineChildAt(cur, addr)
		if in < 0 {
			return true
		}
		if t.declFile(in) == file {
			if l, _ := t.declLine(in); l == decl && file == decf {
				return true // a recursive copy of rt
			}
			if w.startsRange(in, addr) {
				if rf, rl, ok := t.lineInfo(addr); ok && rf == file && rl == line {
					return true
				}
			}
			return t.callFile(in) == file && int(t.dies[in].CallLine) == line
		}
		cur = in
	}
}

// funcEnd bounds the lines of function i in its file: the declaration
// line of the next function the unit defines there, or MaxInt. A C
// function's lines lie between its declaration and the next; a row of
// its file past them, inside an inlined copy of it, is the caller's. C++
// nests functions in classes: unbounded there. A declaration without a
// definition does not bound: GCC hoists a block-scope one to the unit's
// top level with the line inside the function that declares it
// (__compiletime_assert_326 at n_tty.c:1715, from smp_load_acquire in
// n_tty_receive_buf_common, which cut off the lines after it).
func (w *lineWalk) funcEnd(i int) int {
	t := w.t
	if !t.u.cOnly() {
		return math.MaxInt
	}
	w.declsOnce.Do(func() {
		w.decls = map[string][]int{}
		for _, j := range t.topFuncs() {
			if t.dies[j].Declaration {
				continue
			}
			if l, ok := t.declLine(j); ok {
				f := t.declFile(j)
				w.decls[f] = append(w.decls[f], l)
			}
		}
		for _, ls := range w.decls {
			sort.Ints(ls)
		}
	})
	decl, _ := t.declLine(i)
	ls := w.decls[t.declFile(i)]
	if k := sort.SearchInts(ls, decl+1); k < len(ls) {
		return ls[k]
	}
	return math.MaxInt
}

// startsRange reports whether one of scope sc's address ranges begins at
// addr.
func (w *lineWalk) startsRange(sc int, addr uint64) bool {
	for _, r := range w.t.ranges(sc) {
		if r.Low == addr {
			return true
		}
	}
	return false
}

// inlineChildAt is the inlined subroutine nested in scope sc (directly, or
// inside a lexical block) that contains addr, or -1.
func (w *lineWalk) inlineChildAt(sc int, addr uint64) int {
	t := w.t
	end := t.end(sc)
	for j := sc + 1; j < end; j++ {
		if t.dies[j].Tag != tagInlined {
			continue
		}
		if (t.dies[j].HasLow || t.dies[j].HasRanges) && t.hasPC(j, addr) {
			return j
		}
		j = t.end(j) - 1
	}
	return -1
}
