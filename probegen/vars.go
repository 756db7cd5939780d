package probegen

import (
	"fmt"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/listing"
)

// AvailableVars is perf's -V: for every address the point resolves to, the
// variables a probe there can read (probegen/listing's VarList).
func AvailableVars(t *dwarfres.File, spec *grammar.Spec, o ResolveOptions, vo listing.VarOptions) ([]listing.VarList, error) {
	p := spec.Point
	if p.IsAddr {
		return nil, &PointError{Spec: spec.Raw, Err: fmt.Errorf("an absolute address has no variables to list: %w", grammar.ErrNotSupported)}
	}
	vars, err := listing.NewVars(vo)
	if err != nil {
		return nil, err
	}
	// Variables are listed at the entry of a %return point, as perf does.
	p.Return = false
	o.anyOffset = true
	pts, err := resolve(&o, t, &p)
	if err != nil {
		return nil, &PointError{Spec: spec.Raw, Err: err}
	}
	var out []listing.VarList
	for _, pt := range pts {
		if pt.scope == nil {
			// Known to the symbol table only (crt's _start, assembler):
			// no unit's scope to list. ErrNotFound classes it; the
			// message is whole without the sentinel's words.
			return nil, &dwarfres.ProbeError{Err: dwarfres.ErrNotFound, Msg: fmt.Sprintf("failed to find the address of %s: no debuginfo covers it", listing.PerfPoint(&spec.Point))}
		}
		out = append(out, vars.At(pt.scope))
	}
	return out, nil
}
