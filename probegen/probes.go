package probegen

import (
	"strconv"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/internal/ctype"
	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// cvalType is the C type of an argument as the member walk ends on it.
type cvalType struct {
	name    string
	pointer bool
}

// typeOfVal is cur's type for answer.CType; zero when cur has none.
func typeOfVal(cur ctype.Val) cvalType {
	if cur.Type == nil {
		return cvalType{}
	}
	n, _ := ctype.Name(cur.Type)
	tp, ok := ctype.Real(cur.Type)
	return cvalType{name: n, pointer: ok && tp.Kind() == ctype.Ptr}
}

// symbolAddr is a global's link-time address in t, for Location.
func symbolAddr(t *dwarfres.File) func(string) (uint64, bool) {
	return func(name string) (uint64, bool) {
		if t == nil {
			return 0, false
		}
		return t.SymbolAddr(name)
	}
}

// probesOf describes d's definitions as Probes, d.pts[i] the point of
// d.defs[i]. brief leaves out what costs a lookup per point: the ELF
// symbol covering the address, the source position and the arguments'
// read plans.
func probesOf(t *dwarfres.File, spec *grammar.Spec, exe string, d *resolved, brief bool) []answer.Probe {
	a, _ := arch.For(t.ELF.Machine)
	addr := symbolAddr(t)
	out := make([]answer.Probe, len(d.defs))
	for i, def := range d.defs {
		p := answer.Probe{Kind: kindOf(&spec.Point), EventKind: def.Kind, User: exe != "", Return: def.Return(), Machine: t.ELF.Machine, Group: def.Group, Name: def.Name}
		if i < len(d.pts) {
			pt := &d.pts[i]
			p.Attach, p.Addr, p.Function = pt.at, pt.addr, pt.realname
			if spec.Point.IsAddr {
				p.Addr, p.Function = spec.Point.Addr, ""
			}
			if !brief {
				placePoint(&p, t, pt)
			}
		}
		var slots []argSlot
		if i < len(d.slots) {
			slots = d.slots[i]
		}
		p.Args = argReads(a, def, slots, addr, !brief)
		out[i] = p
	}
	markCopies(out, d.pts)
	return out
}

// markCopies sets the probes' Copy and First, pts[i] being the point of
// probes[i] (nil scopes and missing points: a copy each).
func markCopies(probes []answer.Probe, pts []point) {
	type line struct {
		copy int
		file string
		line int
	}
	copies := map[uint64]int{} // scope DIE -> Copy
	lowest := map[line]uint64{}
	n := 0
	for i := range probes {
		p := &probes[i]
		if i >= len(pts) || pts[i].scope == nil {
			p.Copy, p.First = n, true
			n++
			continue
		}
		off := pts[i].scope.DIEOffset()
		c, ok := copies[off]
		if !ok {
			c = n
			copies[off] = c
			n++
		}
		p.Copy = c
		k := line{c, p.File, p.Line}
		if a, ok := lowest[k]; !ok || p.Addr < a {
			lowest[k] = p.Addr
		}
	}
	for i := range probes {
		p := &probes[i]
		if i < len(pts) && pts[i].scope != nil {
			p.First = lowest[line{p.Copy, p.File, p.Line}] == p.Addr
		}
	}
}

// placePoint fills in p's ELF symbol and source position from the symbol
// table and the scope found while resolving pt.
func placePoint(p *answer.Probe, t *dwarfres.File, pt *point) {
	if s, ok := t.Symbols().At(p.Addr); ok && p.Addr != 0 {
		p.ELFSymbol, p.ELFOffset = s.Name, p.Addr-s.Start
	}
	if pt.scope != nil {
		p.File, p.Line, _ = pt.scope.Source()
		if fn := pt.scope.Func(); fn != "" && fn != pt.realname {
			p.InlinedInto = fn
		}
	} else if p.ELFSymbol != "" && p.ELFOffset == 0 {
		// A point from the symbol table (a return probe, a function
		// without a DWARF match) at a function's entry: the source
		// position of an entry is the function's declaration.
		if fd, ok, err := t.FuncAt(p.Addr); err == nil && ok && fd.Line != 0 {
			p.File, p.Line = fd.File, fd.Line
		}
	}
}

// kindOf is the kind of point p names.
func kindOf(p *grammar.Point) answer.ProbeKind {
	switch {
	case p.SDT:
		return answer.ProbeSDT
	case p.Return || p.RetInsns:
		return answer.ProbeReturn
	case p.IsAddr:
		return answer.ProbeAddress
	case p.HasLine || p.Lazy != "":
		return answer.ProbeLine
	case p.HasOffset && p.Offset != 0:
		return answer.ProbeOffset
	}
	return answer.ProbeEntry
}

// argReads describes def's arguments; slots are their slots at this
// point (nil where the spec's arguments were not converted here: SDT,
// BTF).
func argReads(a *arch.Arch, def tracefs.Event, slots []argSlot, addr func(string) (uint64, bool), plan bool) []answer.ArgRead {
	var out []answer.ArgRead
	for j, fa := range def.Args {
		var ct cvalType
		absent := ""
		written := fa
		if j < len(slots) && len(slots) == len(def.Args) {
			ct, absent = slots[j].ctype, slots[j].absent
			// As the kernel names and types what the definition leaves
			// to it: the definition stays as written.
			if fa.Name == "" {
				fa.Name = slots[j].kname
			}
			if fa.Type == "" {
				fa.Type = slots[j].kfetch
			}
		}
		if fa.Name == "" {
			fa.Name = "arg" + strconv.Itoa(j+1) // as the kernel names it
		}
		c := answer.CType{Name: ct.name, Pointer: ct.pointer}
		out = append(out, answer.NewArgRead(a, fa, c, absent, addr, plan).WrittenAs(written))
	}
	return out
}
