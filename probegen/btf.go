package probegen

import (
	"debug/elf"
	"errors"
	"fmt"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/dwprobe/dwprobe/dwarfres"
	kbtf "github.com/dwprobe/dwprobe/dwarfres/btf"
	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/internal/ctype"
	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// Resolution from BTF, for a kernel without DWARF: BTF knows each traced
// function's prototype and every type's layout, so a probe at a function's
// entry reads its parameters where the calling convention puts them
// (btfabi.go), with members and types as the DWARF path writes them
// (probegen/internal/ctype), and a return probe types $retval. What needs DWARF
// (lines, locals, offsets inside a function, inlined copies) is refused
// with what would answer it.

// ErrNeedsDWARF: the probe asks what BTF cannot answer (a source line, a
// local variable, an offset inside a function, an inlined function).
var ErrNeedsDWARF = errors.New("needs DWARF debuginfo")

// needDWARF is the advice every refusal for want of DWARF ends with.
const needDWARF = "install the kernel's debuginfo (the -dbg or -debuginfo package) or fetch it with debuginfod, and give -k VMLINUX"

// KernelSymbols is what the BTF path asks of the kernel's function
// symbols: the vmlinux's symbol table (btf.ELFSyms of dwarfres/btf), or
// the running kernel's kallsyms and ftrace list (its Kallsyms).
type KernelSymbols = kbtf.Symbols

// BTFTarget is a kernel known from BTF.
type BTFTarget struct {
	Types   *kbtf.Types
	Machine elf.Machine
	// Major, Minor is the kernel's version, for its dialect of fetch
	// types; 0, 0 leaves the types to the kernel.
	Major, Minor int
	// Syms is nil when no symbol table is known (a raw BTF blob
	// offline): targets are then written FUNC+0 unchecked.
	Syms KernelSymbols
	// Module names the kernel module Types and Syms describe (its split
	// BTF and its .ko's symbols); "" for the vmlinux. Targets are then
	// MODULE:FUNC+OFFS, as the DWARF path writes them.
	Module string
}

// BTFTargetOf is the target of k, a kernel or module opened from BTF
// (dwarfres/btf's Open). k stays its owner: the target reads k's files
// until k is closed.
func BTFTargetOf(k *kbtf.Kernel) *BTFTarget {
	return &BTFTarget{Types: k.Types, Machine: k.Machine, Major: k.Major, Minor: k.Minor, Syms: k.Syms, Module: k.Module}
}

// moduleAnchors is what a module's symbols add to KernelSymbols: the
// nearest unique symbol before an address, to name one copy of a name
// the module has several of (dwarfres/btf's ELFSyms has it).
type moduleAnchors interface {
	UniqueBefore(addr uint64) (dwarfres.Sym, bool)
}

func (k *BTFTarget) env(spec *grammar.Spec) *argEnv {
	d := tracefs.Dialect{Machine: k.Machine, From: "the kernel (version unknown)"}
	if k.Major != 0 {
		d = tracefs.KernelDialect(k.Machine, k.Major, k.Minor)
	}
	return &argEnv{m: k.Machine, spec: spec.Raw, pt: &spec.Point, ret: spec.Point.Return, dial: &d}
}

// btfFunc is one function of the probe: its prototype and its symbols.
type btfFunc struct {
	name  string
	proto *btf.FuncProto
	syms  []dwarfres.Sym // nil when k.Syms is
}

// BTFDefinitions is Definitions for a kernel known from BTF: FUNC and
// FUNC%return points (a glob matches BTF's functions), their parameters,
// members, casts, $params and a typed $retval. Errors wrap ErrNeedsDWARF
// for what only DWARF answers, dwarfres.ErrNotFound, ErrSyntax or
// grammar.ErrNotSupported.
func BTFDefinitions(k *BTFTarget, spec *grammar.Spec, o ResolveOptions) (defs []tracefs.Event, notes []string, err error) {
	r, err := btfDefinitions(k, spec, o)
	if err != nil {
		return nil, nil, err
	}
	return r.defs, answer.NoteTexts(r.notes), nil
}

// btfDefinitions is BTFDefinitions with each definition's argument slots.
func btfDefinitions(k *BTFTarget, spec *grammar.Spec, o ResolveOptions) (*resolved, error) {
	if _, ok := callConvFor(k.Machine); !ok {
		return nil, &PointError{Spec: spec.Raw, Err: fmt.Errorf("no calling convention table for %s: %w", arch.MachineName(k.Machine), grammar.ErrNotSupported)}
	}
	env := k.env(spec)
	if err := btfCheckArgs(env, spec.Args); err != nil {
		return nil, err
	}
	fns, err := k.resolve(&spec.Point, o)
	if err != nil {
		return nil, &PointError{Spec: spec.Raw, Err: err}
	}
	group := spec.Point.Group
	if group == "" {
		group = grammar.DefaultGroup
	}
	if err := tracefs.ValidateName(tracefs.GroupName, group); err != nil {
		return nil, &PointError{Spec: spec.Raw, Err: err}
	}
	namer := grammar.NewNamer(nil)
	var defs []tracefs.Event
	var slots [][]argSlot
	var where []string
	var pts []point
	for _, fn := range fns {
		sl, err := btfConvertArgs(env, fn, spec.Args)
		if err != nil {
			return nil, err
		}
		for _, at := range k.targets(env, fn) {
			name, err := namer.Peek(grammar.EventBase(&spec.Point, fn.name), true)
			if err != nil {
				return nil, &PointError{Spec: spec.Raw, Err: err}
			}
			def := newDef(false, spec.Point.Return, group, name, at)
			defs = append(defs, def)
			pts = append(pts, point{at: at, realname: fn.name, ret: spec.Point.Return})
			slots, where = append(slots, sl), append(where, def.Target)
		}
	}
	if err := env.finish(defs, slots, where, spec); err != nil {
		return nil, err
	}
	return &resolved{defs: defs, pts: pts, slots: slots, notes: env.notes}, nil
}

// resolve finds the functions of p in BTF, refusing what BTF cannot
// answer.
func (k *BTFTarget) resolve(p *grammar.Point, o ResolveOptions) ([]btfFunc, error) {
	switch {
	case p.IsAddr:
		return nil, fmt.Errorf("an absolute address %w: BTF has no addresses; %s", ErrNeedsDWARF, needDWARF)
	case p.Lazy != "":
		return nil, fmt.Errorf("a lazy pattern (;%s) %w: BTF has no source lines; %s", p.Lazy, ErrNeedsDWARF, needDWARF)
	case p.Function == "" || p.LineGiven() || p.File != "":
		return nil, fmt.Errorf("a source line or file %w: BTF has no source lines; %s", ErrNeedsDWARF, needDWARF)
	case p.HasOffset && p.Offset != 0:
		return nil, fmt.Errorf("an offset inside a function (+%d) %w: BTF describes the parameters at the entry only, where they are until the function moves them; %s", p.Offset, ErrNeedsDWARF, needDWARF)
	}
	name := lazymatch.NewNameMatcher(p.Function)
	names := []string{p.Function}
	if name.IsGlob() {
		names = nil
		for _, n := range k.Types.FuncNames() {
			if name.Match(n) {
				names = append(names, n)
			}
		}
	}
	var out []btfFunc
	for _, n := range names {
		fn, err := k.function(n)
		switch {
		case err != nil && !name.IsGlob():
			return nil, err
		case err == nil:
			out = append(out, fn)
		}
		// A glob takes the functions it can probe, as the DWARF path
		// takes those with an address.
	}
	switch {
	case len(out) == 0:
		return nil, fmt.Errorf("no function of BTF matches %s: %w", p.Function, dwarfres.ErrNotFound)
	case o.MaxProbes > 0 && len(out) > o.MaxProbes:
		return nil, &TooManyError{Function: p.Function, N: len(out), Max: o.MaxProbes}
	}
	return out, nil
}

// function finds name's prototype and symbols. Several FUNCs of one name
// (static functions of different files) must agree on their prototype:
// BTF does not say which symbol is which.
func (k *BTFTarget) function(name string) (btfFunc, error) {
	fns := k.Types.Funcs(name)
	var syms []dwarfres.Sym
	if k.Syms != nil {
		syms = k.Syms.FuncSyms(name)
	}
	if len(fns) == 0 {
		if len(syms) > 0 {
			return btfFunc{}, fmt.Errorf("%s is in the symbol table but not in BTF (no ftrace call site, or assembly): %w; %s", name, ErrNeedsDWARF, needDWARF)
		}
		return btfFunc{}, fmt.Errorf("function %s is neither in BTF nor in the symbol table (a function that exists only inlined has neither): %w; %s", name, dwarfres.ErrNotFound, needDWARF)
	}
	proto := fns[0].Type.(*btf.FuncProto)
	for _, f := range fns[1:] {
		if protoText(f.Type.(*btf.FuncProto)) != protoText(proto) {
			return btfFunc{}, fmt.Errorf("BTF has %d functions named %s with different prototypes and does not say which symbol is which: %w; %s", len(fns), name, ErrNeedsDWARF, needDWARF)
		}
	}
	if k.Syms != nil && len(syms) == 0 {
		return btfFunc{}, fmt.Errorf("%s is in BTF but not in the kernel's symbol table: %w", name, dwarfres.ErrNotFound)
	}
	return btfFunc{name: name, proto: proto, syms: syms}, nil
}

// protoText writes a prototype's types, to compare prototypes.
func protoText(fp *btf.FuncProto) string {
	var b strings.Builder
	b.WriteString(ctype.BTFName(fp.Return))
	for _, p := range fp.Params {
		b.WriteString(", " + ctype.BTFName(p.Type) + " " + p.Name)
	}
	return b.String()
}

// targets are the kprobe targets of fn: FUNC+0, or _text+OFFS for each
// copy when the name is not unique (as kernelTarget writes them), with a
// note for a notrace copy.
func (k *BTFTarget) targets(env *argEnv, fn btfFunc) []answer.Attach {
	if k.Syms == nil {
		at := answer.Attach{Symbol: fn.name, Offset: k.entrySkip(env, dwarfres.Sym{Name: fn.name}), Module: k.Module}
		env.note(answer.NoteSymbolsOnly, fmt.Sprintf("no symbol table: %s is written unchecked (give -k VMLINUX to check it is a unique, traceable symbol)", at.Target(tracefs.KProbe, false)))
		return []answer.Attach{at}
	}
	if k.Module != "" {
		return k.moduleTargets(env, fn)
	}
	text, hasText := k.Syms.Text()
	var out []answer.Attach
	for _, s := range fn.syms {
		skip := k.entrySkip(env, s)
		at := answer.Attach{Symbol: fn.name, Offset: skip}
		if len(fn.syms) > 1 && hasText {
			at = answer.Attach{Symbol: "_text", Offset: s.Start + skip - text}
			t := at.Place()
			env.note(answer.NoteNotUnique, fmt.Sprintf("%s is not unique in the kernel's symbol table (%d symbols); wrote %s so the kernel probes the copy at %#x (BTF's prototype is the same for all)", fn.name, len(fn.syms), t, s.Start))
		}
		t := at.Place()
		if s.Section == ".init.text" {
			env.note(answer.NoteInitText, fmt.Sprintf("%s at %#x is init text, which the kernel frees after boot: a running kernel refuses kprobes there (its core_kernel_text)", t, s.Start))
		}
		if nt, known := k.Syms.Notrace(s); known && nt {
			env.note(answer.NoteNotrace, fmt.Sprintf("%s is notrace (no ftrace call site) at %s (%#x): a kernel built without CONFIG_KPROBE_EVENTS_ON_NOTRACE (Debian's) refuses kprobe events in it with \"Failed to register probe event\"", fn.name, t, s.Start))
		}
		out = append(out, at)
		if len(fn.syms) > 1 && !hasText {
			break
		}
	}
	return out
}

// moduleTargets are the targets of fn in a module: MODULE:FUNC+0, or,
// for a name of several copies, each copy from the nearest unique symbol
// before it (as kernelTarget writes them: the kernel would take the
// first copy of the name).
func (k *BTFTarget) moduleTargets(env *argEnv, fn btfFunc) []answer.Attach {
	anchors, _ := k.Syms.(moduleAnchors)
	var out []answer.Attach
	for _, s := range fn.syms {
		skip := k.entrySkip(env, s)
		at := answer.Attach{Symbol: fn.name, Offset: skip, Module: k.Module}
		t := at.Target(tracefs.KProbe, false)
		if len(fn.syms) > 1 && anchors != nil {
			if u, ok := anchors.UniqueBefore(s.Start); ok {
				at = answer.Attach{Symbol: u.Name, Offset: s.Start + skip - u.Start, Module: k.Module}
				t = at.Target(tracefs.KProbe, false)
				env.note(answer.NoteNotUnique, fmt.Sprintf("%s is not unique in the module (%d symbols); wrote %s so the kernel probes this copy, not the copy it finds first (BTF's prototype is the same for all)", fn.name, len(fn.syms), t))
			}
		}
		if nt, known := k.Syms.Notrace(s); known && nt {
			env.note(answer.NoteNotrace, fmt.Sprintf("%s is notrace (no ftrace call site) at %s: a kernel built without CONFIG_KPROBE_EVENTS_ON_NOTRACE (Debian's) refuses kprobe events in it with \"Failed to register probe event\"", fn.name, t))
		}
		out = append(out, at)
	}
	return out
}

// entrySkip is how far past its symbol an entry probe goes: on arm64,
// past the two NOPs of the kernel's -fpatchable-function-entry=2 (the
// second is ftrace's call site, where 6.1's arm64, without
// KPROBES_ON_FTRACE, refuses kprobes) to where DWARF's entry
// (DW_AT_low_pc) is. From the code when it is at hand; else every
// traceable function (ftrace lists it) has them, and with nothing known
// they are assumed, as on arm64 distribution kernels with ftrace. A
// return probe stays at +0: the kernel takes kretprobes at a symbol's
// start only (arch_kprobe_on_func_entry).
func (k *BTFTarget) entrySkip(env *argEnv, s dwarfres.Sym) uint64 {
	a, ok := arch.For(k.Machine)
	if !ok || a.EntryNOPs == 0 || env.ret {
		return 0
	}
	size, nop := a.EntryNOPBytes(), a.NOPSize()
	if k.Syms == nil {
		return uint64(size)
	}
	if code, ok := k.Syms.Code(s, size); ok && len(code) == size {
		n := 0
		for n < a.EntryNOPs && a.IsNOP(code[n*nop:]) {
			n++
		}
		return uint64(n * nop)
	}
	if nt, known := k.Syms.Notrace(s); known && nt {
		return 0
	}
	return uint64(size)
}
