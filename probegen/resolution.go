package probegen

import (
	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
)

// Resolution is a probe command resolved: its spec, its probes (one per
// definition dwprobe writes, each rendered by Probe.Definition) and the
// notes on them.
type Resolution struct {
	Spec   *grammar.Spec
	Probes []Probe
	Notes  []Note
}

// Resolve is Definitions, also saying where each definition lies and how
// each argument is read there.
func Resolve(t *dwarfres.File, spec *grammar.Spec, exe string, o ResolveOptions) (*Resolution, error) {
	return resolveProbes(t, spec, exe, o, false)
}

// resolveProbes is Resolve; brief leaves out what probesOf's brief does.
func resolveProbes(t *dwarfres.File, spec *grammar.Spec, exe string, o ResolveOptions, brief bool) (*Resolution, error) {
	d, err := definitions(t, spec, exe, o)
	if err != nil {
		return nil, err
	}
	return &Resolution{Spec: spec, Probes: probesOf(t, spec, exe, d, brief), Notes: d.notes}, nil
}

// Definitions are the definitions of r's probes, in order.
func (r *Resolution) Definitions() []tracefs.Event {
	out := make([]tracefs.Event, len(r.Probes))
	for i := range r.Probes {
		out[i] = r.Probes[i].Definition()
	}
	return out
}
