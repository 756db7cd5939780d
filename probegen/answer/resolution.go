package answer

import (
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

// Definitions are the definitions of r's probes, in order.
func (r *Resolution) Definitions() []tracefs.Event {
	out := make([]tracefs.Event, len(r.Probes))
	for i := range r.Probes {
		out[i] = r.Probes[i].Definition()
	}
	return out
}
