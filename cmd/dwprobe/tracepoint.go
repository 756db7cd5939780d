package main

import (
	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/btf"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/tracefs"
)

// btfOf caches the BTF of the kernels t: specs were resolved against.
var btfOf = map[*dwarfres.File]*btf.Types{}

// resolveTracepoint resolves a t: spec (probegen.IsTracepointSpec)
// against the BTF of the kernel t and its dialect.
func resolveTracepoint(t *dwarfres.File, in specInput) resolved {
	r := resolved{in: in, spec: &probegen.Spec{Raw: in.raw}}
	types, ok := btfOf[t]
	if !ok {
		if types, r.err = btf.FromFile(t); r.err != nil {
			return r
		}
		btfOf[t] = types
	}
	ev, err := probegen.TracepointDefinition(types, probegen.KernelDialect(t), in.raw)
	if r.err = err; err == nil {
		r.spec.Point = probegen.Point{Group: ev.Group, Event: ev.Name, Function: ev.Target}
		r.defs = []tracefs.Event{ev}
	}
	return r
}
