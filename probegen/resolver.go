package probegen

import (
	"errors"
	"strconv"
	"sync"

	"github.com/dwprobe/dwprobe/dwarfres"
	kbtf "github.com/dwprobe/dwprobe/dwarfres/btf"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/sdtprobe"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// ErrSDTNeedsBinary: an SDT marker was asked of a kernel; markers are read
// from a user binary's notes.
var ErrSDTNeedsBinary = errors.New("SDT markers are read from a user binary")

// ErrNoTarget: a Resolver with neither a File nor a BTF target.
var ErrNoTarget = errors.New("no target to resolve against")

// Resolver resolves probe specs against one target as dwprobe -D does: a
// tracepoint probe (t:…) from the kernel's BTF, an SDT marker from the
// binary's notes, anything else from its debuginfo. dwprobe's command
// line resolves every spec through one, as a library caller does
// (Target.Resolver). Resolve is safe for concurrent use against
// debuginfo (File): Stream and ResolveAll, which dwprobe's -D, -a and
// spec files run through, resolve specs on every core (BatchWorkers).
type Resolver struct {
	// File is the target.
	File *dwarfres.File
	// Exe is the probed binary's path as its uprobes name it (absolute,
	// as the kernel takes it); "" for a kernel or module.
	Exe string
	// NoDebug is why a user binary has no debuginfo when its SDT notes
	// answer (Target.Why for SourceSDT): every other spec fails with it.
	NoDebug error
	// Options are the options every spec is resolved with.
	Options ResolveOptions
	// BTF, when set, answers instead of File's DWARF (a kernel known
	// from BTF: BTFDefinitions).
	BTF *BTFTarget
	// Brief leaves out of each Probe what costs a lookup per point (its
	// ELF symbol, its source position, its arguments' read plans): for
	// callers that want definitions only.
	Brief bool
	// Workers is how many specs a batch (Stream, ResolveAll) resolves
	// at once against debuginfo; 0 for BatchWorkers.
	Workers int

	tpMu  sync.Mutex  // tracepoint probes resolve one at a time
	types *kbtf.Types // the kernel's BTF, for tracepoint probes
}

// Resolve parses and resolves one spec. The Spec is nil when it does not
// parse. Errors are ParseSpec's, Resolve's, sdtprobe.Resolve's or
// TracepointDefinition's; NoDebug for a spec that needs debuginfo the
// binary lacks; ErrSDTNeedsBinary (with grammar.ErrNotSupported) for a marker
// asked of a kernel.
func (r *Resolver) Resolve(raw string) (*grammar.Spec, *answer.Resolution, error) {
	if r.File == nil && r.BTF == nil {
		return nil, nil, ErrNoTarget
	}
	if IsTracepointSpec(raw) && r.Exe == "" && r.File != nil {
		return r.tracepoint(raw)
	}
	spec, err := grammar.ParseSpec(raw)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case spec.Point.SDT && r.Exe == "":
		return spec, nil, errors.Join(grammar.ErrNotSupported, ErrSDTNeedsBinary)
	case spec.Point.SDT:
		res, err := r.fromSDT(spec)
		return spec, res, err
	case r.NoDebug != nil:
		return spec, nil, r.NoDebug
	case r.BTF != nil:
		res, err := r.fromBTF(spec)
		return spec, res, err
	}
	res, err := resolveProbes(r.File, spec, r.Exe, r.Options, r.Brief)
	return spec, res, err
}

// tracepoint resolves a t: spec against the BTF of the kernel and its
// dialect.
func (r *Resolver) tracepoint(raw string) (*grammar.Spec, *answer.Resolution, error) {
	r.tpMu.Lock()
	defer r.tpMu.Unlock()
	spec := &grammar.Spec{Raw: raw}
	if r.types == nil {
		types, err := kbtf.FromFile(kbtf.ELF{Object: r.File.Object, Image: r.File.Image})
		if err != nil {
			return spec, nil, err
		}
		r.types = types
	}
	ev, err := TracepointDefinition(r.types, KernelDialect(r.File), raw)
	if err != nil {
		return spec, nil, err
	}
	spec.Point = grammar.Point{Group: ev.Group, Event: ev.Name, Function: ev.Target}
	// A tracepoint has no address.
	p := answer.Probe{Kind: answer.ProbeTracepoint, EventKind: ev.Kind, Machine: r.File.ELF.Machine, Group: ev.Group, Name: ev.Name, Attach: answer.Attach{Symbol: ev.Target}, Function: ev.Target}
	for j, fa := range ev.Args {
		written := fa
		if fa.Name == "" {
			fa.Name = "arg" + strconv.Itoa(j+1) // as the kernel names it
		}
		a := answer.NewArgRead(nil, fa, answer.CType{}, "", nil, false).WrittenAs(written)
		if !r.Brief {
			a.Loc = answer.Location{Kind: answer.LocKernel, DWARFRegister: -1, Text: fa.Fetch}
		}
		p.Args = append(p.Args, a)
	}
	return spec, &answer.Resolution{Spec: spec, Probes: []answer.Probe{p}}, nil
}

// fromSDT resolves spec at the binary's SDT markers (probegen/sdtprobe),
// a probe per marker matched, held to ResolveOptions.MaxProbes.
func (r *Resolver) fromSDT(spec *grammar.Spec) (*answer.Resolution, error) {
	res, err := sdtprobe.Resolve(r.File, spec, r.Exe)
	if err == nil && r.Options.MaxProbes > 0 && len(res.Probes) > r.Options.MaxProbes {
		return nil, &TooManyError{Function: spec.Point.SDTString(), N: len(res.Probes), Max: r.Options.MaxProbes}
	}
	return res, err
}

// fromBTF resolves spec from the kernel's BTF.
func (r *Resolver) fromBTF(spec *grammar.Spec) (*answer.Resolution, error) {
	d, err := btfDefinitions(r.BTF, spec, r.Options)
	if err != nil {
		return nil, err
	}
	res := &answer.Resolution{Spec: spec, Notes: d.notes}
	a, _ := arch.For(r.BTF.Machine)
	noSyms := func(string) (uint64, bool) { return 0, false }
	for i, def := range d.defs {
		pt := d.pts[i]
		p := answer.Probe{Kind: kindOf(&spec.Point), EventKind: def.Kind, Return: def.Return(), Machine: r.BTF.Machine, Group: def.Group, Name: def.Name, Attach: pt.at, Function: pt.realname}
		var slots []argSlot
		if i < len(d.slots) {
			slots = d.slots[i]
		}
		p.Args = argReads(a, def, slots, noSyms, !r.Brief)
		res.Probes = append(res.Probes, p)
	}
	return res, nil
}
