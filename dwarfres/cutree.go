package dwarfres

import (
	"debug/dwarf"
	"slices"
	"sort"
	"sync"
)

// cuTree is one unit decoded: every DIE in order, with parent links, but
// for the bodies of a C unit's top-level types (lazyBody). perf's walks
// (instances, scopes, lines) are all defined over this tree, and a
// candidate unit is small enough to hold.
type cuTree struct {
	f    *File
	u    *unit
	dies []die

	// lazy lists the DIEs whose children were not decoded, in order;
	// bodies holds those decoded since (body).
	lazy   []int32
	bodyMu sync.Mutex
	bodies map[int32]*cuTree
	// owner is, for a type's body, the tree of its unit: what belongs to
	// the unit (its line table, its other DIEs) is asked of the owner.
	owner *cuTree

	linesOnce sync.Once
	lines     *lineTable
	linesErr  error

	optOnce sync.Once
	opt     bool

	funcsOnce sync.Once
	funcs     *funcSpans

	walkOnce sync.Once
	walk     lineWalk // its line code, set up when first asked (no allocation of its own)
}

func (f *File) decodeUnit(u *unit) (*cuTree, error) {
	if _, err := f.rootDIE(u); err != nil {
		return nil, err
	}
	r, done := f.copyReader(u)
	defer done()
	if r.err != nil {
		return nil, r.err
	}
	// A unit's DIE count is only known at its end: decode in place into
	// a reused array, and copy out what the unit holds (a fresh array of
	// the exact size needs no clearing, and no doubling copies either).
	sp := scratchDIEs.get()
	defer scratchDIEs.put(sp)
	dies := (*sp)[:0]
	t := &cuTree{f: f, u: u}
	var stack []int32
	c := u.cOnly()
	for {
		if len(dies) == cap(dies) {
			dies = slices.Grow(dies, max(1024, len(dies)))
		}
		d := &dies[:len(dies)+1][len(dies)]
		if !r.next(d) {
			break
		}
		stack, d.Parent = openParent(dies, stack, d.Depth)
		i := int32(len(dies))
		dies = dies[:i+1]
		if c && d.Depth == 1 && lazyBody(d, u) {
			d.Lazy = true
			t.lazy = append(t.lazy, i)
			r.seek(d.Sibling, int(d.Depth))
		} else if d.Children {
			stack = append(stack, i)
		}
	}
	*sp = dies
	t.dies = append([]die(nil), dies...)
	if r.err != nil {
		return nil, r.err
	}
	return t, nil
}

// openParent closes the DIEs of stack (the open ones, innermost last)
// that a DIE at depth does not nest in, and returns the rest and its
// parent (the innermost left; -1 for none).
func openParent(dies []die, stack []int32, depth int32) ([]int32, int32) {
	for len(stack) > 0 && dies[stack[len(stack)-1]].Depth >= depth {
		stack = stack[:len(stack)-1]
	}
	if len(stack) == 0 {
		return stack, -1
	}
	return stack, stack[len(stack)-1]
}

// lazyBody reports whether the children of d, a top-level DIE of a C
// unit, wait until asked for (body): a type's members, enumerators or
// parameter types, half the DIEs of a kernel unit, which no search for
// functions, lines or variables walks (only a type walk, through Entry,
// does). Its DW_AT_sibling steps over them without reading them.
func lazyBody(d *die, u *unit) bool {
	if !d.Children || d.Sibling <= d.Off || d.Sibling > u.end {
		return false
	}
	switch d.Tag {
	case dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagEnumerationType, dwarf.TagSubroutineType:
		return true
	}
	return false
}

// body returns the tree of lazy DIE i and its descendants, decoded once:
// its root is index 0.
func (t *cuTree) body(i int32) (*cuTree, error) {
	t.bodyMu.Lock()
	defer t.bodyMu.Unlock()
	if b, ok := t.bodies[i]; ok {
		return b, nil
	}
	top := t.dies[i]
	r := t.f.newReader(t.u)
	if r.err != nil {
		return nil, r.err
	}
	r.seek(top.Off, int(top.Depth))
	b := &cuTree{f: t.f, u: t.u, owner: t}
	var stack []int32
	var d die
	for r.b.pos() < top.Sibling && r.next(&d) {
		if d.Depth < top.Depth || len(b.dies) > 0 && d.Depth == top.Depth {
			break
		}
		stack, d.Parent = openParent(b.dies, stack, d.Depth)
		b.dies = append(b.dies, d)
		if d.Children {
			stack = append(stack, int32(len(b.dies)-1))
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(b.dies) == 0 || b.dies[0].Off != top.Off {
		return nil, &DecodeError{Section: ".debug_info", Offset: top.Off, Msg: "DW_AT_sibling does not close the DIE's children"}
	}
	if t.bodies == nil {
		t.bodies = map[int32]*cuTree{}
	}
	t.bodies[i] = b
	return b, nil
}

// unitTree is the tree of t's unit: t, or the owner of a type's body.
func (t *cuTree) unitTree() *cuTree {
	if t.owner != nil {
		return t.owner
	}
	return t
}

// lookup returns the DIE at section offset off in t's unit: among its
// decoded DIEs, else in the body of the lazy DIE that holds it.
func (t *cuTree) lookup(off uint64) (Entry, bool) {
	if j := t.idx(off); j >= 0 {
		return Entry{t, j}, true
	}
	o := t.unitTree()
	if o != t {
		if j := o.idx(off); j >= 0 {
			return Entry{o, j}, true
		}
	}
	// The last lazy DIE at or before off.
	k := sort.Search(len(o.lazy), func(k int) bool { return o.dies[o.lazy[k]].Off > off }) - 1
	if k < 0 || off >= o.dies[o.lazy[k]].Sibling {
		return Entry{}, false
	}
	b, err := o.body(o.lazy[k])
	if err != nil {
		return Entry{}, false
	}
	if j := b.idx(off); j >= 0 {
		return Entry{b, j}, true
	}
	return Entry{}, false
}

// scratchDIEs holds decodeUnit's arrays, one per decoder at most: a
// sync.Pool would drop them at each collection, which a run of many
// units (a collection every few units) pays in regrowing them.
var scratchDIEs = newFreeList[die](workers() + 1)

// freeList keeps up to its capacity of reusable slices.
type freeList[T any] chan *[]T

func newFreeList[T any](n int) freeList[T] { return make(freeList[T], n) }

func (l freeList[T]) get() *[]T {
	select {
	case s := <-l:
		return s
	default:
		return new([]T)
	}
}

func (l freeList[T]) put(s *[]T) {
	select {
	case l <- s:
	default:
	}
}

// copyReader is newReader over a copy of u's bytes, read with pread into a
// reused buffer rather than through the mapping: a probe decoding half the
// kernel's units would otherwise keep half of .debug_info resident (and
// counted in its RSS). What it reads must not keep slices of them (a DIE
// does not); done returns the buffer.
func (f *File) copyReader(u *unit) (r *reader, done func()) {
	r = f.newReader(u)
	ib := scratchInfo.Get().(*[]byte)
	if n := int(u.end - u.dieOff); cap(*ib) < n {
		*ib = make([]byte, n)
	}
	r.b.data = (*ib)[:f.readInfo((*ib)[:u.end-u.dieOff], u.dieOff)]
	return r, func() { scratchInfo.Put(ib) }
}

// scratchInfo holds copyReader's buffers.
var scratchInfo = sync.Pool{New: func() any { return new([]byte) }}

// idx returns the index of the DIE at section offset off, or -1.
func (t *cuTree) idx(off uint64) int {
	i := sort.Search(len(t.dies), func(i int) bool { return t.dies[i].Off >= off })
	if i < len(t.dies) && t.dies[i].Off == off {
		return i
	}
	return -1
}

// origin returns the index of the DIE's abstract origin/specification in
// this unit, or -1.
func (t *cuTree) origin(i int) int {
	if !t.dies[i].HasOrigin {
		return -1
	}
	return t.idx(t.dies[i].Origin)
}

// name is dwarf_diename: DW_AT_name, following abstract_origin and
// specification (dwarf_attr_integrate).
func (t *cuTree) name(i int) string {
	e, ok := t.integratedAny(i, (*die).HasName)
	if !ok {
		return ""
	}
	return e.t.f.rawName(e.t.u, &e.t.dies[e.i])
}

// integrated returns the index holding attribute sel, following origins.
func (t *cuTree) integrated(i int, has func(*die) bool) int {
	for n := 0; i >= 0 && n < 8; n++ {
		if has(&t.dies[i]) {
			return i
		}
		i = t.origin(i)
	}
	return -1
}

func (t *cuTree) declLine(i int) (int, bool) {
	e, ok := t.integratedAny(i, func(d *die) bool { return d.DeclLine != 0 })
	if !ok {
		return 0, false
	}
	return int(e.t.dies[e.i].DeclLine), true
}

func (t *cuTree) declFileNo(i int) (int64, bool) {
	j := t.integrated(i, func(d *die) bool { return d.DeclFile != 0 || t.u.version >= 5 && d.DeclLine != 0 })
	if j < 0 {
		return 0, false
	}
	return int64(t.dies[j].DeclFile), true
}

// declFile is dwarf_decl_file: the file name of DW_AT_decl_file.
// The file number counts in the line table of the unit holding the
// attribute, which for dwz may be another unit or file.
func (t *cuTree) declFile(i int) string {
	e, ok := t.walkOrigins(i, func(t *cuTree, j int) bool {
		d := &t.dies[j]
		return d.DeclFile != 0 || t.u.version >= 5 && d.DeclLine != 0
	})
	if !ok {
		return ""
	}
	return e.t.fileName(int64(e.t.dies[e.i].DeclFile))
}

func (t *cuTree) fileName(n int64) string {
	lt, err := t.lineTable()
	if err != nil || n < 0 || n >= int64(len(lt.files)) {
		return ""
	}
	return lt.files[n]
}

// entryPC is dwarf_entrypc: DW_AT_entry_pc, else DW_AT_low_pc.
func (t *cuTree) entryPC(i int) (uint64, bool) {
	d := &t.dies[i]
	if d.HasEntry {
		return d.EntryPC, true
	}
	if d.HasLow {
		return d.LowPC, true
	}
	return 0, false
}

// dieEntryPC is perf's die_entrypc: dwarf_entrypc, else the first range.
func (t *cuTree) dieEntryPC(i int) (uint64, bool) {
	if a, ok := t.entryPC(i); ok {
		return a, true
	}
	if !t.dies[i].HasRanges {
		return 0, false
	}
	rs, err := unitLists{t.f, t.u}.ranges(&t.dies[i])
	if err != nil || len(rs) == 0 {
		return 0, false
	}
	return rs[0].Low, true
}

func (t *cuTree) ranges(i int) []Range {
	rs, _ := unitLists{t.f, t.u}.ranges(&t.dies[i])
	return rs
}

func (t *cuTree) hasPC(i int, pc uint64) bool { return inRanges(t.ranges(i), pc) }

// isFuncDef is perf's die_is_func_def.
func (t *cuTree) isFuncDef(i int) bool {
	d := &t.dies[i]
	if d.Tag != tagSubprogram || d.Declaration {
		return false
	}
	if d.Inline {
		return true
	}
	_, ok := t.dieEntryPC(i) // perf's die_entrypc: ranges count too
	return ok
}

// isFuncInstance is perf's die_is_func_instance.
func (t *cuTree) isFuncInstance(i int) bool {
	d := &t.dies[i]
	if d.Tag != tagSubprogram && d.Tag != tagInlined {
		return false
	}
	_, ok := t.entryPC(i)
	return ok || d.HasRanges
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
		if d.Tag == tagInlined && d.HasCallLine && int(d.CallLine) == decl && int64(d.CallFile) == df {
			continue
		}
		out = append(out, j)
	}
	return out
}

// end returns one past the index of i's last descendant.
func (t *cuTree) end(i int) int {
	d := t.dies[i].Depth
	j := i + 1
	for j < len(t.dies) && t.dies[j].Depth > d {
		j++
	}
	return j
}

// topFuncs returns the subprograms libdw's dwarf_getfuncs visits, in DIE
// order: for a C unit the children of the root (C functions do not nest in
// anything a probe can name); for any other language (C++, Rust, Go) every
// subprogram, however deep in namespaces, classes, impls or functions.
func (t *cuTree) topFuncs() []int {
	c := t.u.cOnly()
	var out []int
	for i := 1; i < len(t.dies); i++ {
		if t.dies[i].Tag == tagSubprogram && (t.dies[i].Depth == 1 || !c) {
			out = append(out, i)
		}
	}
	return out
}

// realFunc is perf's die_find_realfunc: the top-level subprogram containing
// pc, the first in DIE order when ranges overlap. It searches the unit's
// function spans, sorted once, so mapping many addresses (-l) costs a
// binary search each.
func (t *cuTree) realFunc(pc uint64) int {
	t.funcsOnce.Do(func() { t.funcs = newFuncSpans(t) })
	return t.funcs.at(pc)
}

// lineWalk is t's line walk (linewalk.go), built once.
func (t *cuTree) lineWalk() *lineWalk {
	t.walkOnce.Do(func() { t.walk.init(t) })
	return &t.walk
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

// callFile returns the file of DW_AT_call_file.
func (t *cuTree) callFile(i int) string {
	if !t.dies[i].HasCallFile {
		return ""
	}
	return t.fileName(int64(t.dies[i].CallFile))
}
