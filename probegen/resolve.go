package probegen

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// ResolveOptions are the perf probe options that change where a probe
// point resolves.
type ResolveOptions struct {
	NoInlines bool // --no-inlines
	MaxProbes int  // --max-probes
	User      bool // a user binary (uprobes): no kernel .text checks
	// LazyLines returns, for a ;PTN pattern, the reader of matching
	// source lines: Sources.LazyLines, or another reader in tests.
	LazyLines func(pattern string) func(file, compDir string) (map[int]bool, error)
	// DeclText returns a function declaration's source text (Sources.DeclText),
	// to tell a notrace function from an inline one; nil without sources.
	DeclText func(file, compDir string, line int) (string, bool)
	// LineText returns one source line (Sources.LineText), to show the
	// nearest lines with code; nil without sources.
	LineText func(file, compDir string, line int) (string, bool)
	// skipPrologue: a uprobe at a function entry reads variables (perf's
	// perf_probe_with_var), so unoptimized code is probed past its prologue.
	skipPrologue bool
	// asked: the addresses kernelNotes will ask dwarfres about, answered
	// while their units are decoded (dwarfres.Query.Asked).
	asked func(addr uint64) bool
	// anyOffset: -V lists variables at an address without writing a probe
	// there, so mid-instruction offsets are not refused.
	anyOffset bool
	// Nearest probes the nearest line with code when the line asked for
	// has none (--nearest), with a note saying which.
	Nearest bool
	// suggesting: the line being resolved is one a NoCodeError would
	// suggest; one without code is not asked about its own neighbours.
	suggesting bool
	// FProbe writes kernel probes at function entries and returns as f:
	// fprobe events (--fprobe; fprobe.go).
	FProbe bool
}

// point is one resolved probe address ready to become a definition.
type point struct {
	addr     uint64        // link-time address; 0 for an absolute-address probe
	at       answer.Attach // SYMBOL+OFFS or _text+OFFS or 0xADDR, then a module's or uprobe's parts
	realname string
	ret      bool
	note     string // why the target has an unusual form
	noteKind answer.NoteKind
	scope    *dwarfres.Scope
}

// Definitions resolves a parsed spec against t into its definition lines,
// with perf probe 6.1's rules and dwprobe's refusals (see resolve). exe is
// the absolute path of the probed binary for uprobes, "" for a kernel.
// Notes explain targets written in an unusual form, for stderr.
func Definitions(t *dwarfres.File, spec *grammar.Spec, exe string, o ResolveOptions) (defs []tracefs.Event, notes []string, err error) {
	r, err := definitions(t, spec, exe, o)
	if err != nil {
		return nil, nil, err
	}
	return r.defs, answer.NoteTexts(r.notes), nil
}

// resolved is definitions' answer: the definitions, the point each lies
// at, each one's argument slots (none when the spec has no arguments) and
// the notes.
type resolved struct {
	defs  []tracefs.Event
	pts   []point
	slots [][]argSlot
	notes []answer.Note
}

// definitions is Definitions, with the point and argument slots of each
// definition.
func definitions(t *dwarfres.File, spec *grammar.Spec, exe string, o ResolveOptions) (*resolved, error) {
	defs, pts, slots, notes, err := definitionSlots(t, spec, exe, o)
	if err != nil {
		return nil, err
	}
	return &resolved{defs: defs, pts: pts, slots: slots, notes: notes}, nil
}

func definitionSlots(t *dwarfres.File, spec *grammar.Spec, exe string, o ResolveOptions) (defs []tracefs.Event, pts []point, slots [][]argSlot, notes []answer.Note, err error) {
	raw := spec.Raw
	o.User = exe != ""
	if spec.Point.RetInsns {
		args, err := resultArgs(t, spec)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		spec = &grammar.Spec{Raw: spec.Raw, Point: spec.Point, Args: args}
	}
	env := &argEnv{f: t, m: t.ELF.Machine, spec: raw, pt: &spec.Point, ret: spec.Point.Return, user: o.User}
	for _, a := range spec.Args {
		if isCVarName(a.Expr) || a.Expr == "$vars" || a.Expr == "$params" {
			o.skipPrologue = o.User
		}
	}
	if err := env.checkArgs(spec.Args); err != nil {
		return nil, nil, nil, nil, err
	}
	if symbolsOnly(t) {
		if err := checkSymbolsOnly(t, spec); err != nil {
			return nil, nil, nil, nil, err
		}
		notes = append(notes, answer.Note{Kind: answer.NoteSymbolsOnly, Text: symbolsOnlyNote(t)})
	}
	var initText addrRange
	if exe == "" {
		initText = initTextRange(t)
		o.asked = func(addr uint64) bool {
			nt, ok := t.Notrace(addr)
			return ok && nt || initText.has(addr)
		}
	}
	pts, err = resolve(&o, t, &spec.Point)
	if err != nil {
		return nil, nil, nil, nil, &PointError{Spec: raw, Err: err}
	}
	group := spec.Point.Group
	if group == "" {
		group = grammar.DefaultGroup
		if exe != "" {
			if group, err = grammar.ExecGroup(exe); err != nil {
				return nil, nil, nil, nil, &PointError{Spec: raw, Err: err}
			}
		}
	}
	if err := tracefs.ValidateName(tracefs.GroupName, group); err != nil {
		return nil, nil, nil, nil, &PointError{Spec: raw, Err: err}
	}
	// perf -D marks no name as taken, so every point of a spec gets its
	// base name.
	namer := grammar.NewNamer(nil)
	var where []string
	for i, p := range pts {
		name, err := namer.Peek(grammar.EventBase(&spec.Point, p.realname), true)
		if err != nil {
			return nil, nil, nil, nil, &PointError{Spec: raw, Err: err}
		}
		if exe != "" {
			// uprobes name a file offset; an absolute address is taken as given.
			off := p.at.Offset
			if p.addr != 0 {
				if lep := uprobeLocalEntry(t, &spec.Point, p.addr); lep != 0 {
					p = atLocalEntry(p, lep)
					pts[i] = p
				}
				if off, err = t.FileOffset(p.addr); err != nil {
					return nil, nil, nil, nil, &PointError{Spec: raw, Err: err}
				}
			}
			pts[i].at = answer.Attach{Binary: exe, FileOffset: off}
		} else if t.IsModule() {
			pts[i].at.Module = t.ModuleName()
		}
		d := newDef(exe != "", p.ret, group, name, pts[i].at)
		// The kprobe's SYMBOL+OFFS, _text+OFFS or 0xADDR without its
		// module, or a uprobe's, for notes and errors.
		place := d.Target
		switch {
		case exe != "" && len(spec.Args) > 0:
			place = p.at.Place()
		case exe == "" && t.IsModule():
			place = d.Target[len(pts[i].at.Module)+1:] // MODULE:place
		}
		if len(spec.Args) > 0 {
			if p.ret && p.scope == nil && readsRetvalMembers(spec.Args) && p.addr != 0 {
				if p.scope, err = returnScope(t, p.addr); err != nil {
					return nil, nil, nil, nil, &PointError{Spec: raw, Err: err}
				}
			} else if p.ret && p.scope == nil && readsRetval(spec.Args) && p.addr != 0 {
				// Only for $retval's C type (and the kernel's, kernelView):
				// a return probe needs no scope otherwise.
				p.scope, _ = returnScope(t, p.addr)
			}
			sl, err := env.convertArgs(spec.Args, p.scope)
			if err != nil {
				return nil, nil, nil, nil, err
			}
			slots = append(slots, sl)
			where = append(where, place)
		}
		if p.note != "" {
			notes = append(notes, answer.Note{Kind: p.noteKind, Text: p.note})
		}
		if exe == "" && p.addr != 0 {
			for _, n := range kernelNotes(t, p, place, initText, o.DeclText) {
				env.note(n.Kind, n.Text)
			}
		}
		defs = append(defs, d)
	}
	if err := env.finish(defs, slots, where, spec); err != nil {
		return nil, nil, nil, nil, err
	}
	if o.FProbe && exe == "" {
		if err := env.fprobes(defs, pts, slots, spec); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	notes = append(notes, env.notes...)
	return defs, pts, slots, notes, nil
}

// kernelNotes explains why a booted kernel would refuse a kprobe at p,
// naming the copy by its target (place: SYMBOL+OFFS, without a module)
// and address: a DWARF name can have several (arm64's vsnprintf and the
// EFI stub's __efistub_vsnprintf).
func kernelNotes(t *dwarfres.File, p point, place string, initText addrRange, declText func(string, string, int) (string, bool)) []answer.Note {
	var notes []answer.Note
	if nt, ok := t.Notrace(p.addr); ok && nt {
		notes = append(notes, answer.Note{Kind: answer.NoteNotrace, Text: notraceNote(t, p, place, declText)})
	}
	if initText.has(p.addr) {
		what := place
		if at, ok, err := t.ProbePointAt(p.addr); err == nil && ok && at.Function != "" {
			what += " (" + at.Function + " of " + at.File + ")"
		}
		notes = append(notes, answer.Note{Kind: answer.NoteInitText, Text: fmt.Sprintf("%s at %#x is init text, which the kernel frees after boot: a running kernel refuses kprobes there (its core_kernel_text)", what, p.addr)})
	}
	if n, ok := lastTextNote(t, p); ok {
		notes = append(notes, answer.Note{Kind: answer.NoteUnsafe, Text: n})
	}
	if n, ok := ftraceSiteNote(t, p); ok {
		notes = append(notes, answer.Note{Kind: answer.NoteUnsafe, Text: n})
	}
	if t.IsModule() && strings.HasPrefix(t.SectionName(p.addr), ".init.") {
		notes = append(notes, answer.Note{Kind: answer.NoteInitText, Text: fmt.Sprintf("%s is in the module's %s, which the kernel frees once the module has loaded: define the probe before loading the module (the kernel registers it as the module comes in, and it fires during its init)", place, t.SectionName(p.addr))})
	}
	return notes
}

// notraceNote says that p is in a function without an ftrace call site,
// which copy of its name (the declaration's file and line) and why: an
// out-of-line copy of an inline function, a function declared notrace
// (notrace, noinstr), or one in a file built without ftrace's -pg. The
// declaration's source text, when declText finds it, settles what DWARF
// cannot (gcc marks an inline function it never inlined as a plain one).
func notraceNote(t *dwarfres.File, p point, place string, declText func(string, string, int) (string, bool)) string {
	fn, _ := t.Symbols().At(p.addr)
	name, why := fn.Name, "declared so in its source, or its file is built without ftrace"
	if fd, ok, err := t.FuncAt(p.addr); err == nil && ok {
		if fd.Line > 0 {
			name = fmt.Sprintf("%s (%s:%d)", fn.Name, fd.File, fd.Line)
		}
		text, found := "", false
		if declText != nil && fd.Line > 0 {
			text, found = declText(fd.File, fd.CompDir, fd.Line)
		}
		switch {
		case found && hasWord(text, "notrace", "noinstr"):
			why = "its source declares it notrace"
		case fd.Inline || found && hasWord(text, "inline", "__always_inline"):
			why = "it is an out-of-line copy of an inline function"
		case found && strings.Contains(text, "SYSCALL_DEFINE"):
			// The macro defines __do_sys_NAME static inline.
			why = "it is an out-of-line copy of an inline function (SYSCALL_DEFINE's __do_sys_)"
		case found:
			why = "not declared inline or notrace: its file is built without ftrace (no -pg), or a macro marks it"
		}
	}
	return fmt.Sprintf("%s is notrace (no ftrace call site: %s) at %s (%#x): a kernel built without CONFIG_KPROBE_EVENTS_ON_NOTRACE (Debian's) refuses kprobe events in it with \"Failed to register probe event\"", name, why, place, p.addr)
}

// hasWord reports whether one of words is a C token of text.
func hasWord(text string, words ...string) bool {
	f := strings.FieldsFunc(text, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	for _, w := range f {
		for _, want := range words {
			if w == want {
				return true
			}
		}
	}
	return false
}

// addrRange is [lo, hi); empty when not found.
type addrRange struct{ lo, hi uint64 }

func (r addrRange) has(addr uint64) bool { return addr >= r.lo && addr < r.hi }

// initTextRange is the kernel's init text [_sinittext, _einittext).
func initTextRange(t *dwarfres.File) addrRange {
	lo, ok1 := t.SymbolAddr("_sinittext")
	hi, ok2 := t.SymbolAddr("_einittext")
	if !ok1 || !ok2 || !t.IsKernel() {
		return addrRange{}
	}
	return addrRange{lo, hi}
}

// resolve finds the addresses of a probe point with perf's rules, refusing
// what perf would accept but the kernel rejects.
func resolve(o *ResolveOptions, t *dwarfres.File, p *grammar.Point) ([]point, error) {
	if p.IsAddr {
		if p.HasLine || p.File != "" {
			return nil, errors.New("an absolute address takes no line or file")
		}
		if t.IsModule() {
			// perf finds no such point either: a module has no address
			// before the kernel loads it.
			return nil, fmt.Errorf("an absolute address in a module %w: its load address is known only once loaded; probe FUNC+OFFS", grammar.ErrNotSupported)
		}
		if !o.User {
			if err := checkKernelText(t, p.Addr); err != nil {
				return nil, err
			}
		}
		return []point{{at: answer.Attach{Offset: p.Addr}, realname: "abs_" + strconv.FormatUint(p.Addr, 16), ret: p.Return}}, nil
	}
	if p.Return {
		return resolveReturn(o, t, p)
	}
	if p.RetInsns {
		return resolveRetInsns(o, t, p)
	}
	q := dwarfres.Query{
		Function:  lazymatch.NewNameMatcher(p.Function),
		File:      p.File,
		Line:      p.Line,
		HasLine:   p.LineGiven(),
		Offset:    p.Offset,
		NoInlines: o.NoInlines,
		MaxProbes: o.MaxProbes,
		// perf: only FUNC and FUNC@SRC points move past the prologue.
		SkipPrologue: o.skipPrologue && !p.LineGiven() && !p.HasOffset && p.Lazy == "",
		Asked:        o.asked,
	}
	if p.Lazy != "" {
		if o.LazyLines == nil {
			return nil, fmt.Errorf("lazy pattern %q: no source reader: %w", p.Lazy, grammar.ErrNotSupported)
		}
		q.LazyLines = o.LazyLines(p.Lazy)
	}
	probes, err := t.FindProbes(q)
	if err == nil && len(probes) == 0 && p.Function != "" && p.File == "" && !q.Function.IsGlob() && p.Lazy == "" {
		// perf's find_alternative_probe_point: a name DWARF does not know
		// (a clone such as do_sysinfo.isra.0) is looked up in the symbol
		// table and its address mapped back to a DWARF point.
		probes, err = alternative(t, q, p)
	}
	// perf falls back to the symbol table when DWARF has no answer for a
	// point that does not need it: assembly functions, .cold parts, an
	// offset past the DWARF function's end.
	symOnly := p.Function != "" && !p.LineGiven() && p.File == "" && p.Lazy == ""
	// Unlike perf, too many points is an answer, not a reason to fall back
	// to the one symbol (which would silently drop the inlined copies).
	// A dwz file whose common file is missing, or a split unit's .dwo, is
	// named, not hidden.
	var altErr *dwarfres.AltFileError
	final := errors.Is(err, dwarfres.ErrMalformed) || errors.Is(err, dwarfres.ErrTooMany) || errors.As(err, &altErr) ||
		errors.Is(err, dwarfres.ErrSplitDWARF)
	if symOnly && (err != nil && !final || err == nil && len(probes) == 0) {
		return fromSymbols(o, t, p)
	}
	if err != nil && errors.Is(err, dwarfres.ErrTooMany) && q.MaxProbes > 0 {
		// The search stops past the limit: count for the caller.
		q.MaxProbes = 0
		all, cerr := t.FindProbes(q)
		if cerr == nil {
			return nil, &TooManyError{Function: p.Function, N: len(all), Max: o.MaxProbes, Err: err}
		}
	}
	if err != nil {
		return nil, err
	}
	if len(probes) == 0 {
		if p.Lazy != "" {
			return nil, lazyMiss(t, p)
		}
		if p.LineGiven() && !o.suggesting {
			if e, ok := nearestLines(o, t, p); ok {
				pts := suggestLine(o, t, p, e)
				if o.Nearest && e.Outside == "" && e.Suggested != nil {
					return nearest(p, e, pts), nil
				}
				return nil, e
			}
		}
		return nil, fmt.Errorf("probe point %s %w", describe(p), dwarfres.ErrNotFound)
	}
	countAhead(t, len(probes), func(i int) string { return probes[i].Symbol })
	var out []point
	for _, pr := range probes {
		if err := checkPointBoundary(o, t, p, pr); err != nil {
			return nil, err
		}
		pt := kernelTarget(t, pr.Symbol, pr.Offset, pr.Addr, pr.RealName, pr.InText)
		pt.scope = pr.Scope
		if pr.PrologueOf != 0 {
			pt.note, pt.noteKind = prologueNote(p, pr), answer.NotePrologue
		}
		if len(pr.LeftOut) > 0 {
			n := leftOutNote(p, pr.LeftOut)
			if pt.note == "" {
				pt.noteKind = answer.NoteOther
			}
			pt.note = strings.TrimPrefix(pt.note+"; "+n, "; ")
		}
		out = append(out, pt)
	}
	if n := overloadNote(p, probes); n != "" {
		addNote(out, n)
	}
	return out, nil
}

// prologueNote says that probe pr of p moved past an -O0 function's
// prologue, and how to probe the entry instead: in the spec's own terms
// (FUNC+0 does not move), not addresses, which for a uprobe are virtual
// where the definition writes file offsets.
// leftOutNote names the copies of the function that have no code at
// p's line, where the probe cannot fire.
func leftOutNote(p *grammar.Point, copies []dwarfres.Probe) string {
	var where []string
	for _, c := range copies {
		w := fmt.Sprintf("%s+%d", c.Symbol, c.Offset)
		if c.RealName != c.Func {
			w = fmt.Sprintf("the one inlined in %s (%s)", c.Func, w)
		} else {
			w = "the one at " + w
		}
		where = append(where, w)
	}
	what, it := "a copy of the function has", "it"
	if len(copies) > 1 {
		what, it = fmt.Sprintf("%d copies of the function have", len(copies)), "them"
	}
	return fmt.Sprintf("%s: %s no code at that line (the compiler folded it away or split it off there), so the probe cannot fire in %s: %s", describe(p), what, it, strings.Join(where, ", "))
}

func prologueNote(p *grammar.Point, pr dwarfres.Probe) string {
	entry := grammar.Point{Function: p.Function, File: p.File, HasOffset: true}
	spec := entry.String()
	// "ns::f", as users write it, where it reads back the same.
	if plain := strings.ReplaceAll(spec, `\:\:`, "::"); plain != spec {
		if q, err := grammar.ParsePoint(plain); err == nil && *q == entry {
			spec = plain
		}
	}
	return fmt.Sprintf("%s is compiled without optimization: probing %d bytes past its entry, after its prologue, where its variables are set up (probe %s to force the entry)",
		pr.Func, pr.Addr-pr.PrologueOf, spec)
}

// alternative retries q at the DWARF point of the symbol named p.Function.
func alternative(t *dwarfres.File, q dwarfres.Query, p *grammar.Point) ([]dwarfres.Probe, error) {
	alt, ok, err := symbolAlias(t, p.Function)
	if err != nil || !ok {
		return nil, err
	}
	if (alt.Line != 0 || alt.Offset != 0) && !p.LineGiven() {
		return symbolPart(t, q, p)
	}
	q.Function, q.File = lazymatch.ExactName(alt.Function), alt.File
	q.Offset += alt.Offset
	if alt.Line == 0 {
		return t.FindProbes(q)
	}
	// A symbol inside its function (f.cold) names one address, whose line
	// the function may not own (do_exit.cold starts on a row of abort's
	// last line): as perf, that line anywhere in the unit, kept to the
	// symbol's address; a line with other points there is left to the
	// symbol table, as perf, whose line lookup refuses such lines.
	lr, err := t.FindLineRange(dwarfres.LineQuery{Function: alt.Function, File: alt.File, End: math.MaxInt32})
	if err != nil || lr == nil {
		return nil, err
	}
	q.Function = lazymatch.NameMatcher{}
	q.Line += lr.Offset + alt.Line
	q.HasLine = true
	probes, err := t.FindProbes(q)
	if err != nil {
		return nil, err
	}
	start := t.Symbols().Lookup(p.Function)[0].Start
	for _, pr := range probes {
		if pr.Addr == start {
			return []dwarfres.Probe{pr}, nil
		}
	}
	return nil, nil
}

// symbolPart probes a symbol that names a part of a function (gcc's
// FUNC.cold, in another section) at the symbol plus p's offset, as the
// function's own code at that address. perf maps the symbol to a source
// line and probes that line's addresses instead: code of other functions
// when the line is shared, or one of the section before when the symbol
// starts where the previous section's line sequence ends (cuse.ko's
// cuse_process_init_reply.cold gave cuse_exit+28).
func symbolPart(t *dwarfres.File, q dwarfres.Query, p *grammar.Point) ([]dwarfres.Probe, error) {
	sym := t.Symbols().Lookup(p.Function)[0]
	if p.Offset >= sym.End-sym.Start && p.Offset > 0 {
		return nil, fmt.Errorf("offset %d is bigger than the size of %s (%d) %w", p.Offset, sym.Name, sym.End-sym.Start, dwarfres.ErrOutOfRange)
	}
	want := sym.Start + p.Offset
	fd, ok, err := t.FuncAt(want)
	if err != nil || !ok {
		return nil, err
	}
	q.Function, q.File, q.Line, q.HasLine = lazymatch.ExactName(fd.Name), fd.File, 0, false
	q.NoInlines, q.SkipPrologue, q.Offset = true, false, 0
	entries, err := t.FindProbes(q)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		q.Offset = want - e.Addr
		ps, err := t.FindProbes(q)
		if err != nil {
			continue
		}
		for _, pr := range ps {
			if pr.Addr == want {
				return []dwarfres.Probe{pr}, nil
			}
		}
	}
	return nil, nil
}

// symbolAlias is the DWARF point of the symbol named fn, for a name DWARF
// does not know as a function: an alias (glibc's malloc is __libc_malloc).
// -D, -L and -V resolve such names the same way through it.
func symbolAlias(t *dwarfres.File, fn string) (dwarfres.PointAt, bool, error) {
	syms := t.Symbols().Lookup(fn)
	if len(syms) == 0 {
		return dwarfres.PointAt{}, false, nil
	}
	alt, ok, err := t.ProbePointAt(syms[0].Start)
	if err != nil || !ok || alt.Function == "" {
		return dwarfres.PointAt{}, false, err
	}
	return alt, true, nil
}

// lazyMiss is the error of a lazy pattern that matched nothing, with the
// probeable lines of the function it searched.
func lazyMiss(t *dwarfres.File, p *grammar.Point) error {
	e := &LazyMissError{Pattern: p.Lazy, Function: p.Function, File: p.File}
	if p.Function == "" {
		return e
	}
	lr, err := t.FindLineRange(dwarfres.LineQuery{Function: p.Function, File: p.File, End: math.MaxInt32})
	if err != nil || lr == nil {
		return e
	}
	for _, l := range lr.Lines {
		e.Lines = append(e.Lines, l-lr.Offset)
	}
	return e
}

// nearestLines finds the probeable lines around p's line, which has no
// code: the last before it and the first after it, with their source text
// when o can read it, within the line's function as SystemTap's .nearest
// and gdb look: for FUNC:RLN the function's extent (from its declaration
// to the line before the next function's), for SRC:ALN the extent of the
// function of the file holding the line, never past the source's end
// (unread, past the file's last line with code). A line outside them is
// refused with the nearest lines and why --nearest does not probe them
// (NoCodeError.Outside). ok is false when the function or file has no
// probeable line at all.
func nearestLines(o *ResolveOptions, t *dwarfres.File, p *grammar.Point) (e *NoCodeError, ok bool) {
	q := dwarfres.LineQuery{Function: p.Function, File: p.File, Start: 0, End: math.MaxInt32}
	if p.Function == "" {
		q.Start, q.End = max(p.Line-50, 1), p.Line+50
	}
	lr, err := t.FindLineRange(q)
	if p.Function == "" && err == nil && (lr == nil || len(lr.Lines) == 0) {
		// Far past the file's code (app.c:200): the whole file.
		q.Start, q.End = 1, math.MaxInt32
		lr, err = t.FindLineRange(q)
	}
	if err != nil || lr == nil || len(lr.Lines) == 0 {
		return nil, false
	}
	want := p.Line + lr.Offset
	e = &NoCodeError{Point: describe(p), Function: p.Function, File: p.File, Line: p.Line}
	lo, hi := math.MinInt, math.MaxInt
	switch {
	case p.Function != "" && lr.Extent > 0:
		lo, hi = lr.Offset, lr.Extent
		if want > hi {
			e.Outside = fmt.Sprintf("%s's source ends before that line (the next function starts at %s:%d)", p.Function, p.Function, hi+1-lr.Offset)
		}
	case p.Function == "" && len(lr.Funcs) > 0:
		in := false
		for _, f := range lr.Funcs {
			if f.Decl <= want && want <= f.End {
				lo, hi, in = f.Decl, f.End, true
			}
		}
		if !in {
			e.Outside = fmt.Sprintf("no function of %s holds that line", p.File)
		}
	}
	if e.Outside == "" && hi == math.MaxInt32 {
		// The last function of its file: no further than the source,
		// or, unread, than the file's last line with code.
		read := false
		if o.LineText != nil {
			_, read = o.LineText(lr.Path, lr.CompDir, lr.Lines[0])
		}
		if read {
			if _, has := o.LineText(lr.Path, lr.CompDir, want); !has {
				e.Outside = fmt.Sprintf("the source of %s ends before that line", lr.Path)
			}
		} else if l := lr.Lines[len(lr.Lines)-1]; want > l {
			e.Outside = "without its source, --nearest looks no further than its last line with code"
		}
	}
	if e.Outside != "" {
		lo, hi = math.MinInt, math.MaxInt // name the nearest lines all the same
	}
	last := 0
	for _, l := range lr.Lines {
		if l < lo || l > hi {
			continue
		}
		last = l
		if l < want {
			e.Before = nearLine(o, lr, p, l)
		} else if l > want && e.After.Spec == "" {
			e.After = nearLine(o, lr, p, l)
		}
	}
	e.Last = want > last
	return e, e.Before.Spec != "" || e.After.Spec != ""
}

// nearLine is absolute line l of lr as p would name it (relative to its
// function), with its source text when it can be read.
func nearLine(o *ResolveOptions, lr *dwarfres.LineRange, p *grammar.Point, l int) NearLine {
	n := NearLine{Line: l - lr.Offset}
	if p.Function != "" {
		n.Spec = fmt.Sprintf("%s:%d", p.Function, n.Line)
	} else {
		n.Spec = fmt.Sprintf("%s:%d", p.File, l)
	}
	if o.LineText != nil {
		if text, ok := o.LineText(lr.Path, lr.CompDir, l); ok {
			n.Text = strings.TrimSpace(text)
		}
	}
	return n
}

// suggestLine resolves the line e would suggest (e.Nearest), else the
// other of its nearest lines, and records the first that resolves as
// e.Suggested, with its points: a line is offered only once it is known
// to resolve. Neither resolving leaves e.Suggested nil.
func suggestLine(o *ResolveOptions, t *dwarfres.File, p *grammar.Point, e *NoCodeError) []point {
	first := e.Nearest()
	for _, n := range []NearLine{first, e.Before, e.After} {
		if n.Spec == "" || n != first && n.Line == first.Line {
			continue
		}
		q := *p
		q.Line = n.Line
		o2 := *o
		o2.suggesting = true
		pts, err := resolve(&o2, t, &q)
		if err == nil && len(pts) > 0 {
			e.Suggested = &SuggestedSpec{NearLine: n, Points: len(pts)}
			return pts
		}
	}
	return nil
}

// nearest is, for --nearest, the points of the line e suggests
// (e.Suggested), noting which it probed, once for the spec.
func nearest(p *grammar.Point, e *NoCodeError, pts []point) []point {
	note := fmt.Sprintf("%s has no code: probed %s, the nearest line with code", describe(p), e.Suggested.Spec)
	// One note for the spec, on its first point.
	if len(pts) > 0 {
		if pts[0].note == "" {
			pts[0].noteKind = answer.NoteNearest
		}
		pts[0].note = strings.TrimPrefix(pts[0].note+"; "+note, "; ")
	}
	return pts
}

func describe(p *grammar.Point) string {
	return "'" + p.String() + "'"
}

// kernelTarget writes SYMBOL+OFFS, unless the kernel would resolve SYMBOL to
// another function of the same name: then _text+OFFS names the address, or
// in a module (which has no _text) the closest unique symbol before it
// and the offset from there (the kernel keeps a section's layout).
func kernelTarget(t *dwarfres.File, sym string, off, addr uint64, realname string, inText bool) point {
	st := t.Symbols()
	if t.IsKernel() && inText && st.HasText {
		if n := st.Count(sym); n > 1 {
			return point{
				addr:     addr,
				at:       answer.Attach{Symbol: "_text", Offset: addr - st.Text},
				realname: realname,
				noteKind: answer.NoteNotUnique,
				note:     fmt.Sprintf("%s is not unique in the kernel's symbol table (%d symbols); wrote _text+%d so the kernel probes %s+%d at %#x", sym, n, addr-st.Text, sym, off, addr),
			}
		}
	}
	if t.IsModule() && st.Count(sym) > 1 {
		if u, ok := st.UniqueBefore(addr); ok {
			return point{
				addr:     addr,
				at:       answer.Attach{Symbol: u.Name, Offset: addr - u.Start},
				realname: realname,
				noteKind: answer.NoteNotUnique,
				note:     fmt.Sprintf("%s is not unique in the module (%d symbols); wrote %s+%d so the kernel probes this copy's %s+%d, not the copy it finds first", sym, st.Count(sym), u.Name, addr-u.Start, sym, off),
			}
		}
	}
	return point{addr: addr, at: answer.Attach{Symbol: sym, Offset: off}, realname: realname}
}

// countAhead has the kernel's or module's symbol table count the names
// of n points' symbols in one scan, before kernelTarget asks about each.
func countAhead(t *dwarfres.File, n int, name func(int) string) {
	if n < 2 || !t.IsKernel() && !t.IsModule() {
		return
	}
	names := make([]string, n)
	for i := range names {
		names[i] = name(i)
	}
	t.Symbols().CountAhead(names)
}

// fromSymbols is perf's find_probe_trace_events_from_map for functions
// without DWARF.
func fromSymbols(o *ResolveOptions, t *dwarfres.File, p *grammar.Point) ([]point, error) {
	syms := matchSymbols(t, p.Function)
	if len(syms) == 0 {
		return nil, fmt.Errorf("probe point %s %w", describe(p), dwarfres.ErrNotFound)
	}
	if len(syms) > o.MaxProbes {
		return nil, &TooManyError{Function: p.Function, N: len(syms), Max: o.MaxProbes}
	}
	var out []point
	for _, s := range syms {
		if p.Offset > s.End-s.Start {
			return nil, fmt.Errorf("offset %d is bigger than the size of %s (%d) %w", p.Offset, s.Name, s.End-s.Start, dwarfres.ErrOutOfRange)
		}
		pr := dwarfres.Probe{Addr: s.Start + p.Offset, Symbol: s.Name, Offset: p.Offset, RealName: s.Name, InText: true}
		if p.Offset > 0 {
			if err := checkBoundary(t, pr, s.Name, p.Offset, true); err != nil {
				return nil, err
			}
		}
		if st := t.Symbols(); t.IsKernel() && st.HasText {
			// perf names symbol-table probes relative to _text, which
			// also settles names that are not unique.
			out = append(out, point{addr: pr.Addr, at: answer.Attach{Symbol: "_text", Offset: pr.Addr - st.Text}, realname: s.Name})
			continue
		}
		out = append(out, kernelTarget(t, s.Name, p.Offset, pr.Addr, s.Name, true))
	}
	return out, nil
}

// dwarfEntrySymbols finds the symbols of the out-of-line functions DWARF
// names p.Function when no symbol has that name: Rust's "work" is the
// symbol _ZN1r4work17h...E ("r::work" demangled).
func dwarfEntrySymbols(o *ResolveOptions, t *dwarfres.File, p *grammar.Point) []dwarfres.Sym {
	probes, err := t.FindProbes(dwarfres.Query{Function: lazymatch.NewNameMatcher(p.Function),
		NoInlines: true, MaxProbes: o.MaxProbes})
	if err != nil {
		return nil
	}
	var out []dwarfres.Sym
	for _, pr := range probes {
		if s, ok := t.Symbols().At(pr.Addr); ok && s.Start == pr.Addr && s.Type == elf.STT_FUNC {
			out = append(out, s)
		}
	}
	return out
}

// symbolMatches reports whether symbol name matches the glob pat as it is
// or, for a C++ or Rust symbol, demangled as perf's symbol map holds it
// ("_ZN3geo3Box4growEl" is "geo::Box::grow").
func symbolMatches(name, pat string) bool {
	if lazymatch.Glob(name, pat) {
		return true
	}
	d, ok := dwarfres.Demangle(name)
	return ok && lazymatch.Glob(d, pat)
}

// matchSymbols is perf's find_probe_functions: function symbols whose name
// (without an @VERSION) matches the glob, one per address, in address order.
func matchSymbols(t *dwarfres.File, pat string) []dwarfres.Sym {
	var out []dwarfres.Sym
	seen := map[uint64]bool{}
	each := t.Symbols().Each
	if !lazymatch.IsGlob(pat) && !strings.ContainsAny(pat, "\\@\x00") {
		// A plain name: its symbols by name, not a scan of them all
		// (a spec file of names that match nothing scanned for each).
		if syms, ok := t.Symbols().Named(pat); ok {
			each = func(fn func(dwarfres.Sym)) {
				for _, s := range syms {
					fn(s)
				}
			}
		}
	}
	each(func(s dwarfres.Sym) {
		n := s.Name
		if i := strings.IndexByte(n, '@'); i >= 0 && strings.IndexByte(pat, '@') < 0 {
			n = n[:i]
		}
		if s.Type != elf.STT_FUNC || !symbolMatches(n, pat) || seen[s.Start] {
			return
		}
		seen[s.Start] = true
		out = append(out, s)
	})
	return out
}

// returnScope is the DWARF scope of the function a return probe at the
// symbol start addr returns from (nil when no debuginfo covers it): at
// addr, or past the patchable NOPs before the entry DWARF names (arm64,
// riscv64).
func returnScope(t *dwarfres.File, addr uint64) (*dwarfres.Scope, error) {
	sc, ok, err := t.FuncScope(addr)
	if ok || err != nil {
		return sc, err
	}
	if a, known := arch.For(t.Machine); known && a.EntryNOPBytes() > 0 {
		sc, _, err = t.FuncScope(addr + uint64(a.EntryNOPBytes()))
	}
	return sc, err
}

// resolveReturn handles FUNC%return from the symbol table as perf does, but
// keeps @SRC and explains inline-only functions.
func resolveReturn(o *ResolveOptions, t *dwarfres.File, p *grammar.Point) ([]point, error) {
	if p.HasOffset && p.Offset != 0 || p.HasLine {
		return nil, errors.New("a return probe takes no offset or line")
	}
	if t.IsGo() {
		return nil, fmt.Errorf("%s%%return: %w; probe its return instructions instead: %s%%%s $retval", p.Function, ErrGoReturn, p.Function, grammar.RetInsnSuffix)
	}
	syms := matchSymbols(t, p.Function)
	if p.File != "" && len(syms) > 0 {
		// Keep only the symbols whose DWARF function is declared in SRC.
		probes, err := t.FindProbes(dwarfres.Query{Function: lazymatch.NewNameMatcher(p.Function),
			File: p.File, NoInlines: true, MaxProbes: o.MaxProbes})
		if err != nil {
			return nil, err
		}
		keep := map[uint64]bool{}
		for _, pr := range probes {
			keep[pr.Addr] = true
		}
		var f []dwarfres.Sym
		for _, s := range syms {
			if keep[s.Start] {
				f = append(f, s)
			}
		}
		syms = f
	}
	if len(syms) == 0 && p.File == "" {
		syms = dwarfEntrySymbols(o, t, p)
	}
	if len(syms) == 0 {
		probes, _ := t.FindProbes(dwarfres.Query{Function: lazymatch.NewNameMatcher(p.Function), File: p.File, MaxProbes: o.MaxProbes})
		if len(probes) > 0 {
			return nil, fmt.Errorf("%s is only inlined (%d inlined instances, no out-of-line copy), so it has no return point: %w; probe its callers' lines instead", p.Function, len(probes), dwarfres.ErrInlineReturn)
		}
		return nil, fmt.Errorf("probe point %s %w", describe(p), dwarfres.ErrNotFound)
	}
	if len(syms) > o.MaxProbes {
		return nil, &TooManyError{Function: p.Function, N: len(syms), Max: o.MaxProbes}
	}
	countAhead(t, len(syms), func(i int) string { return syms[i].Name })
	var out []point
	for _, s := range syms {
		pt := kernelTarget(t, s.Name, 0, s.Start, s.Name, true)
		pt.ret = true
		out = append(out, pt)
	}
	return out, nil
}

// checkBoundary refuses an offset that is not on an instruction boundary:
// where instruction sizes vary (x86_64), decoding from the function's
// entry; where they are fixed (arm64), by alignment. The message speaks
// in the user's offset from fn (userOff), which differs from pr.Offset
// when the function's entry is not its symbol's start (arm64's
// patchable-function-entry NOPs).
// strict: an instruction that does not decode is an error too.
func checkBoundary(t *dwarfres.File, pr dwarfres.Probe, fn string, userOff uint64, strict bool) error {
	a, ok := arch.For(t.Machine)
	if !ok {
		return nil
	}
	skew := pr.Offset - userOff // the entry's offset in its symbol
	where := fmt.Sprintf("%s+%d", fn, userOff)
	if skew != 0 || fn != pr.Symbol {
		where += fmt.Sprintf(" (symbol %s+%d)", pr.Symbol, pr.Offset)
	}
	if sz := uint64(a.InsnSize); sz != 0 {
		if pr.Offset%sz != 0 {
			near := pr.Offset - pr.Offset%sz
			if near < skew {
				return fmt.Errorf("%s is not on an instruction (%s instructions are %d bytes): try %s+%d", where, a.Name, sz, fn, near+sz-skew)
			}
			return fmt.Errorf("%s is not on an instruction (%s instructions are %d bytes): try %s+%d or %s+%d", where, a.Name, sz, fn, near-skew, fn, near+sz-skew)
		}
		return nil
	}
	return checkDecodedBoundary(t, a, pr.Addr-userOff, fn, userOff, where, strict)
}

// checkDecodedBoundary decodes from a function's entry (an instruction
// boundary, unlike the start of a symbol that may hold it) up to offset
// off, where an instruction must start. Offsets in messages count from
// the entry, as the user's FUNC+OFFS does. strict: an instruction that
// does not decode is an error too (else the kernel is left to check).
func checkDecodedBoundary(t *dwarfres.File, a *arch.Arch, entry uint64, fn string, off uint64, where string, strict bool) error {
	code, err := t.Bytes(entry, off+16)
	if err != nil {
		code, err = t.Bytes(entry, off)
		if err != nil {
			return nil // not in the image (e.g. init text): let the kernel check
		}
	}
	var pc, last uint64 // last: the boundary before pc
	for pc < off {
		n, err := a.InsnLen(code[pc:])
		if (err != nil || n == 0) && !strict {
			return nil
		}
		if err != nil || n == 0 {
			return &DecodeError{Func: fn, Offset: off, At: pc, Addr: entry + pc,
				Bytes: bytes.Clone(code[pc:min(pc+8, uint64(len(code)))]), Arch: a.Name, Err: err}
		}
		last, pc = pc, pc+uint64(n)
	}
	if pc != off {
		return fmt.Errorf("%s is in the middle of an instruction (instructions start at %s+%d and %s+%d)", where, fn, last, fn, pc)
	}
	return nil
}

// checkPointBoundary refuses a DWARF point whose offset in its symbol is
// not on an instruction, wherever the offset came from: the user's
// +OFFS, or a line, an inlined copy or a prologue skip, which only a
// wrong symbol map or index could put mid-instruction (the kernel would
// take a uprobe there, and an x86 kprobe's check is the only other).
// An offset the user did not give is refused only when shown to be
// mid-instruction; one the decoder cannot read is left to the kernel.
func checkPointBoundary(o *ResolveOptions, t *dwarfres.File, p *grammar.Point, pr dwarfres.Probe) error {
	if o.anyOffset {
		return nil
	}
	if p.HasOffset && p.Offset > 0 {
		return checkBoundary(t, pr, p.Function, p.Offset, true)
	}
	if pr.Offset == 0 {
		return nil
	}
	return checkBoundary(t, pr, pr.Symbol, pr.Offset, false)
}

// checkKernelText refuses a kernel address outside .text, as perf does (its
// kprobe_warn_out_range, which also refuses .text's first byte).
func checkKernelText(t *dwarfres.File, addr uint64) error {
	s := t.ELF.Section(".text")
	if s == nil {
		return nil
	}
	if addr <= s.Addr || addr > s.Addr+s.Size {
		return fmt.Errorf("address %#x is out of the kernel's .text (%#x-%#x]", addr, s.Addr, s.Addr+s.Size)
	}
	return nil
}

// Resolve is Definitions, also saying where each definition lies and how
// each argument is read there.
func Resolve(t *dwarfres.File, spec *grammar.Spec, exe string, o ResolveOptions) (*answer.Resolution, error) {
	return resolveProbes(t, spec, exe, o, false)
}

// resolveProbes is Resolve; brief leaves out what probesOf's brief does.
func resolveProbes(t *dwarfres.File, spec *grammar.Spec, exe string, o ResolveOptions, brief bool) (*answer.Resolution, error) {
	d, err := definitions(t, spec, exe, o)
	if err != nil {
		return nil, err
	}
	return &answer.Resolution{Spec: spec, Probes: probesOf(t, spec, exe, d, brief), Notes: d.notes}, nil
}
