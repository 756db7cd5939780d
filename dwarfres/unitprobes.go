package dwarfres

// unitProbes makes the Probes of one decoded unit: the scope an address
// is probed in (perf's find_best_scope), the probe there, named by its
// symbol, and the copies of a function a line's points left out. The
// search (find.go) and -L --detail's points (linerange.go) ask it.
type unitProbes struct{ t *cuTree }

// probe is the probe at addr in scope sc of function sp, named by
// the symbol holding it (-D's SYMBOL+OFFS; on arm64 the symbol is 8 bytes
// before DW_AT_low_pc, two patchable NOPs), else from sp's entry.
func (up unitProbes) probe(sc, sp int, addr uint64) Probe {
	t := up.t
	p := Probe{Addr: addr, RealName: t.name(sc), Func: t.name(sp), Scope: newScope(t, sc, sp, addr)}
	syms := t.f.Symbols()
	if e, ok := t.entryPC(sp); ok {
		p.Symbol, p.Offset = p.Func, addr-e
	} else if sym, ok := syms.At(addr); ok {
		p.Symbol, p.Offset = sym.Name, addr-sym.Start
	}
	if sym, ok := syms.At(addr); ok {
		p.Symbol, p.Offset, p.InText = sym.Name, addr-sym.Start, true
	} else if sym, ok := t.f.FuncSymbolAt(addr); ok {
		p.Symbol, p.Offset = sym.Name, addr-sym.Start
	}
	return p
}

// bestScope is find_best_scope for the function named fn ("" for a
// source line): the scope in addr's chain declared in fname that is fn,
// else the one declared nearest before line, else the innermost.
func (up unitProbes) bestScope(fn, fname string, line int, addr uint64) int {
	return up.bestScopeBy(fname, line, addr, fn != "", func(n string) bool { return n == fn })
}

// bestScopeBy is bestScope with the function matched by match, when byName.
func (up unitProbes) bestScopeBy(fname string, line int, addr uint64, byName bool, match func(string) bool) int {
	t := up.t
	chain := t.scopesAt(addr)
	best, diff := -1, int(^uint(0)>>1)
	for _, fn := range chain {
		if fname != "" && t.declFile(fn) != fname {
			continue
		}
		if byName {
			if match(t.name(fn)) {
				return fn
			}
			continue
		}
		if l, _ := t.declLine(fn); l < line && diff > line-l {
			diff, best = line-l, fn
		}
	}
	if best < 0 && len(chain) > 0 {
		best = chain[len(chain)-1]
	}
	return best
}

// copiesWithout lists, as probes at their entries, the copies of a
// function that hold none of the addresses in pts.
func (up unitProbes) copiesWithout(copies []int, pts map[uint64]bool) []Probe {
	t := up.t
	var out []Probe
	for _, j := range copies {
		e, ok := t.dieEntryPC(j)
		if !ok || e == 0 {
			continue
		}
		has := false
		for a := range pts {
			if a == e || t.hasPC(j, a) {
				has = true
				break
			}
		}
		if sp := t.realFunc(e); !has && sp >= 0 {
			out = append(out, up.probe(j, sp, e))
		}
	}
	return out
}
