package probegen

import (
	"errors"
	"sync"

	"github.com/dwprobe/dwprobe/dwarfres"
	kbtf "github.com/dwprobe/dwprobe/dwarfres/btf"
	"github.com/dwprobe/dwprobe/tracefs"
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
	// Brief leaves out Resolution.Points and Probes, which cost a line
	// table lookup per point: for callers that want definitions only.
	Brief bool
	// Workers is how many specs a batch (Stream, ResolveAll) resolves
	// at once against debuginfo; 0 for BatchWorkers.
	Workers int

	tpMu  sync.Mutex  // tracepoint probes resolve one at a time
	types *kbtf.Types // the kernel's BTF, for tracepoint probes
}

// Resolve parses and resolves one spec. The Spec is nil when it does not
// parse. Errors are ParseSpec's, Resolve's, SDTResolve's or
// TracepointDefinition's; NoDebug for a spec that needs debuginfo the
// binary lacks; ErrSDTNeedsBinary (with ErrNotSupported) for a marker
// asked of a kernel.
func (r *Resolver) Resolve(raw string) (*Spec, *Resolution, error) {
	if r.File == nil && r.BTF == nil {
		return nil, nil, ErrNoTarget
	}
	if IsTracepointSpec(raw) && r.Exe == "" && r.File != nil {
		return r.tracepoint(raw)
	}
	spec, err := ParseSpec(raw)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case spec.Point.SDT && r.Exe == "":
		return spec, nil, errors.Join(ErrNotSupported, ErrSDTNeedsBinary)
	case spec.Point.SDT:
		res, err := SDTResolve(r.File, spec, r.Exe, r.Options)
		return spec, res, err
	case r.NoDebug != nil:
		return spec, nil, r.NoDebug
	case r.BTF != nil:
		res, err := r.fromBTF(spec)
		return spec, res, err
	case r.Brief:
		r, err := definitions(r.File, spec, r.Exe, r.Options)
		if err != nil {
			return spec, nil, err
		}
		return spec, &Resolution{Defs: r.defs, Notes: r.notes}, nil
	}
	res, err := Resolve(r.File, spec, r.Exe, r.Options)
	return spec, res, err
}

// tracepoint resolves a t: spec against the BTF of the kernel and its
// dialect.
func (r *Resolver) tracepoint(raw string) (*Spec, *Resolution, error) {
	r.tpMu.Lock()
	defer r.tpMu.Unlock()
	spec := &Spec{Raw: raw}
	if r.types == nil {
		types, err := kbtf.FromFile(r.File)
		if err != nil {
			return spec, nil, err
		}
		r.types = types
	}
	ev, err := TracepointDefinition(r.types, KernelDialect(r.File), raw)
	if err != nil {
		return spec, nil, err
	}
	spec.Point = Point{Group: ev.Group, Event: ev.Name, Function: ev.Target}
	res := &Resolution{Defs: []tracefs.Event{ev}}
	if !r.Brief {
		// A tracepoint has no address: no ResolvedPoint, as before.
		p := Probe{Kind: ProbeTracepoint, Function: ev.Target, Event: ev}
		for _, fa := range ev.Args {
			a := argRead(nil, fa, cvalType{}, "", nil)
			a.Loc = Location{Kind: LocKernel, DWARFRegister: -1, Text: fa.Fetch}
			p.Args = append(p.Args, a)
		}
		res.Probes = []Probe{p}
	}
	return spec, res, nil
}

// fromBTF resolves spec from the kernel's BTF.
func (r *Resolver) fromBTF(spec *Spec) (*Resolution, error) {
	d, err := btfDefinitions(r.BTF, spec, r.Options)
	if err != nil {
		return nil, err
	}
	res := &Resolution{Defs: d.defs, Notes: d.notes}
	if r.Brief {
		return res, nil
	}
	a, _ := arch.For(r.BTF.Machine)
	noSyms := func(string) (uint64, bool) { return 0, false }
	for i, def := range d.defs {
		p := Probe{Kind: kindOf(&spec.Point), Module: r.BTF.Module, Event: def}
		_, p.Symbol, p.Offset, _ = tracefs.KprobeTarget(def.Target)
		p.Function = p.Symbol
		var slots []argSlot
		if i < len(d.slots) {
			slots = d.slots[i]
		}
		p.Args = argReads(a, def, slots, noSyms)
		res.Probes = append(res.Probes, p)
	}
	return res, nil
}
