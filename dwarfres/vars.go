package dwarfres

import (
	"debug/dwarf"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Scope is a resolved probe address with the DWARF scope it was found in
// (the function, the inlined instance or the best scope of a line), for
// finding the variables reachable there. It names its unit and DIEs rather
// than holding the decoded unit: a probe with points in a thousand units
// keeps a thousand Scopes, and the units stay in the File's bounded cache
// (decoded again if evicted) instead of all in memory.
type Scope struct {
	f            *File
	u            *unit
	scOff, spOff uint64 // scope DIE, real (out-of-line) function
	Addr         uint64
	// srcFile and srcLine, when srcLine is set, are the line a line
	// search placed the point for (Source).
	srcFile string
	srcLine int
}

// treeScope is a Scope bound to its decoded unit, for the duration of one
// question: sc and sp are DIE indexes in t.
type treeScope struct {
	t      *cuTree
	sc, sp int
	Addr   uint64
}

// newScope is the Scope of DIE sc in real function sp of t at addr.
func newScope(t *cuTree, sc, sp int, addr uint64) *Scope {
	return &Scope{f: t.f, u: t.u, scOff: t.dies[sc].Off, spOff: t.dies[sp].Off, Addr: addr}
}

// bind finds the scope's unit decoded: from the cache, or decoded again.
func (s *Scope) bind() (*treeScope, error) {
	t, err := s.f.tree(s.u)
	if err != nil {
		return nil, err
	}
	return s.in(t)
}

// bindFor binds the scope for a question about v: in v's own tree when v
// is of the scope's unit, so that both name the same DIEs whatever the
// cache evicted since v was found.
func (s *Scope) bindFor(v Entry) (*treeScope, error) {
	if v.t != nil && v.t.u == s.u {
		return s.in(v.t)
	}
	return s.bind()
}

func (s *Scope) in(t *cuTree) (*treeScope, error) {
	sc, sp := t.idx(s.scOff), t.idx(s.spOff)
	if sc < 0 || sp < 0 {
		return nil, &DecodeError{Section: ".debug_info", Offset: s.scOff, Msg: "scope DIE not found in its unit"}
	}
	return &treeScope{t: t, sc: sc, sp: sp, Addr: s.Addr}, nil
}

// File is the file the scope belongs to.
func (s *Scope) File() *File { return s.f }

// DIEOffset is the section offset of the DIE the point was found in: the
// function, or the copy of it inlined there. The points of one copy of a
// function share it.
func (s *Scope) DIEOffset() uint64 { return s.scOff }

// Func is the name of the out-of-line function containing the address.
func (s *Scope) Func() string {
	b, err := s.bind()
	if err != nil {
		return ""
	}
	return b.Func()
}

// FuncEntry is the entry address of the out-of-line function.
func (s *Scope) FuncEntry() (uint64, bool) {
	b, err := s.bind()
	if err != nil {
		return 0, false
	}
	return b.FuncEntry()
}

// FuncEntryPC is the out-of-line function's DW_AT_entry_pc or
// DW_AT_low_pc (elfutils' dwarf_entrypc); false for a function whose code
// is only ranges (split into a .cold part), which FuncEntry answers with
// its first range.
func (s *Scope) FuncEntryPC() (uint64, bool) {
	b, err := s.bind()
	if err != nil {
		return 0, false
	}
	return b.t.entryPC(b.sp)
}

// FuncDIE is the out-of-line function's own DIE: its Type (followed
// through DW_AT_abstract_origin) is what the function returns, which a
// return probe's $retval holds; false without one (a void function has
// no DW_AT_type: Type says so).
func (s *Scope) FuncDIE() (Entry, bool) {
	b, err := s.bind()
	if err != nil {
		return Entry{}, false
	}
	return Entry{b.t, b.sp}, true
}

// Lookup is perf's find_variable search: the first formal parameter or
// variable named name (with a location, a constant value or external) in
// the scope or the nested scopes holding the address, else a unit-level
// variable of that name.
func (s *Scope) Lookup(name string) (Entry, bool) {
	b, err := s.bind()
	if err != nil {
		return Entry{}, false
	}
	return b.Lookup(name)
}

// LookupDeclared finds a variable or parameter named name in the scope's
// function whatever its location (Lookup skips those without one): for
// saying why a name Lookup did not find cannot be read. inScope tells
// whether its block holds the scope's address.
func (s *Scope) LookupDeclared(name string) (v Entry, inScope bool, ok bool) {
	b, err := s.bind()
	if err != nil {
		return Entry{}, false, false
	}
	return b.LookupDeclared(name)
}

// Vars lists the formal parameters (and, with locals, the variables) of the
// scope and the nested scopes holding the address, as perf's $params and
// $vars expand: only those with a location usable here.
func (s *Scope) Vars(locals bool) []Entry {
	b, err := s.bind()
	if err != nil {
		return nil
	}
	return b.Vars(locals)
}

// Available lists every parameter and variable visible at the address in
// perf's collect_variables_cb order (scope, then with externs the unit's
// variables), each with the result of resolving its location.
func (s *Scope) Available(externs bool) []Avail {
	b, err := s.bind()
	if err != nil {
		return nil
	}
	return b.Available(externs)
}

// Location resolves where the value of variable v is at the scope's address:
// a register, memory at a register or symbol plus offsets, or a constant.
// Frame-base locations are expressed against the register of the frame base
// (for DW_OP_call_frame_cfa, the CFA rule at the address); an entry value
// is the register itself at the function's entry. Errors wrap ErrNoLocation
// (optimized out here) or ErrLocation (a form a fetcharg cannot express).
func (s *Scope) Location(v Entry) (Loc, error) {
	b, err := s.bindFor(v)
	if err != nil {
		return Loc{}, err
	}
	return b.Location(v)
}

// Ranges lists where v has a location: its location-list ranges, or for a
// single expression the ranges of its enclosing scope; nil when unknown.
func (s *Scope) Ranges(v Entry) []Range {
	b, err := s.bindFor(v)
	if err != nil {
		return nil
	}
	return b.Ranges(v)
}

// ReadableRanges is Ranges less the ranges where a probe cannot read v:
// those whose location is only known at the function's entry
// (DW_OP_entry_value) or is otherwise not a probe's fetcharg.
func (s *Scope) ReadableRanges(v Entry) []Range {
	b, err := s.bindFor(v)
	if err != nil {
		return nil
	}
	return b.ReadableRanges(v)
}

// FuncDeclLine is the declaration line of the out-of-line function the
// scope is in: FUNC:N's line 0.
func (s *Scope) FuncDeclLine() (int, bool) {
	b, err := s.bind()
	if err != nil {
		return 0, false
	}
	return b.t.declLine(b.sp)
}

// PerfRanges writes where a probe can read v (ReadableRanges, so that
// -V --range and -D agree; perf also lists ranges where only
// DW_OP_entry_value knows the value) in perf's die_get_var_range format:
// "@<FUNC+[A-B,C-D]>" relative to the function entry, "" when none.
func (s *Scope) PerfRanges(v Entry) string {
	b, err := s.bindFor(v)
	if err != nil {
		return ""
	}
	return b.PerfRanges(v)
}

// LinesIn lists the source lines of the scope's function that a line probe
// would place in rs (at the line's first is_stmt address, which is
// attributed to it), sorted, at most limit of them; for error hints saying
// where a variable can be read.
func (s *Scope) LinesIn(rs []Range, limit int) (file string, lines []int) {
	b, err := s.bind()
	if err != nil {
		return "", nil
	}
	return b.LinesIn(rs, limit)
}

// LocatedLater is perf's --range test for a local variable without a
// location at the address: it gets one further on in the function (perf
// scans up to DW_AT_high_pc, so functions described by ranges never qualify).
func (s *Scope) LocatedLater(v Entry) bool {
	b, err := s.bindFor(v)
	if err != nil {
		return false
	}
	return b.LocatedLater(v)
}

// ErrNoLocation: the variable exists in scope but has no location at the
// probe address (optimized out there).
var ErrNoLocation = errors.New("no location at this address")

func (s *treeScope) Func() string { return s.t.name(s.sp) }

func (s *treeScope) FuncEntry() (uint64, bool) { return s.t.dieEntryPC(s.sp) }

// Lookup answers Scope.Lookup in the bound unit.
func (s *treeScope) Lookup(name string) (Entry, bool) {
	t := s.t
	var found = -1
	s.visit(s.sc, true, func(j int) bool {
		if s.isVarWithValue(j) && t.name(j) == name {
			found = j
			return true
		}
		return false
	})
	if found < 0 {
		s.visit(0, false, func(j int) bool {
			if s.isVarWithValue(j) && t.name(j) == name {
				found = j
				return true
			}
			return false
		})
	}
	if found < 0 {
		if g, ok, err := (globals{t.f}).find(name); err == nil && ok {
			return g, true
		}
		return Entry{}, false
	}
	return Entry{t, found}, true
}

// LookupDeclared answers Scope.LookupDeclared in the bound unit.
func (s *treeScope) LookupDeclared(name string) (v Entry, inScope bool, ok bool) {
	t := s.t
	found := -1
	isVar := func(j int) bool {
		tag := t.dies[j].Tag
		return (tag == dwarf.TagFormalParameter || tag == dwarf.TagVariable) && t.name(j) == name
	}
	s.visit(s.sc, true, func(j int) bool {
		if isVar(j) {
			found, inScope = j, true
		}
		return found >= 0
	})
	if found < 0 {
		for j := s.sp + 1; j < t.end(s.sp); j++ {
			if isVar(j) {
				found = j
				break
			}
		}
	}
	if found < 0 {
		return Entry{}, false, false
	}
	return Entry{t, found}, inScope, true
}

// isVarWithValue is __die_find_variable_cb's test.
func (s *treeScope) isVarWithValue(j int) bool {
	d := &s.t.dies[j]
	if d.Tag != dwarf.TagFormalParameter && d.Tag != dwarf.TagVariable {
		return false
	}
	a, err := s.t.attrs(j)
	if err != nil {
		return false
	}
	return a.has(dwarf.AttrExternal) || a.has(dwarf.AttrLocation) || a.has(dwarf.AttrConstValue)
}

// visit is perf's die_find_child over root: fn sees each child in order and,
// with nested, the children of those that contain the address (lexical
// blocks, inlined instances), depth first. fn returns true to stop.
func (s *treeScope) visit(root int, nested bool, fn func(j int) bool) bool {
	t := s.t
	end := t.end(root)
	depth := t.dies[root].Depth
	for j := root + 1; j < end; j++ {
		if t.dies[j].Depth != depth+1 {
			continue
		}
		if fn(j) {
			return true
		}
		if nested && t.dies[j].Children && (t.dies[j].HasLow || t.dies[j].HasRanges) && t.hasPC(j, s.Addr) {
			if s.visit(j, true, fn) {
				return true
			}
		}
	}
	return false
}

// Vars answers Scope.Vars in the bound unit.
func (s *treeScope) Vars(locals bool) []Entry {
	var out []Entry
	s.visit(s.sc, true, func(j int) bool {
		tag := s.t.dies[j].Tag
		if tag == dwarf.TagFormalParameter || tag == dwarf.TagVariable && locals {
			if _, err := s.Location(Entry{s.t, j}); err == nil {
				out = append(out, Entry{s.t, j})
			}
		}
		return false
	})
	return out
}

// Avail is one variable of a -V listing.
type Avail struct {
	Var      Entry
	External bool  // a unit-level variable (--externs)
	Err      error // nil, or why it has no usable location here
}

// Available answers Scope.Available in the bound unit.
func (s *treeScope) Available(externs bool) []Avail {
	var out []Avail
	add := func(j int, ext bool) {
		tag := s.t.dies[j].Tag
		if tag != dwarf.TagFormalParameter && tag != dwarf.TagVariable {
			return
		}
		_, err := s.Location(Entry{s.t, j})
		out = append(out, Avail{Var: Entry{s.t, j}, External: ext, Err: err})
	}
	s.visit(s.sc, true, func(j int) bool { add(j, false); return false })
	if externs {
		s.visit(0, false, func(j int) bool { add(j, true); return false })
	}
	return out
}

// Location answers Scope.Location in the bound unit.
func (s *treeScope) Location(v Entry) (Loc, error) {
	if v.t != s.t {
		// A global from another unit (globals.find): its own unit decodes it.
		o := &treeScope{t: v.t, sc: 0, sp: 0, Addr: s.Addr}
		return o.Location(v)
	}
	t := s.t
	a, err := t.attrs(v.i)
	if err != nil {
		return Loc{}, err
	}
	if a.has(dwarf.AttrExternal) {
		if x, ok := a.get(dwarf.AttrLocation); ok && len(x.blk) > 0 {
			if loc, err := s.decode(x.blk); err == nil && loc.Kind == LocMem && loc.HasAddr {
				loc.Sym = v.Name()
				return loc, nil
			}
		}
		// A declaration of a global defined elsewhere: the symbol has its name.
		return Loc{Kind: LocMem, Sym: v.Name(), Derefs: []int64{0}}, nil
	}
	if x, ok := a.get(dwarf.AttrConstValue); ok {
		c, ok := a.sdata(dwarf.AttrConstValue)
		if !ok {
			return Loc{}, fmt.Errorf("%w: a constant value that is not an integer", ErrLocation)
		}
		if tp, ok := v.RealType(true); ok && !tp.Signed() && x.form != formSdata {
			// DW_FORM_dataN carries no sign: an unsigned variable's
			// constant is not sign-extended (perf's dwarf_formsdata is).
			c = int64(x.v)
		}
		return Loc{Kind: LocConst, Const: c}, nil
	}
	x, ok := a.get(dwarf.AttrLocation)
	if !ok {
		return Loc{}, fmt.Errorf("%w: the variable has no location attribute", ErrNoLocation)
	}
	expr, ok, err := s.exprAtViews(a, x, s.Addr)
	if err != nil {
		return Loc{}, err
	}
	if !ok {
		// perf: a parameter at the function entry may only be described
		// from just after the fentry call; take its first location.
		entry, eok := t.dieEntryPC(s.sp)
		if !eok || s.Addr != entry || t.dies[v.i].Tag != dwarf.TagFormalParameter {
			return Loc{}, ErrNoLocation
		}
		// The first address after the entry, within the function, that
		// some entry of the list covers (perf steps byte by byte).
		list, _, err := s.locEntries(x)
		if err != nil {
			return Loc{}, err
		}
		first, found := uint64(0), false
		for _, r := range t.ranges(s.sp) {
			for _, e := range list {
				lo, hi := max(e.Low, r.Low, s.Addr+1), min(e.High, r.High)
				if !e.Default && lo < hi && (!found || lo < first) {
					first, found = lo, true
				}
			}
		}
		if !found {
			return Loc{}, ErrNoLocation
		}
		expr, _ = locAt(list, first)
	}
	if len(expr) == 0 {
		return Loc{}, fmt.Errorf("%w: empty location (optimized out)", ErrNoLocation)
	}
	loc, err := s.decode(expr)
	if err != nil {
		return Loc{}, err
	}
	if loc.Piece > 0 {
		if tp, ok := v.RealType(true); ok {
			if size, ok := tp.ByteSize(); ok && loc.Piece < size {
				return Loc{}, fmt.Errorf("%w: only %d of its %d bytes are described (DW_OP_piece), the rest is optimized out", ErrLocation, loc.Piece, size)
			}
		}
		loc.Piece = 0
	}
	if loc.HasAddr {
		loc.Sym = v.Name()
	}
	return s.resolve(loc)
}

func (t *cuTree) attrsGet(i int, at dwarf.Attr) (attrVal, bool) {
	a, err := t.attrs(i)
	if err != nil {
		return attrVal{}, false
	}
	return a.get(at)
}

// exprAt returns the location expression of attribute x valid at pc: the
// expression itself, or the matching entry of its location list.
func (s *treeScope) exprAt(x attrVal, pc uint64) ([]byte, bool, error) {
	return s.exprAtViews(nil, x, pc)
}

// locEntries reads the location list of x; single is true for an exprloc.
func (s *treeScope) locEntries(x attrVal) (list []LocEntry, single bool, err error) {
	t := s.t
	switch x.form {
	case formExprloc, formBlock, formBlock1, formBlock2, formBlock4:
		return nil, true, nil
	case formSecOffset, formData4, formData8, formLoclistx:
	default:
		return nil, false, &DecodeError{Section: ".debug_info", Offset: t.u.off, Msg: fmt.Sprintf("location attribute with form %#x", x.form)}
	}
	root, err := t.f.rootDIE(t.u)
	if err != nil {
		return nil, false, err
	}
	locBase := t.u.locB
	if x.form == formLoclistx && locBase == 0 {
		locBase = 12 // the first table, right after a 32-bit header
	}
	list, err = unitLists{t.f, t.u}.locList(x.v, x.form == formLoclistx, locBase, root.LowPC)
	return list, false, err
}

func (s *treeScope) decode(expr []byte) (Loc, error) {
	t := s.t
	r := &reader{f: t.f, u: t.u}
	return decodeLocation(expr, t.u.addrSize, t.f.Order, func(i uint64) (uint64, error) {
		a := r.addrx(i)
		if r.b.err != nil {
			return 0, r.b.err
		}
		return a, nil
	})
}

// resolve turns frame-base and entry-value locations into register ones.
func (s *treeScope) resolve(loc Loc) (Loc, error) {
	switch loc.Kind {
	case LocFrameBaseAddr:
		m, err := s.resolve(Loc{Kind: LocFrameBase, Offset: loc.Offset})
		if err != nil {
			return Loc{}, err
		}
		if m.Kind != LocMem || len(m.Derefs) != 1 {
			return Loc{}, fmt.Errorf("%w: address of a frame slot", ErrLocation)
		}
		return Loc{Kind: LocRegOffset, Reg: m.Reg, Offset: m.Derefs[0]}, nil
	case LocFrameBase:
		x, ok := s.t.attrsGet(s.sp, dwarf.AttrFrameBase)
		if !ok {
			return Loc{}, fmt.Errorf("%w: DW_OP_fbreg without a frame base in %s", ErrLocation, s.Func())
		}
		expr, ok, err := s.exprAt(x, s.Addr)
		if err != nil {
			return Loc{}, err
		}
		if !ok || len(expr) == 0 {
			return Loc{}, fmt.Errorf("%w: the frame base of %s is unknown at %#x", ErrNoLocation, s.Func(), s.Addr)
		}
		fb, err := s.decode(expr)
		if err != nil {
			return Loc{}, err
		}
		switch {
		case fb.Kind == LocCFA:
			reg, off, err := s.t.f.frames.cfa(s.t.f, s.Addr)
			if err != nil {
				if errors.Is(err, ErrNotFound) {
					err = fmt.Errorf("%w: %v", ErrNoLocation, err)
				}
				return Loc{}, fmt.Errorf("frame base at %#x: %w", s.Addr, err)
			}
			return Loc{Kind: LocMem, Reg: reg, Derefs: []int64{off + loc.Offset}}, nil
		case fb.Kind == LocReg:
			return Loc{Kind: LocMem, Reg: fb.Reg, Derefs: []int64{loc.Offset}}, nil
		case fb.Kind == LocMem && !fb.HasAddr && len(fb.Derefs) == 1:
			// DW_OP_bregN K as a frame base is the address regN+K.
			return Loc{Kind: LocMem, Reg: fb.Reg, Derefs: []int64{fb.Derefs[0] + loc.Offset}}, nil
		}
		return Loc{}, fmt.Errorf("%w: frame base of %s", ErrLocation, s.Func())
	case LocEntryReg:
		if entry, ok := s.FuncEntry(); ok && entry == s.Addr {
			return Loc{Kind: LocReg, Reg: loc.Reg}, nil
		}
		return Loc{}, fmt.Errorf("%w: the value is only known at the entry of %s (DW_OP_entry_value)", ErrNoLocation, s.Func())
	case LocCFA:
		return Loc{}, fmt.Errorf("%w: DW_OP_call_frame_cfa as a variable", ErrLocation)
	}
	return loc, nil
}

// Ranges answers Scope.Ranges in the bound unit.
func (s *treeScope) Ranges(v Entry) []Range {
	t := s.t
	a, err := t.attrs(v.i)
	if err != nil {
		return nil
	}
	x, ok := a.get(dwarf.AttrLocation)
	if !ok {
		return nil
	}
	list, single, err := s.locEntries(x)
	if err != nil {
		return nil
	}
	if single {
		p := t.dies[v.i].Parent
		if p < 0 {
			return nil
		}
		return t.ranges(int(p))
	}
	var out []Range
	for _, e := range list {
		if !e.Default && e.High > e.Low {
			out = append(out, Range{e.Low, e.High})
		}
	}
	return out
}

// ReadableRanges answers Scope.ReadableRanges in the bound unit.
func (s *treeScope) ReadableRanges(v Entry) []Range {
	var out []Range
	for _, r := range s.Ranges(v) {
		at := *s
		at.Addr = r.Low
		if _, err := at.Location(v); err == nil {
			out = append(out, r)
		}
	}
	return out
}

// PerfRanges answers Scope.PerfRanges in the bound unit.
func (s *treeScope) PerfRanges(v Entry) string {
	entry, ok := s.t.dieEntryPC(s.sp)
	if !ok {
		return ""
	}
	rs := s.ReadableRanges(v)
	if len(rs) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "@<%s+[", s.Func())
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d-%d", int64(r.Low-entry), int64(r.High-entry))
	}
	b.WriteString("]>")
	return b.String()
}

// LinesIn answers Scope.LinesIn in the bound unit.
func (s *treeScope) LinesIn(rs []Range, limit int) (file string, lines []int) {
	type fileLine struct{ file, line int }
	seen := map[fileLine]bool{}
	lt, err := s.t.lineTable()
	if err != nil {
		return "", nil
	}
	for _, row := range lt.rows {
		if !row.Stmt || row.EndSeq || !s.t.hasPC(s.sp, row.Addr) {
			continue
		}
		// A line is probed at its first address, and refused when that
		// address is attributed to another line (verifyLine): judge the
		// line there only.
		l := int(row.Line)
		if k := (fileLine{int(row.File), l}); seen[k] {
			continue
		} else {
			seen[k] = true
		}
		if !inRanges(rs, row.Addr) {
			continue
		}
		if _, rl, ok := s.t.lineInfo(row.Addr); !ok || rl != l {
			continue
		}
		f := lt.fileOf(row)
		if f == "" {
			continue // a file number past the table: malformed
		}
		if file == "" {
			file = f
		}
		if f == file {
			lines = append(lines, l)
		}
	}
	sort.Ints(lines)
	if len(lines) > limit {
		lines = lines[:limit]
	}
	return file, lines
}

// LocatedLater answers Scope.LocatedLater in the bound unit.
func (s *treeScope) LocatedLater(v Entry) bool {
	d := &s.t.dies[s.sp]
	if !d.HasLow || !d.HasHigh {
		return false
	}
	for _, r := range s.Ranges(v) {
		if r.High > s.Addr+1 && r.Low <= d.HighPC {
			return true
		}
	}
	return false
}

func (t *cuTree) rawNameAt(i int) string { return t.f.rawName(t.u, &t.dies[i]) }
