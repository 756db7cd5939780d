package probegen

import (
	"errors"
	"fmt"
	"strings"

	ebtf "github.com/cilium/ebpf/btf"

	"github.com/dwprobe/dwprobe/dwarfres"
	kbtf "github.com/dwprobe/dwprobe/dwarfres/btf"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/internal/ctype"
	"github.com/dwprobe/dwprobe/tracefs"
)

// Tracepoint probes (t: events, Linux 6.5 and later): dwprobe's spec
//
//	t:[[GROUP:]EVENT=]TRACEPOINT [[NAME=]ARG[:TYPE] ...]
//
// where ARG is a parameter of the tracepoint (its TP_PROTO) with members
// ("next->pid", "prev->se.vruntime"), or a fetcharg the kernel reads at a
// tracepoint ($argN, $comm, @SYM, +OFFS(…), \IMM). The "t:" prefix can't
// be a perf spec: there ':' follows a function and begins a line number.
// The kernel reads the parameters through BTF; dwprobe checks them there
// first, as the kernel finds them (the stub __probestub_TRACEPOINT).

// tracepointPrefix starts a tracepoint probe spec.
const tracepointPrefix = "t:"

// IsTracepointSpec reports whether spec is a t: spec.
func IsTracepointSpec(spec string) bool { return strings.HasPrefix(spec, tracepointPrefix) }

// ErrNoTracepoint is the error for a tracepoint the kernel's BTF lacks.
var ErrNoTracepoint = errors.New("no such tracepoint")

// KernelDialect is the dialect of the kernel f is (or of the modules of):
// its linux_banner's version, or its machine's registers alone.
func KernelDialect(f *dwarfres.File) tracefs.Dialect {
	return (&argEnv{f: f, m: f.ELF.Machine}).dialect()
}

// TracepointDefinition is the t: event of spec (IsTracepointSpec), its
// arguments checked against the tracepoint's prototype in b and the event
// against the kernel's dialect d.
func TracepointDefinition(b *kbtf.Types, d tracefs.Dialect, spec string) (tracefs.Event, error) {
	if err := grammar.CheckChars(spec, spec, 0, true); err != nil {
		return tracefs.Event{}, err
	}
	toks := grammar.SplitArgs(spec)
	head := strings.TrimPrefix(toks[0].S, tracepointPrefix)
	ev := tracefs.Event{Kind: tracefs.TProbe, Type: 't', Group: grammar.DefaultGroup, Target: head}
	if name, tp, ok := strings.Cut(head, "="); ok {
		ev.Target, ev.Name = tp, name
		if g, e, ok := strings.Cut(name, ":"); ok {
			ev.Group, ev.Name = g, e
		}
	}
	if ev.Name == "" {
		ev.Name = ev.Target
	}
	if err := d.Check(ev); err != nil { // t: itself, before its BTF
		return tracefs.Event{}, &PointError{Spec: spec, Err: err}
	}
	params, err := tracepointParams(b, ev.Target)
	if err != nil {
		return tracefs.Event{}, &grammar.SyntaxError{Spec: spec, Col: len(tracepointPrefix) + 1, Msg: err.Error()}
	}
	for _, t := range toks[1:] {
		a, err := grammar.ParseArg(spec, t.S, t.Off)
		if err != nil {
			return tracefs.Event{}, err
		}
		arg, err := tracepointArg(a, params)
		if err != nil {
			return tracefs.Event{}, &grammar.SyntaxError{Spec: spec, Col: a.Col, Msg: fmt.Sprintf("argument %q: %v", a.Raw, err)}
		}
		ev.Args = append(ev.Args, arg)
	}
	err = ev.Validate()
	if err == nil {
		err = d.Check(ev)
	}
	if err != nil {
		return tracefs.Event{}, &PointError{Spec: spec, Err: err}
	}
	return ev, nil
}

// tracepointParams are the parameters of tracepoint tp, its TP_PROTO,
// named as the kernel finds them (query_btf_context): in the BTF of the
// tracepoint's stub function __probestub_TP, whose first parameter (void
// *__data) it skips.
func tracepointParams(b *kbtf.Types, tp string) ([]ebtf.FuncParam, error) {
	fns := b.Funcs("__probestub_" + tp)
	if len(fns) == 0 {
		return nil, fmt.Errorf("%w %q in the kernel's BTF (no function __probestub_%s)", ErrNoTracepoint, tp, tp)
	}
	proto := fns[0].Type.(*ebtf.FuncProto) // Types indexes FUNCs with one
	if len(proto.Params) == 0 {
		return nil, fmt.Errorf("__probestub_%s has no parameters", tp)
	}
	return proto.Params[1:], nil
}

// tracepointArg is argument a of a t: spec: a parameter (and members)
// checked in params, or a fetcharg passed on as written.
func tracepointArg(a grammar.Arg, params []ebtf.FuncParam) (tracefs.Arg, error) {
	r := rawArg(a)
	if !isCVarName(a.Expr) {
		return r, nil
	}
	vname, fields, err := splitFields(a.Expr)
	if err != nil {
		return r, err
	}
	var names []string
	for _, p := range params {
		if p.Name == vname {
			if err := btfWalk(ctype.BTFVal(vname, p.Type), fields); err != nil {
				return r, err
			}
			if r.Name == "" {
				r.Name = argName(a, vname, fields)
			}
			return r, nil
		}
		names = append(names, p.Name)
	}
	return r, fmt.Errorf("the tracepoint has no parameter %s (it has %s)", vname, strings.Join(names, ", "))
}

// btfWalk checks the member chain fields from cur as the kernel's
// parse_btf_field does: "->" through a pointer, "." in a structure, no
// array index.
func btfWalk(cur ctype.Val, fields []field) error {
	for _, fl := range fields {
		if fl.isIdx {
			return fmt.Errorf("the kernel reads no array index in a BTF argument (%s[%d])", cur.Name, fl.index)
		}
		t, ok := ctype.Real(cur.Type)
		if !ok {
			return fmt.Errorf("%s has no type to find %s in", cur.Name, fl.name)
		}
		switch {
		case fl.arrow && t.Kind() != ctype.Ptr:
			return fmt.Errorf("%s is not a pointer: write %s.%s", cur.Name, cur.Name, fl.name)
		case !fl.arrow && t.Kind() == ctype.Ptr:
			return fmt.Errorf("%s is a pointer: write %s->%s", cur.Name, cur.Name, fl.name)
		case fl.arrow:
			if t, ok = ctype.Real(t.Elem()); !ok {
				return fmt.Errorf("%s points to no structure", cur.Name)
			}
		}
		m, ok := ctype.FindMember(t, fl.name)
		for ok && m.Name() != fl.name { // through unnamed members
			inner, _ := ctype.Real(m.Type())
			m, ok = ctype.FindMember(inner, fl.name)
		}
		if !ok {
			return fmt.Errorf("%s has no member %s", cur.Name, fl.name)
		}
		cur = ctype.Val{Name: fl.name, Type: m.Type()}
	}
	return nil
}
