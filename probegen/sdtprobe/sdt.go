package sdtprobe

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/sdt"
	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// GroupPrefix starts the group of every SDT marker's event: perf names
// the group of PROVIDER's markers sdt_PROVIDER.
const GroupPrefix = "sdt_"

// NotFoundError: no marker of the binary matches the spec. It wraps
// dwarfres.ErrNotFound and lists what there is.
type NotFoundError struct {
	Want    string   // the spec's point, %GROUP:EVENT
	Binary  string   // the binary's path
	Markers []string // its markers, sdt_PROVIDER:NAME, each once, in note order
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no SDT marker matches %s in %s; its markers: %s",
		e.Want, e.Binary, strings.Join(e.Markers, " "))
}

func (e *NotFoundError) Unwrap() error { return dwarfres.ErrNotFound }

// MarkerName is a marker's name as perf lists it: sdt_PROVIDER:NAME.
func MarkerName(m sdt.Marker) string {
	return GroupPrefix + m.Provider + ":" + m.Name
}

// Names lists the markers' names, each once, in note order (a marker
// may sit at several places: one note each).
func Names(ms []sdt.Marker) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range ms {
		if n := MarkerName(m); !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// sdtMatch is perf's find_cached_events test: the group glob (if given)
// against sdt_PROVIDER, the event glob against the marker's name.
func sdtMatch(p *grammar.Point, m sdt.Marker) bool {
	return (p.Group == "" || lazymatch.Glob(GroupPrefix+m.Provider, p.Group)) &&
		lazymatch.Glob(m.Name, p.Event)
}

// Resolve resolves an SDT spec, as probegen resolves the others: a
// uprobe at every marker of f the point matches, written as perf 6.1's
// synthesize_sdt_probe_command does ("p:sdt_python/line
// /usr/bin/python3.11:0x3423c(0x68326c) arg1=%r14:u64 ..."), the
// semaphore's file offset as the uprobe's (REF_CTR_OFFSET) so the kernel
// raises it while the probe is on; probegen's resolver holds the markers
// matched to its ResolveOptions.MaxProbes. An operand the kernel cannot
// read is left out, as perf leaves it, with a note naming it. Beyond perf
// (which ignores a spec's arguments here), arguments [NAME=]argN[:TYPE]
// pick, rename or retype the note's: "file=arg1:string" reads the string
// arg1 points to. Errors wrap sdt.ErrNoSDT (no markers), *NotFoundError
// (none matches), grammar.ErrSyntax (an argument not argN, or past the
// note's), an *ArgError (an argument asked for that the kernel cannot
// read), or tracefs's for a definition the kernel would refuse.
func Resolve(f *dwarfres.File, spec *grammar.Spec, exe string) (*answer.Resolution, error) {
	if err := grammar.CheckSDTArgs(spec); err != nil {
		return nil, err
	}
	ms, err := sdt.Markers(f.Object)
	if err != nil {
		return nil, err
	}
	r := &answer.Resolution{Spec: spec}
	a, _ := arch.For(f.ELF.Machine)
	addr := f.SymbolAddr
	for _, m := range ms {
		if !sdtMatch(&spec.Point, m) {
			continue
		}
		def, at, notes, err := sdtDefinition(f, m, exe, spec)
		if err != nil {
			return nil, err
		}
		p := answer.Probe{Kind: answer.ProbeSDT, EventKind: def.Kind, User: true, Machine: f.ELF.Machine, Group: def.Group, Name: def.Name, Attach: at, Addr: m.Loc}
		if s, ok := f.Symbols().At(m.Loc); ok {
			p.ELFSymbol, p.ELFOffset, p.Function = s.Name, m.Loc-s.Start, s.Name
		}
		for _, fa := range def.Args {
			// Named every one (argN, or the spec's NAME), typed by
			// the note or the spec: written as the kernel reads it.
			p.Args = append(p.Args, answer.NewArgRead(a, fa, answer.CType{}, "", addr, true).WrittenAs(fa))
		}
		r.Probes = append(r.Probes, p)
		r.Notes = append(r.Notes, notes...)
	}
	if len(r.Probes) == 0 {
		return nil, &NotFoundError{Want: spec.Point.SDTString(), Binary: exe, Markers: Names(ms)}
	}
	return r, nil
}

// sdtDefinition is one marker's uprobe, checked as the kernel would:
// its arguments are the note's, or those the spec picks.
func sdtDefinition(f *dwarfres.File, m sdt.Marker, exe string, spec *grammar.Spec) (tracefs.Event, answer.Attach, []answer.Note, error) {
	at := answer.Attach{Binary: exe, FileOffset: m.Offset, RefCtrOffset: m.RefCtr}
	def := (&answer.Probe{EventKind: tracefs.UProbe, Group: GroupPrefix + m.Provider, Name: m.Name, Attach: at}).Definition()
	syms := func(name string) (uint64, bool) {
		addr, ok := f.SymbolAddr(name)
		if !ok {
			return 0, false
		}
		off, err := f.UprobeDataOffset(m.Loc, addr)
		return off, err == nil
	}
	ops := Operands(m.Args)
	var notes []answer.Note
	if len(spec.Args) > 0 {
		args, err := sdtPicked(f, m, ops, syms, spec)
		if err != nil {
			return def, at, nil, err
		}
		def.Args = args
	} else {
		def.Args, notes = sdtNoteArgs(f, m, ops, syms)
	}
	if err := def.Validate(); err != nil {
		return def, at, nil, fmt.Errorf("%s: %w", MarkerName(m), err)
	}
	if err := (tracefs.Dialect{Machine: f.Machine}).Check(def); err != nil {
		return def, at, nil, fmt.Errorf("%s: %w", MarkerName(m), err)
	}
	return def, at, notes, nil
}

// sdtNoteArgs is every argument of marker m's note that the kernel can
// read, and a note for each one it can't.
func sdtNoteArgs(f *dwarfres.File, m sdt.Marker, ops []string, syms Symbols) ([]tracefs.Arg, []answer.Note) {
	var args []tracefs.Arg
	var notes []answer.Note
	for i, op := range ops {
		a, err := Arg(f.Machine, i, op, syms)
		if err != nil {
			notes = append(notes, answer.Note{Kind: answer.NoteArgSkipped, Text: fmt.Sprintf("%s: %v: left out of the definition", MarkerName(m), err)})
			continue
		}
		args = append(args, a)
	}
	return args, notes
}

// sdtPicked is the arguments the spec picks from marker m's operands: an
// operand that can't be read is an error here, since it was asked for. A
// string type reads the string the argument points to (+0(FETCH)): the
// kernel takes strings from memory only.
func sdtPicked(f *dwarfres.File, m sdt.Marker, ops []string, syms Symbols, spec *grammar.Spec) ([]tracefs.Arg, error) {
	var out []tracefs.Arg
	for _, a := range spec.Args {
		i, _ := grammar.SDTArgIndex(a.Expr)
		if i >= len(ops) {
			return nil, &grammar.SyntaxError{Spec: spec.Raw, Col: a.Col, Msg: fmt.Sprintf("%s has %s, not %s", MarkerName(m), sdtCount(len(ops)), a.Expr)}
		}
		arg, err := Arg(f.Machine, i, ops[i], syms)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", MarkerName(m), err)
		}
		if a.Name != "" {
			arg.Name = a.Name
		}
		if a.Type != "" {
			arg.Type = a.Type
		}
		if arg.Type == "string" || arg.Type == "ustring" {
			arg = tracefs.NewArg(arg.Name, withLoad(arg.Read, tracefs.Load{}), arg.Type)
		}
		out = append(out, arg)
	}
	return out, nil
}

// sdtCount says how many arguments a marker has.
func sdtCount(n int) string {
	if n == 1 {
		return "1 argument"
	}
	return strconv.Itoa(n) + " arguments"
}
