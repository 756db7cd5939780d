package probegen

import (
	"debug/elf"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	dbtf "github.com/dwprobe/dwprobe/dwarfres/btf"
	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/internal/ctype"
	"github.com/dwprobe/dwprobe/tracefs"
)

// The arguments of a probe: checked before any DWARF work (argcheck.go),
// each turned into a fetcharg at each point (fetchbuild.go, ctypefetch.go
// over probegen/internal/ctype), filled where a point lacks one, one
// event's $vars lists made alike (argmissing.go).

// argEnv is what turning perf probe arguments into fetchargs needs besides
// the scope of each point.
type argEnv struct {
	f    *dwarfres.File
	m    elf.Machine
	spec string         // the whole command, for error messages
	pt   *grammar.Point // the probe point as the user wrote it, for suggestions
	ret  bool           // a return probe
	user bool           // uprobes: globals are file offsets
	addr uint64         // the probe address being converted (uprobe offsets are relative to it)
	// notes collects what dwprobe did differently from perf, for stderr.
	notes []answer.Note
	// dial is the target kernel's dialect (dialect), once known.
	dial *tracefs.Dialect
	// castBTF is the vmlinux's BTF, once a typecast away from a
	// function's entry needed it (castdwarf.go).
	castBTF *dbtf.Types
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
			if d.Has(tracefs.FProbeEvents) && noFProbeEvents(e.f) {
				d = d.Without(tracefs.FProbeEvents, "it is built without CONFIG_FPROBE_EVENTS (its symbols have no trace_fprobe_create)")
			}
		}
		e.dial = &d
	}
	return *e.dial
}

func (e *argEnv) note(k answer.NoteKind, text string) {
	for _, x := range e.notes {
		if x.Text == text {
			return
		}
	}
	e.notes = append(e.notes, answer.Note{Kind: k, Text: text})
}

func (e *argEnv) argErr(a grammar.Arg, format string, v ...any) error {
	return &grammar.SyntaxError{Spec: e.spec, Col: a.Col, Msg: fmt.Sprintf("argument %q: ", a.Raw) + fmt.Sprintf(format, v...)}
}

// causeErr is argErr worded by err, which the SyntaxError keeps (Err) for
// errors.As: a *MemberError, a *VarError.
func (e *argEnv) causeErr(a grammar.Arg, err error) error {
	se := e.argErr(a, "%v", err).(*grammar.SyntaxError)
	se.Err = err
	return se
}

// entryErr is causeErr for a failure about the debuginfo entry ent: the
// message names it, the DIE offset is kept in Detail for -v.
func (e *argEnv) entryErr(a grammar.Arg, ent dwarfres.Entry, err error) error {
	se := e.causeErr(a, err).(*grammar.SyntaxError)
	se.Detail = fmt.Sprintf("%s is DIE %#x", describeEntry(ent), ent.Offset())
	return se
}

// valErr is causeErr for a failure of the member walk at cur: entryErr
// when cur came from a DIE.
func (e *argEnv) valErr(a grammar.Arg, cur ctype.Val, err error) error {
	if ent, ok := cur.Node.(dwarfres.Entry); ok {
		return e.entryErr(a, ent, err)
	}
	return e.causeErr(a, err)
}

// describeEntry names e for a message; its DIE offset goes in
// SyntaxError.Detail, shown under -v only.
func describeEntry(e dwarfres.Entry) string {
	n := e.Name()
	if n == "" {
		n = "(unnamed)"
	}
	return n
}

// argSlot is one argument of one point: converted, or missing there (the
// variable is not in scope or has no usable location at that address).
type argSlot struct {
	res     tracefs.Arg
	missing error
	// ctype is the C type read, when a variable's (its name in perf
	// 6.12's spelling; pointer): what the library's ArgRead.Type says.
	ctype cvalType
	// absent says why the variable is not readable at this point, where
	// a placeholder stands for it (fillMissing, alignSlots).
	absent string
	orig   int  // index in the spec's arguments; -1 for a $vars/$params expansion
	param  bool // it reads a parameter of the function (or its members)
	// kname and kfetch are the name and fetch type the kernel gives an
	// argument written without (kernelView): "" where it gives its own
	// default (argN, x64).
	kname, kfetch string
}

// missingError marks a variable that a multi-point probe may lack at some
// of its points (perf's skip_empty_arg).
type missingError struct{ err error }

func (m *missingError) Error() string { return m.err.Error() }
func (m *missingError) Unwrap() error { return m.err }

// convertArgs turns the arguments of one point into fetchargs, expanding
// $vars and $params in sc, as perf's add_probe_trace_event does.
func (e *argEnv) convertArgs(args []grammar.Arg, sc *dwarfres.Scope) ([]argSlot, error) {
	var list []grammar.Arg
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
			if tp, ok := ctype.Real(ctype.FromDWARF(v)); ok && ctype.Aggregate(tp) {
				e.note(answer.NoteArgSkipped, fmt.Sprintf("%s: %s skips %s, a structure passed by value (name one of its members to read it)", e.spec, a.Expr, n))
				continue
			}
			list = append(list, grammar.Arg{Raw: n, Expr: n, Col: a.Col})
			orig = append(orig, -1)
		}
	}
	if len(list) > tracefs.MaxArgs {
		return nil, fmt.Errorf("%s: %d arguments after expanding $vars/$params, the kernel takes at most %d", e.spec, len(list), tracefs.MaxArgs)
	}
	var out []argSlot
	for i, a := range list {
		r, cur, err := e.convertArg(a, sc)
		var miss *missingError
		switch {
		case err != nil && orig[i] < 0:
			// A variable $vars found but no fetcharg can read (an address
			// computed in a register, say): perf writes a wrong one.
			why := err.Error()
			var se *grammar.SyntaxError
			if errors.As(err, &se) {
				why = se.Msg
			}
			e.note(answer.NoteArgSkipped, fmt.Sprintf("%s: $vars/$params skips %s: %s", e.spec, a.Expr, why))
			continue
		case errors.As(err, &miss):
			out = append(out, argSlot{res: r, missing: err, orig: orig[i], ctype: typeOfVal(cur)})
		case err != nil:
			return nil, err
		default:
			s := argSlot{res: r, orig: orig[i], param: isParam(sc, a.Expr), ctype: typeOfVal(cur)}
			e.kernelView(&s, a, sc)
			out = append(out, s)
		}
	}
	return out, nil
}

// isParam reports whether expr reads a parameter of sc's function, or its
// members.
func isParam(sc *dwarfres.Scope, expr string) bool {
	if sc == nil || !isCVarName(expr) {
		return false
	}
	vname, _, err := splitFields(expr)
	if err != nil {
		return false
	}
	for _, v := range sc.Vars(false) {
		if v.Name() == vname {
			return true
		}
	}
	return false
}

func (e *argEnv) convertArg(a grammar.Arg, sc *dwarfres.Scope) (tracefs.Arg, ctype.Val, error) {
	if btfRetvalPath(a.Expr) {
		return e.convertRetval(a, sc)
	}
	if isFetchForm(a.Expr) && e.castAtPoint(a.Expr, sc) {
		return e.convertCast(a, sc)
	}
	if r, ok, err := e.perCPUName(a, sc); ok {
		return r, ctype.Val{}, err
	}
	if !isCVarName(a.Expr) || isFetchForm(a.Expr) {
		return rawArg(a), ctype.Val{}, nil
	}
	if sc == nil {
		return tracefs.Arg{}, ctype.Val{}, e.argErr(a, "no debuginfo scope at this probe point to find variables in")
	}
	e.addr = sc.Addr
	vname, fields, err := splitFields(a.Expr)
	if err != nil {
		return tracefs.Arg{}, ctype.Val{}, e.argErr(a, "%v", err)
	}
	r := tracefs.Arg{Name: argName(a, vname, fields)}
	v, ok := sc.Lookup(vname)
	if !ok {
		if cur, ok := e.currentTask(a, vname); ok {
			return cur, ctype.Val{}, nil
		}
		return r, ctype.Val{}, &missingError{e.undeclaredErr(a, vname, sc)}
	}
	loc, err := sc.Location(v)
	if err != nil {
		lerr := e.locErr(a, vname, sc, v, err)
		if errors.Is(err, dwarfres.ErrNoLocation) || errors.Is(err, dwarfres.ErrLocation) {
			var cur ctype.Val
			if len(fields) == 0 {
				cur = ctype.DWARFVal(v)
			}
			return r, cur, &missingError{lerr}
		}
		return tracefs.Arg{}, ctype.Val{}, lerr
	}
	f, err := e.fromLoc(loc)
	if err != nil {
		return tracefs.Arg{}, ctype.Val{}, e.entryErr(a, v, fmt.Errorf("%s: %w", vname, err))
	}
	return e.walkFields(a, r, f, ctype.DWARFVal(v), fields)
}

// walkFields follows fields from cur (read by f) and types and writes
// the fetcharg r ends with: a variable's members, or $retval's.
func (e *argEnv) walkFields(a grammar.Arg, r tracefs.Arg, f *fetch, cur ctype.Val, fields []field) (tracefs.Arg, ctype.Val, error) {
	var err error
	for _, fl := range fields {
		if cur, err = stepField(f, cur, fl, a.User); err != nil {
			return tracefs.Arg{}, ctype.Val{}, e.valErr(a, cur, err)
		}
	}
	if r.Type, err = fetchType(f, cur, a.Type, a.User); err != nil {
		return tracefs.Arg{}, ctype.Val{}, e.valErr(a, cur, err)
	}
	fe, err := fetchOf(f, cur)
	if err != nil {
		return tracefs.Arg{}, ctype.Val{}, e.argErr(a, "%s: %v", a.Expr, err)
	}
	return tracefs.NewArg(r.Name, fe, r.Type), cur, nil
}

// currentTask reads the kernel's current (a macro, no variable in DWARF)
// on a kernel that names the current task itself (Linux 7.3):
// current->pid is (task_struct)$current->pid, its members typed by the
// kernel's BTF. ok is false for any other name, and elsewhere.
func (e *argEnv) currentTask(a grammar.Arg, vname string) (tracefs.Arg, bool) {
	d := e.dialect()
	if vname != "current" || e.user || e.f != nil && !e.f.IsKernel() || !d.Has(tracefs.CurrentTask) || !d.Has(tracefs.BTFCasts) {
		return tracefs.Arg{}, false
	}
	_, fields, err := splitFields(a.Expr)
	if err != nil || len(fields) == 0 || !fields[0].arrow {
		return tracefs.Arg{}, false
	}
	for _, fl := range fields {
		if fl.isIdx {
			return tracefs.Arg{}, false // the kernel's form has members only
		}
	}
	return tracefs.NewArg(argName(a, vname, fields), tracefs.TextFetch("(task_struct)$current"+a.Expr[len(vname):]), a.Type), true
}

// argName is perf's name for an argument without NAME=: the last member
// named, else the variable, with its cast when it has no member.
func argName(a grammar.Arg, vname string, fields []field) string {
	if a.Name != "" {
		return a.Name
	}
	name := vname
	for _, fl := range fields {
		if !fl.isIdx {
			name = fl.name
		}
	}
	if len(fields) == 0 && a.Type != "" {
		name = tracefs.SanitizeName(tracefs.ArgName, vname+"_"+a.Type)
	}
	return name
}

// locErr explains a variable without a usable location: it is in scope
// there, and where a probe can read it, in the form the user wrote the
// point in (FUNC:N, FUNC+OFF or SRC:LINE).
func (e *argEnv) locErr(a grammar.Arg, vname string, sc *dwarfres.Scope, v dwarfres.Entry, err error) error {
	msg := fmt.Sprintf("variable %s is in scope but has no location at %s (%v)", vname, scopeLabel(sc), err)
	if !errors.Is(err, dwarfres.ErrNoLocation) {
		msg = fmt.Sprintf("variable %s is in scope at %s but a probe cannot read it there (%v)", vname, scopeLabel(sc), err)
	}
	if where := e.readableAt(sc, v); where != "" {
		msg += "; a probe can read it at " + where
	} else {
		msg += "; a probe cannot read it anywhere in this function"
	}
	return e.argErr(a, "%s", msg)
}

// undeclaredErr explains a name Lookup did not find: declared in the
// function but optimized out, or out of scope, at this address (as -V
// says), or not there at all.
func (e *argEnv) undeclaredErr(a grammar.Arg, vname string, sc *dwarfres.Scope) error {
	v, inScope, ok := sc.LookupDeclared(vname)
	if !ok {
		return e.causeErr(a, &VarError{Name: vname, Function: sc.Func(), Closest: closest(vname, scopeNames(sc), 3)})
	}
	at := scopeLabel(sc)
	msg := fmt.Sprintf("variable %s is in scope at %s but optimized out there", vname, at)
	if !inScope {
		msg = fmt.Sprintf("variable %s is declared in %s but not in scope at %s", vname, sc.Func(), at)
	}
	if where := e.readableAt(sc, v); where != "" {
		msg += "; a probe can read it at " + where
	} else {
		msg += "; a probe cannot read it anywhere in this function"
	}
	return e.argErr(a, "%s", msg)
}

// scopeNames are the names of the parameters and variables visible at
// sc's address, as -V lists them.
func scopeNames(sc *dwarfres.Scope) []string {
	var names []string
	for _, v := range sc.Available(false) {
		names = append(names, v.Var.Name())
	}
	return names
}

// readableAt lists up to 8 places where a probe can read v, in the user's
// form: lines relative to the function for FUNC:N, offsets for FUNC+OFF
// (and a bare FUNC), the file's lines for SRC:LINE.
func (e *argEnv) readableAt(sc *dwarfres.Scope, v dwarfres.Entry) string {
	rs := sc.ReadableRanges(v)
	if len(rs) == 0 {
		return ""
	}
	fn := sc.Func()
	if e.pt != nil && e.pt.Function != "" && !e.pt.LineGiven() {
		entry := entryOr(sc)
		var offs []string
		for _, r := range rs {
			if r.Low >= entry && len(offs) < 8 {
				offs = append(offs, fmt.Sprintf("%s+%d", fn, r.Low-entry))
			}
		}
		return strings.Join(offs, ", ")
	}
	file, lines := sc.LinesIn(rs, 8)
	decl, ok := sc.FuncDeclLine()
	var out []string
	if e.pt != nil && !e.pt.AbsLine() && ok && readableAtEntry(rs, entryOr(sc)) && (len(lines) == 0 || lines[0] != decl) {
		out = append(out, fn+":0") // FUNC:0 is the entry, whatever line it has
	}
	if len(out) > 0 && !e.readsIn(out[0], rs) {
		out = out[:0]
	}
	for _, l := range lines {
		// In the user's form where it names the line: relative to the
		// function the line belongs to, else the file and line (a line
		// of an inlined function's header, pt_scale's dwz.h:13 in
		// scale_a, is no line of scale_a).
		src := fmt.Sprintf("%s:%d", filepath.Base(file), l)
		cands := []string{src}
		if !(e.pt != nil && e.pt.AbsLine() || !ok || l < decl) {
			cands = []string{fmt.Sprintf("%s:%d", fn, l-decl), src}
		}
		if own := e.ownLine(fn, file, l); own != "" {
			cands = append([]string{own}, cands...)
		}
		for _, c := range cands {
			if e.readsIn(c, rs) {
				out = append(out, c)
				break
			}
		}
	}
	return strings.Join(out, ", ")
}

// ownLine names file:l relative to the function the spec names, when
// that is not fn (an inline function, probed in the functions it is
// inlined in) and its source holds the line: pt_scale:3, not scale_a's.
func (e *argEnv) ownLine(fn, file string, l int) string {
	if e.f == nil || e.pt == nil || e.pt.Function == "" || e.pt.Function == fn || e.pt.AbsLine() || strings.ContainsAny(e.pt.Function, "*?[") {
		return ""
	}
	lr, err := e.f.FindLineRange(dwarfres.LineQuery{Function: e.pt.Function, File: e.pt.File, End: math.MaxInt32})
	if err != nil || lr == nil || lr.Offset == 0 || l < lr.Offset || lr.Extent > 0 && l > lr.Extent || !lazymatch.SourceTail(file, lr.Path) {
		return ""
	}
	return fmt.Sprintf("%s:%d", e.pt.Function, l-lr.Offset)
}

// readsIn reports whether the probe point pt resolves, with a point in
// rs (where the variable can be read): a place is suggested only once
// it is known to resolve there. Without the file (unit tests of the
// wording) it is taken as written.
func (e *argEnv) readsIn(pt string, rs []dwarfres.Range) bool {
	if e.f == nil {
		return true
	}
	p, err := grammar.ParsePoint(pt)
	if err != nil {
		return false
	}
	pts, err := resolve(&ResolveOptions{suggesting: true}, e.f, p)
	if err != nil {
		return false
	}
	for _, q := range pts {
		for _, r := range rs {
			if q.addr >= r.Low && q.addr < r.High {
				return true
			}
		}
	}
	return false
}

func readableAtEntry(rs []dwarfres.Range, entry uint64) bool {
	for _, r := range rs {
		if entry >= r.Low && entry < r.High {
			return true
		}
	}
	return false
}

// scopeLabel names the scope's address for a message: FUNC+OFF from the
// function's entry; an address below the entry (a .cold part placed
// before its function) from the symbol covering it, print_cpu.cold+298,
// else as a negative offset, never a wrapped one.
func scopeLabel(sc *dwarfres.Scope) string {
	entry, ok := sc.FuncEntry()
	var sym dwarfres.Sym
	var covered bool
	if !ok || entry > sc.Addr {
		sym, covered = sc.File().Symbols().At(sc.Addr)
	}
	return offsetLabel(sc.Func(), entry, ok, sc.Addr, sym, covered)
}

// offsetLabel is scopeLabel's answer for function fn entered at entry
// (entryOK), at addr, which symbol sym covers (covered).
func offsetLabel(fn string, entry uint64, entryOK bool, addr uint64, sym dwarfres.Sym, covered bool) string {
	switch {
	case entryOK && entry <= addr:
		return fn + "+" + strconv.FormatUint(addr-entry, 10)
	case covered && sym.Start <= addr:
		return sym.Name + "+" + strconv.FormatUint(addr-sym.Start, 10)
	case entryOK:
		return fn + "-" + strconv.FormatUint(entry-addr, 10)
	}
	return fmt.Sprintf("%s (at %#x)", fn, addr)
}

func entryOr(sc *dwarfres.Scope) uint64 {
	if e, ok := sc.FuncEntry(); ok && e <= sc.Addr {
		return e
	}
	return 0
}

// convertRetval reads members of the value a return probe's function
// returns ($retval->name, $retval->f_path.dentry), typed by the function's
// DWARF return type: +OFF($retval) fetchargs, which every kernel takes
// (perf 7.3 passes $retval->name through for the kernel's BTF to read).
func (e *argEnv) convertRetval(a grammar.Arg, sc *dwarfres.Scope) (tracefs.Arg, ctype.Val, error) {
	vname, fields, err := splitFields("retval" + a.Expr[len(retvalExpr):])
	if err != nil {
		return tracefs.Arg{}, ctype.Val{}, e.argErr(a, "%v", err)
	}
	if sc == nil {
		return tracefs.Arg{}, ctype.Val{}, e.argErr(a, "no debuginfo at this return probe to type $retval with")
	}
	fn, ok := sc.FuncDIE()
	if !ok {
		return tracefs.Arg{}, ctype.Val{}, e.argErr(a, "no debuginfo at this return probe to type $retval with")
	}
	cur := ctype.Val{Name: "the return value of " + fn.Name(), Type: ctype.FromDWARF(fn), Node: fn}
	if cur.Type == nil {
		return tracefs.Arg{}, ctype.Val{}, e.entryErr(a, fn, fmt.Errorf("%s returns void: $retval has no members", fn.Name()))
	}
	return e.walkFields(a, tracefs.Arg{Name: argName(a, vname, fields)}, &fetch{base: retvalBase}, cur, fields)
}

// argNRE is $argN, as a raw fetcharg.
var argNRE = regexp.MustCompile(`^\$arg([1-9][0-9]*)$`)

// kernelView gives s, an argument passed through as written, the C type
// and what the kernel will name and type it as: $retval's C type is the
// function's return type, $argN's its Nth parameter's. A kernel that
// resolves arguments through BTF (BTFArgs) types an untyped $retval by
// the function's return type, and rewrites $argN at a function's entry
// as the parameter's name (trace_probe.c's traceprobe_expand_meta_args),
// which then names the argument and, untyped, types it
// (fetch_type_from_btf_type).
func (e *argEnv) kernelView(s *argSlot, a grammar.Arg, sc *dwarfres.Scope) {
	if sc == nil || (a.Expr != retvalExpr && !argNRE.MatchString(a.Expr)) {
		return
	}
	fn, ok := sc.FuncDIE()
	if !ok {
		return
	}
	btf := !e.user && e.dialect().Has(tracefs.BTFArgs)
	if a.Expr == retvalExpr {
		if !e.ret {
			return
		}
		t := ctype.FromDWARF(fn)
		s.ctype = typeOfVal(ctype.Val{Type: t})
		if btf && a.Type == "" && t != nil {
			s.kfetch = ctype.KernelFetchType(t)
		}
		return
	}
	n, _ := strconv.Atoi(argNRE.FindStringSubmatch(a.Expr)[1])
	params := fn.Params()
	if e.ret || e.pt == nil || e.pt.LineGiven() || e.pt.HasOffset && e.pt.Offset != 0 || n > len(params) {
		return
	}
	t := ctype.FromDWARF(params[n-1])
	s.ctype = typeOfVal(ctype.Val{Type: t})
	if !btf {
		return
	}
	if a.Name == "" {
		s.kname = params[n-1].Name()
	}
	if a.Type == "" && t != nil {
		s.kfetch = ctype.KernelFetchType(t)
	}
}
