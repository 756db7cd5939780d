package probegen

import (
	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/tracefs"
)

// ResolvedPoint is where one definition of a probe command lies, for a
// machine-readable report.
type ResolvedPoint struct {
	Addr   uint64 // link-time address (the address given, for 0xADDR)
	Symbol string // ELF symbol containing Addr; "" if none does
	Offset uint64 // Addr minus Symbol's start
	// File and Line are the source position of Addr; "" and 0 when the
	// debuginfo does not say (a symbol-table probe, an absolute address).
	File string
	Line int
	// Function is the function probed: the inlined function at an
	// inline site. InlinedInto is the out-of-line function that holds
	// the inline site, "" when Function is not inlined there.
	Function    string
	InlinedInto string
}

// Resolution is a probe command resolved: Definitions' answer, with
// Points[i] the point of Defs[i].
type Resolution struct {
	Defs   []tracefs.Event
	Points []ResolvedPoint
	Notes  []Note
	// Probes are the points again, Probes[i] for Defs[i], with what a
	// program attaching there itself needs: the library's answer.
	Probes []Probe
}

// Resolve is Definitions, also saying where each definition lies.
func Resolve(t *dwarfres.File, spec *Spec, exe string, o ResolveOptions) (*Resolution, error) {
	d, err := definitions(t, spec, exe, o)
	if err != nil {
		return nil, err
	}
	r := &Resolution{Defs: d.defs, Notes: d.notes}
	for _, p := range d.pts {
		r.Points = append(r.Points, resolvedPoint(t, spec, p))
	}
	r.Probes = probesOf(t, spec, exe, d, r.Points)
	return r, nil
}

// resolvedPoint describes p from the symbol table and the scope found
// while resolving it.
func resolvedPoint(t *dwarfres.File, spec *Spec, p point) ResolvedPoint {
	rp := ResolvedPoint{Addr: p.addr, Function: p.realname}
	if spec.Point.IsAddr {
		rp.Addr, rp.Function = spec.Point.Addr, ""
	}
	if s, ok := t.Symbols().At(rp.Addr); ok && rp.Addr != 0 {
		rp.Symbol, rp.Offset = s.Name, rp.Addr-s.Start
	}
	if p.scope != nil {
		rp.File, rp.Line, _ = p.scope.Source()
		if fn := p.scope.Func(); fn != "" && fn != p.realname {
			rp.InlinedInto = fn
		}
	} else if rp.Symbol != "" && rp.Offset == 0 {
		// A point from the symbol table (a return probe, a function
		// without a DWARF match) at a function's entry: the source
		// position of an entry is the function's declaration.
		if fd, ok, err := t.FuncAt(rp.Addr); err == nil && ok && fd.Line != 0 {
			rp.File, rp.Line = fd.File, fd.Line
		}
	}
	return rp
}
