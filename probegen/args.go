package probegen

import (
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/tracefs"
)

// argEnv is what turning perf probe arguments into fetchargs needs besides
// the scope of each point.
type argEnv struct {
	f    *dwarfres.File
	m    elf.Machine
	spec string // the whole command, for error messages
	ret  bool   // a return probe
	user bool   // uprobes: globals are file offsets
	addr uint64 // the probe address being converted (uprobe offsets are relative to it)
	// notes collects what dwprobe did differently from perf, for stderr.
	notes []string
	// dial is the target kernel's dialect (dialect), once known.
	dial *tracefs.Dialect
}

// dialect is the dialect of the kernel the definitions are for: the one
// the vmlinux says it is, or for uprobes (and a kernel whose version
// can't be read) the machine's registers with the types left unchecked.
func (e *argEnv) dialect() tracefs.Dialect {
	if e.dial == nil {
		d := tracefs.Dialect{Machine: e.m}
		if !e.user && e.f != nil {
			if major, minor, ok := e.f.KernelVersion(); ok {
				d = tracefs.KernelDialect(e.m, major, minor)
			}
		}
		e.dial = &d
	}
	return *e.dial
}

// isCVarName is perf's is_c_varname: a C variable (to look up in DWARF)
// rather than a register, a symbol or a special value.
func isCVarName(s string) bool {
	return s != "" && (s[0] == '_' || s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z')
}

// checkArgs refuses, before any DWARF work, what perf accepts but the
// kernel would not: C variables on return probes, $retval on entry probes,
// unknown types and registers the kernel has no name for.
func (e *argEnv) checkArgs(args []Arg) error {
	for _, a := range args {
		if err := e.checkArg(a); err != nil {
			return err
		}
	}
	return nil
}

func (e *argEnv) checkArg(a Arg) error {
	bad := func(format string, v ...any) error {
		return &SyntaxError{Spec: e.spec, Col: a.Col, Msg: fmt.Sprintf("argument %q: ", a.Raw) + fmt.Sprintf(format, v...)}
	}
	if d := e.dialect(); a.Type != "" && !perfCast(a.Type) && !d.HasType(a.Type) {
		return bad("unknown type %q (%s has %s; perf adds u/s/x)", a.Type, d.From, d.Types())
	}
	switch {
	case a.Expr == "$vars" || a.Expr == "$params":
		if e.ret {
			return bad("%s is not available on a return probe (only $retval is)", a.Expr)
		}
	case a.Expr == "$retval":
		if !e.ret {
			return bad("$retval is only available on a return probe (FUNC%%return)")
		}
	case isCVarName(a.Expr):
		if e.ret {
			return bad("local variables are not available on a return probe (only $retval is)")
		}
		if err := checkCExpr(a.Expr); err != nil {
			return bad("%v", err)
		}
	default:
		if err := e.checkRaw(a.Expr); err != nil {
			return bad("%v", err)
		}
	}
	return nil
}

// perfCast is perf's signedness cast: the size comes from debuginfo.
func perfCast(t string) bool { return t == "u" || t == "s" || t == "x" }

// checkCExpr checks the member/index syntax of VAR(->M|.M|[N])*.
func checkCExpr(s string) error {
	_, _, err := splitFields(s)
	return err
}

// field is one step of VAR->a.b[2]: a member through a pointer (arrow), a
// member of a structure, or an array index.
type field struct {
	name  string
	arrow bool
	index int64
	isIdx bool
}

// splitFields parses VAR and its chain as perf's parse_perf_probe_arg does.
func splitFields(s string) (string, []field, error) {
	i := strings.IndexAny(s, "-.[")
	if i < 0 {
		return s, nil, nil
	}
	v := s[:i]
	rest := s[i:]
	var fs []field
	for rest != "" {
		switch {
		case rest[0] == '[':
			j := strings.IndexByte(rest, ']')
			if j < 2 {
				return "", nil, errors.New("array index must be a number")
			}
			n, err := strconv.ParseInt(rest[1:j], 0, 64)
			if err != nil {
				return "", nil, errors.New("array index must be a number")
			}
			fs = append(fs, field{name: rest[:j+1], index: n, isIdx: true, arrow: true})
			rest = rest[j+1:]
			continue
		case strings.HasPrefix(rest, "->"):
			rest = rest[2:]
			fs = append(fs, field{arrow: true})
		case rest[0] == '.':
			rest = rest[1:]
			fs = append(fs, field{})
		default:
			return "", nil, fmt.Errorf("cannot parse %q", rest)
		}
		j := strings.IndexAny(rest, "-.[")
		if j < 0 {
			j = len(rest)
		}
		name := rest[:j]
		if !isCIdent(name) {
			return "", nil, fmt.Errorf("bad member name %q", name)
		}
		fs[len(fs)-1].name = name
		rest = rest[j:]
	}
	return v, fs, nil
}

var reRawReg = regexp.MustCompile(`^%([a-z0-9_]+)$`)

// checkRaw checks a kprobe fetcharg passed through as written.
func (e *argEnv) checkRaw(s string) error {
	switch {
	case s == "$comm" || s == "$stack" || s == "$retval":
		return nil
	case strings.HasPrefix(s, "$stack"):
		if _, err := strconv.ParseUint(s[6:], 10, 32); err != nil {
			return fmt.Errorf("bad stack slot %q", s)
		}
		return nil
	case strings.HasPrefix(s, "$arg"):
		if n, err := strconv.ParseUint(s[4:], 10, 32); err != nil || n == 0 {
			return fmt.Errorf("bad function argument %q ($arg1, $arg2, ...)", s)
		}
		return nil
	case strings.HasPrefix(s, "$"):
		return fmt.Errorf("unknown special variable %q", s)
	case strings.HasPrefix(s, "%"):
		m := reRawReg.FindStringSubmatch(s)
		if m == nil || !tracefs.HasRegister(e.m, m[1]) {
			if hint := tracefs.RegisterHint(e.m, s); hint != "" {
				return fmt.Errorf("the kernel has no register %s on %s; it calls it %s", s, tracefs.MachineName(e.m), hint)
			}
			return fmt.Errorf("the kernel has no register %s on %s", s, tracefs.MachineName(e.m))
		}
		return nil
	case strings.HasPrefix(s, `\`):
		if len(s) > 1 && s[1] == '"' {
			return nil
		}
		if _, err := strconv.ParseInt(s[1:], 0, 64); err != nil {
			if _, err := strconv.ParseUint(s[1:], 0, 64); err != nil {
				return fmt.Errorf("bad immediate %q", s)
			}
		}
		return nil
	case strings.HasPrefix(s, "@"):
		if len(s) == 1 {
			return errors.New("'@' needs a symbol or an address")
		}
		return nil
	case s[0] == '+' || s[0] == '-':
		i := strings.IndexByte(s, '(')
		if i < 0 || !strings.HasSuffix(s, ")") {
			return fmt.Errorf("bad dereference %q: want +|-OFFS(FETCHARG)", s)
		}
		off := strings.TrimPrefix(s[1:i], "u")
		if _, err := strconv.ParseInt(off, 0, 64); err != nil {
			return fmt.Errorf("bad offset in %q", s)
		}
		return e.checkRaw(s[i+1 : len(s)-1])
	}
	return fmt.Errorf("cannot parse %q", s)
}

// fetch is a fetcharg under construction, perf's probe_trace_arg: a base
// (register, symbol or immediate) and a chain of loads, each at the
// previous value plus an offset.
type fetch struct {
	base    string // "%di", "@jiffies" (already named), `\3`
	sym     bool   // base is a symbol address: the first load folds into @sym+off
	imm     bool
	refs    []fref
	add     int64 // value = result + add, not loaded (an address computed in a register)
	addrVal bool  // sym with no load: the value is the symbol's address
	fileOff int64 // base "@+": the uprobe file offset of the global
}

type fref struct {
	off  int64
	user bool
}

func (f *fetch) String() (string, error) {
	if f.sym && f.addrVal {
		return "", errors.New("the value is the address of a global; name a member, an element or use :string")
	}
	if f.add != 0 {
		return "", fmt.Errorf("the value is an address computed from %s%+d; read a member through it or use :string", f.base, f.add)
	}
	refs := f.refs
	s := f.base
	if f.sym {
		if len(refs) == 0 {
			return "", errors.New("the value is the address of a global; name a member, an element or use :string")
		}
		if s == "@+" { // uprobe file offset: one number
			s += strconv.FormatInt(f.fileOff+refs[0].off, 10)
		} else {
			s += fmt.Sprintf("%+d", refs[0].off)
		}
		refs = refs[1:]
	}
	for _, r := range refs {
		if r.user {
			s = "+u" + strconv.FormatInt(r.off, 10) + "(" + s + ")"
		} else {
			s = fmt.Sprintf("%+d(%s)", r.off, s)
		}
	}
	return s, nil
}

// load dereferences the current value plus off (a pointer followed).
func (f *fetch) load(off int64, user bool) error {
	if f.imm {
		return errors.New("a constant cannot be dereferenced")
	}
	if f.sym && len(f.refs) == 0 && f.addrVal {
		// The value is the symbol's address (plus add): the first load
		// folds into @sym+off.
		f.addrVal = false
		f.refs = append(f.refs, fref{off: f.add + off, user: user})
		f.add = 0
		return nil
	}
	f.refs = append(f.refs, fref{off: f.add + off, user: user})
	f.add = 0
	return nil
}

// member moves within the object the value lives in.
func (f *fetch) member(off int64, user bool) error {
	if len(f.refs) == 0 || f.addrVal {
		if f.imm {
			return errors.New("a constant has no members")
		}
		return errors.New("the structure is in a register, not in memory (perf: \"Structure on a register is not supported yet\")")
	}
	f.refs[len(f.refs)-1].off += off
	if user {
		f.refs[len(f.refs)-1].user = true
	}
	return nil
}

// fromLoc starts a fetch from a variable's resolved location.
func (e *argEnv) fromLoc(loc dwarfres.Loc) (*fetch, error) {
	switch loc.Kind {
	case dwarfres.LocReg:
		r, err := DWARFRegister(e.m, loc.Reg)
		if err != nil {
			return nil, err
		}
		return &fetch{base: r}, nil
	case dwarfres.LocRegOffset:
		r, err := DWARFRegister(e.m, loc.Reg)
		if err != nil {
			return nil, err
		}
		return &fetch{base: r, add: loc.Offset}, nil
	case dwarfres.LocConst:
		return &fetch{base: `\` + strconv.FormatInt(loc.Const, 10), imm: true}, nil
	case dwarfres.LocMem:
		f := &fetch{}
		if loc.HasAddr || loc.Sym != "" {
			base, off, err := e.global(loc)
			if err != nil {
				return nil, err
			}
			f.base, f.sym = base, true
			if base == "@+" {
				f.fileOff, off = off, 0
			}
			for i, d := range loc.Derefs {
				if i == 0 {
					d += off
				}
				f.refs = append(f.refs, fref{off: d})
			}
			return f, nil
		}
		r, err := DWARFRegister(e.m, loc.Reg)
		if err != nil {
			return nil, err
		}
		f.base = r
		for _, d := range loc.Derefs {
			f.refs = append(f.refs, fref{off: d})
		}
		return f, nil
	case dwarfres.LocAddrValue:
		base, off, err := e.global(loc)
		if err != nil {
			return nil, err
		}
		if base == "@+" {
			return &fetch{base: base, sym: true, addrVal: true, fileOff: off}, nil
		}
		return &fetch{base: base, sym: true, addrVal: true, add: off}, nil
	}
	return nil, fmt.Errorf("location kind %d: %w", loc.Kind, ErrNotSupported)
}

// global names a global variable's address: @SYMBOL (kernel) with the
// offset of loc.Addr from it, or @+FILEOFFSET for uprobes.
func (e *argEnv) global(loc dwarfres.Loc) (string, int64, error) {
	addr, has := loc.Addr, loc.HasAddr
	if !has {
		if loc.Sym == "" {
			return "", 0, fmt.Errorf("a global with neither an address nor a name")
		}
		a, ok := e.f.SymbolAddr(loc.Sym)
		if !ok {
			if e.user || e.f.IsKernel() && !e.f.KallsymsHasData() {
				return "", 0, fmt.Errorf("global %s is defined in another object: %w", loc.Sym, ErrNotSupported)
			}
			// Declared here, defined elsewhere in the kernel: kallsyms
			// knows the name even when this file's symtab does not.
			return "@" + loc.Sym, 0, nil
		}
		addr = a
	}
	if !e.user && strings.HasSuffix(e.f.SectionName(addr), "data..percpu") {
		// perf writes @var and reads CPU 0's copy... or whatever lies at
		// the per-CPU offset: fetchargs cannot add a CPU's base.
		return "", 0, fmt.Errorf("%s is a per-CPU variable: a kprobe fetcharg cannot add the CPU's per-CPU base to it: %w", loc.Sym, ErrNotSupported)
	}
	if e.user {
		if e.f.ExportedData(loc.Sym) {
			e.note(fmt.Sprintf("%s is exported by a shared library: an executable that uses it may hold its own copy (a copy relocation), and this library's stays unchanged; probe the executable to read that one", loc.Sym))
		}
		off, err := e.f.UprobeDataOffset(e.addr, addr)
		if err != nil {
			return "", 0, fmt.Errorf("global %s at %#x: %w", loc.Sym, addr, err)
		}
		return "@+", int64(off), nil
	}
	if e.f.IsKernel() && !e.f.KallsymsHasData() {
		// kallsyms has no data symbols (CONFIG_KALLSYMS_ALL=n): name the
		// address from _stext, which it always lists (not _text: on arm64
		// that is below the text range kallsyms keeps).
		if stext, ok := e.f.SymbolAddr("_stext"); ok && addr >= stext {
			e.note("this kernel's kallsyms lists no data symbols (CONFIG_KALLSYMS_ALL is off): globals are read through @_stext+OFFSET")
			return "@_stext", int64(addr - stext), nil
		}
	}
	name, start, ok := e.f.DataSymbol(addr, loc.Sym)
	if !ok {
		if !has && loc.Sym != "" {
			return "@" + loc.Sym, 0, nil
		}
		// No symbol covers it (a string literal): _stext moves with the
		// image under KASLR, so the offset from it still holds.
		if stext, ok := e.f.SymbolAddr("_stext"); ok && e.f.IsKernel() && addr >= stext {
			return "@_stext", int64(addr - stext), nil
		}
		return "", 0, fmt.Errorf("no symbol covers the global %s at %#x", loc.Sym, addr)
	}
	return "@" + name, int64(addr - start), nil
}

// argSlot is one argument of one point: converted, or missing there (the
// variable is not in scope or has no usable location at that address).
type argSlot struct {
	res     tracefs.Arg
	missing error
	orig    int // index in the spec's arguments; -1 for a $vars/$params expansion
}

// missingError marks a variable that a multi-point probe may lack at some
// of its points (perf's skip_empty_arg).
type missingError struct{ err error }

func (m *missingError) Error() string { return m.err.Error() }
func (m *missingError) Unwrap() error { return m.err }

// convertArgs turns the arguments of one point into fetchargs, expanding
// $vars and $params in sc, as perf's add_probe_trace_event does.
func (e *argEnv) convertArgs(args []Arg, sc *dwarfres.Scope) ([]argSlot, error) {
	var list []Arg
	orig := []int{}
	locals := false
	for i, a := range args {
		if a.Expr != "$vars" && a.Expr != "$params" {
			list = append(list, a)
			orig = append(orig, i)
			continue
		}
		if sc == nil {
			return nil, e.argErr(a, "%s needs debuginfo at this point", a.Expr)
		}
		if a.Expr == "$vars" {
			locals = true // perf keeps it set for a later $params too
		}
		for _, v := range sc.Vars(locals) {
			n := v.Name()
			if n == "" {
				continue
			}
			if tp, ok := v.RealType(true); ok && (tp.Tag() == dwarf.TagStructType || tp.Tag() == dwarf.TagUnionType) {
				e.note(fmt.Sprintf("%s: %s skips %s, a structure passed by value (name one of its members to read it)", e.spec, a.Expr, n))
				continue
			}
			list = append(list, Arg{Raw: n, Expr: n, Col: a.Col})
			orig = append(orig, -1)
		}
	}
	if len(list) > MaxProbeArgs {
		return nil, fmt.Errorf("%s: %d arguments after expanding $vars/$params, the kernel takes at most %d", e.spec, len(list), MaxProbeArgs)
	}
	var out []argSlot
	for i, a := range list {
		r, err := e.convertArg(a, sc)
		var miss *missingError
		switch {
		case err != nil && orig[i] < 0:
			// A variable $vars found but no fetcharg can read (an address
			// computed in a register, say): perf writes a wrong one.
			why := err.Error()
			var se *SyntaxError
			if errors.As(err, &se) {
				why = se.Msg
			}
			e.note(fmt.Sprintf("%s: $vars/$params skips %s: %s", e.spec, a.Expr, why))
			continue
		case errors.As(err, &miss):
			out = append(out, argSlot{res: r, missing: err, orig: orig[i]})
		case err != nil:
			return nil, err
		default:
			out = append(out, argSlot{res: r, orig: orig[i]})
		}
	}
	return out, nil
}

// placeholder is the immediate written for an argument at the points of a
// probe where its variable does not exist, so that every point of one
// event has the same arguments: perf's probe_conf.magic_num, 0xdeade12d.
// perf writes it as "\deade12d", which the kernel's str_to_immediate
// refuses (a number must start with a digit or a sign), failing the whole
// event; written as a number, the probe works and records the filler.
const placeholder = `\0xdeade12d`

// fillMissing is perf's fill_empty_trace_arg over the points of one spec:
// an argument missing at some points is written there as placeholder with
// the type it has elsewhere; missing at every point, it is an error.
func (e *argEnv) fillMissing(points [][]argSlot, descr []string) error {
	type have struct {
		typ   string
		found bool
		err   error
	}
	byOrig := map[int]*have{}
	for _, slots := range points {
		for _, sl := range slots {
			if sl.orig < 0 {
				continue
			}
			h := byOrig[sl.orig]
			if h == nil {
				h = &have{}
				byOrig[sl.orig] = h
			}
			if sl.missing == nil && !h.found {
				h.typ, h.found = sl.res.Type, true
			}
			if sl.missing != nil && h.err == nil {
				h.err = sl.missing
			}
		}
	}
	for p, slots := range points {
		for k := range slots {
			sl := &slots[k]
			if sl.missing == nil {
				continue
			}
			h := byOrig[sl.orig]
			if !h.found {
				return errors.Unwrap(h.err)
			}
			sl.res.Fetch, sl.res.Type = placeholder, h.typ
			why := errors.Unwrap(sl.missing).Error()
			var se *SyntaxError
			if errors.As(sl.missing, &se) {
				why = se.Msg
			}
			e.note(fmt.Sprintf("%s: at %s, %s; written as %s there (perf writes \\deade12d, which the kernel refuses)", e.spec, descr[p], why, placeholder))
		}
	}
	return nil
}

// renderArgs names the arguments of one point (a repeated name gets _1,
// _2: the kernel refuses duplicates).
func renderArgs(slots []argSlot) []tracefs.Arg {
	var out []tracefs.Arg
	used := map[string]bool{}
	for _, sl := range slots {
		r := sl.res
		if r.Name != "" {
			base := r.Name
			for n := 1; used[r.Name]; n++ {
				r.Name = base + "_" + strconv.Itoa(n)
			}
			used[r.Name] = true
		}
		out = append(out, r)
	}
	return out
}

func (e *argEnv) note(n string) {
	for _, x := range e.notes {
		if x == n {
			return
		}
	}
	e.notes = append(e.notes, n)
}

func (e *argEnv) argErr(a Arg, format string, v ...any) error {
	return &SyntaxError{Spec: e.spec, Col: a.Col, Msg: fmt.Sprintf("argument %q: ", a.Raw) + fmt.Sprintf(format, v...)}
}

func (e *argEnv) convertArg(a Arg, sc *dwarfres.Scope) (tracefs.Arg, error) {
	if !isCVarName(a.Expr) {
		return tracefs.Arg{Name: a.Name, Fetch: a.Expr, Type: a.Type}, nil
	}
	if sc == nil {
		return tracefs.Arg{}, e.argErr(a, "no debuginfo scope at this probe point to find variables in")
	}
	e.addr = sc.Addr
	vname, fields, err := splitFields(a.Expr)
	if err != nil {
		return tracefs.Arg{}, e.argErr(a, "%v", err)
	}
	r := tracefs.Arg{Name: a.Name}
	if r.Name == "" {
		r.Name = vname
		for _, fl := range fields {
			if !fl.isIdx {
				r.Name = fl.name
			}
		}
		if len(fields) == 0 && a.Type != "" {
			r.Name = tracefs.SanitizeName(tracefs.ArgName, vname+"_"+a.Type)
		}
	}
	v, ok := sc.Lookup(vname)
	if !ok {
		return r, &missingError{e.argErr(a, "no variable %q in %s or its unit", vname, sc.Func())}
	}
	loc, err := sc.Location(v)
	if err != nil {
		lerr := e.locErr(a, vname, sc, v, err)
		if errors.Is(err, dwarfres.ErrNoLocation) || errors.Is(err, dwarfres.ErrLocation) {
			return r, &missingError{lerr}
		}
		return tracefs.Arg{}, lerr
	}
	f, err := e.fromLoc(loc)
	if err != nil {
		return tracefs.Arg{}, e.argErr(a, "%s (DIE %#x): %v", vname, v.Offset(), err)
	}
	cur := v
	for _, fl := range fields {
		if cur, err = e.step(f, cur, fl, a.User); err != nil {
			return tracefs.Arg{}, e.argErr(a, "%v", err)
		}
	}
	if r.Type, err = e.typeOf(f, cur, a.Type, a.User); err != nil {
		return tracefs.Arg{}, e.argErr(a, "%v", err)
	}
	if r.Fetch, err = f.String(); err != nil {
		return tracefs.Arg{}, e.argErr(a, "%s: %v", a.Expr, err)
	}
	return r, nil
}

// locErr explains a variable without a usable location, with where it has one.
func (e *argEnv) locErr(a Arg, vname string, sc *dwarfres.Scope, v dwarfres.Entry, err error) error {
	msg := fmt.Sprintf("variable %s has no location at %s+%#x (%v)", vname, sc.Func(), sc.Addr-entryOr(sc), err)
	if errors.Is(err, dwarfres.ErrNoLocation) {
		if file, lines := sc.LinesIn(sc.Ranges(v), 8); len(lines) > 0 {
			msg += fmt.Sprintf("; it is available at %s line %s", file, joinInts(lines))
		} else {
			msg += "; it is optimized out in this function"
		}
	}
	return e.argErr(a, "%s", msg)
}

func entryOr(sc *dwarfres.Scope) uint64 {
	if e, ok := sc.FuncEntry(); ok && e <= sc.Addr {
		return e
	}
	return 0
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

func isAggregate(t dwarf.Tag) bool { return t == dwarf.TagStructType || t == dwarf.TagUnionType }

// step applies one ->member, .member or [index] to f, as perf's
// convert_variable_fields does, and returns the DIE whose type is now f's.
func (e *argEnv) step(f *fetch, cur dwarfres.Entry, fl field, user bool) (dwarfres.Entry, error) {
	tp, ok := cur.RealType(true)
	if !ok {
		return cur, fmt.Errorf("%s has no type", describeEntry(cur))
	}
	tag := tp.Tag()
	if fl.isIdx {
		if tag != dwarf.TagArrayType && tag != dwarf.TagPointerType {
			return cur, fmt.Errorf("%s is not a pointer nor an array", describeEntry(cur))
		}
		elem, ok := tp.RealType(true)
		if !ok {
			return cur, fmt.Errorf("%s points to void", describeEntry(cur))
		}
		size, ok := elem.ByteSize()
		if !ok {
			return cur, fmt.Errorf("the elements of %s have no size", describeEntry(cur))
		}
		if tag == dwarf.TagPointerType {
			return tp, f.load(size*fl.index, user)
		}
		dims := tp.ArrayDims()
		if n, ok := tp.ArrayLen(); ok && (fl.index < 0 || fl.index >= n) {
			return cur, fmt.Errorf("index %d is out of the bounds of %s (%d elements)", fl.index, describeEntry(cur), n)
		}
		// Each index of a multi-dimensional array steps over a whole row
		// (perf steps by the element size whatever the rank).
		for _, d := range dims[min(1, len(dims)):] {
			size *= d
		}
		return tp, f.member(size*fl.index, user)
	}
	var st dwarfres.Entry
	switch {
	case tag == dwarf.TagPointerType:
		if !fl.arrow {
			return cur, fmt.Errorf("%s is a pointer: use '->%s'", describeEntry(cur), fl.name)
		}
		st, ok = tp.RealType(true)
		if !ok || !isAggregate(st.Tag()) {
			return cur, fmt.Errorf("%s does not point to a structure or union", describeEntry(cur))
		}
	case isAggregate(tag):
		if fl.arrow && cur.Name() != "" {
			return cur, fmt.Errorf("%s is not a pointer: use '.%s'", describeEntry(cur), fl.name)
		}
		st = tp
	default:
		return cur, fmt.Errorf("%s is not a structure, union or pointer to one", describeEntry(cur))
	}
	// Through unnamed members (anonymous structs and unions), as perf's
	// die_find_member finds them, adding each one's offset.
	var path []dwarfres.Entry
	for n := 0; n < 16; n++ {
		m, ok := st.FindMember(fl.name)
		if !ok {
			return cur, fmt.Errorf("%s (type %s) has no member %s", describeEntry(cur), typeLabel(st), fl.name)
		}
		path = append(path, m)
		if m.Name() != "" {
			break
		}
		if st, ok = m.RealType(true); !ok {
			return cur, fmt.Errorf("unnamed member of %s has no type", describeEntry(cur))
		}
	}
	var total int64
	for i, m := range path {
		var off int64
		var err error
		if m.BitSize() > 0 && i == len(path)-1 {
			bf, berr := m.BitField()
			if berr != nil {
				return cur, berr
			}
			off = bf.ByteOffset
		} else if off, err = m.MemberOffset(); err != nil {
			return cur, err
		}
		total += off
	}
	last := path[len(path)-1]
	if tag == dwarf.TagPointerType {
		return last, f.load(total, user)
	}
	return last, f.member(total, user)
}

func describeEntry(e dwarfres.Entry) string {
	n := e.Name()
	if n == "" {
		n = "(unnamed)"
	}
	return fmt.Sprintf("%s (DIE %#x)", n, e.Offset())
}

func typeLabel(e dwarfres.Entry) string {
	n := e.Name()
	switch e.Tag() {
	case dwarf.TagStructType:
		n = "struct " + n
	case dwarf.TagUnionType:
		n = "union " + n
	}
	return strings.TrimSpace(n)
}

// typeOf is perf's convert_variable_type: the fetch type for the DIE cur
// (a variable or member) under cast, adjusting f for strings.
func (e *argEnv) typeOf(f *fetch, cur dwarfres.Entry, cast string, user bool) (string, error) {
	switch cast {
	case "", "string", "ustring", "u", "s", "x":
	default:
		if f.imm && (strings.HasPrefix(cast, "string") || cast == "ustring") {
			return "", errors.New("a constant is not a string")
		}
		return cast, nil
	}
	if w := cur.BitSize(); w > 0 && cast != "string" && cast != "ustring" {
		bf, err := cur.BitField()
		if err != nil {
			return "", err
		}
		if len(f.refs) == 0 {
			return "", fmt.Errorf("bitfield %s is not in memory", cur.Name())
		}
		return fmt.Sprintf("b%d@%d/%d", bf.Width, bf.Shift, bf.Container*8), nil
	}
	tp, ok := cur.RealType(true)
	if !ok {
		return "", fmt.Errorf("%s has no type (void)", describeEntry(cur))
	}
	if cast == "string" || cast == "ustring" {
		if tp.Tag() != dwarf.TagPointerType && tp.Tag() != dwarf.TagArrayType {
			return "", fmt.Errorf("%s is not a pointer nor an array, so not a string", describeEntry(cur))
		}
		elem, ok := tp.RealType(true)
		if !ok || elem.Name() != "char" && elem.Name() != "unsigned char" && elem.Name() != "signed char" {
			return "", fmt.Errorf("%s is not a (unsigned) char pointer or array", describeEntry(cur))
		}
		if tp.Tag() == dwarf.TagPointerType {
			if err := f.load(0, user); err != nil {
				return "", err
			}
		} else if len(f.refs) == 0 || f.addrVal {
			if !(f.sym && f.addrVal) {
				return "", fmt.Errorf("array %s is not in memory", cur.Name())
			}
			if err := f.load(0, user); err != nil {
				return "", err
			}
		}
		return cast, nil
	}
	if isAggregate(tp.Tag()) && cast == "" {
		return "", fmt.Errorf("%s is a %s passed by value; name one of its members (VAR.MEMBER)", describeEntry(cur), typeLabel(tp))
	}
	prefix := "x"
	switch {
	case cast != "":
		prefix = cast
	case tp.Signed():
		prefix = "s"
	}
	size, ok := tp.ByteSize()
	if !ok || size <= 0 {
		return "", nil // perf: no size, the kernel's default type
	}
	bits := size * 8
	if bits > 64 {
		bits = 64
	}
	return prefix + strconv.FormatInt(bits, 10), nil
}
