package dwarfres

import (
	"debug/dwarf"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// globals is the job of finding a global variable of f by name in any
// unit, for a probe argument naming a global its own unit does not
// declare: through the index when f has one, else the units refScan
// finds.
type globals struct{ f *File }

// find finds a global variable named name in any unit, for a probe
// argument naming a global its own unit does not declare (perf 6.1 gives
// up there): the external unit-level definition with a location if there
// is one, else an external declaration (the symbol table then gives the
// address). Statics of other units are not candidates.
func (g globals) find(name string) (e Entry, ok bool, err error) {
	f := g.f
	defer elfobj.Guard(&err, f.Path)
	ix := f.index()
	e, ok, err = g.findIn(name, ix)
	if !ok && err == nil && ix != nil {
		// Not found through the index: confirmed by the scan (see
		// indexMissed).
		e, ok, err = g.findIn(name, nil)
	}
	return e, ok, err
}

// findIn is find over the units ix names, or with ix nil those that
// refScan finds.
func (g globals) findIn(name string, ix *Index) (e Entry, ok bool, err error) {
	f := g.f
	units, err := f.unitsList()
	if err != nil {
		return Entry{}, false, err
	}
	cands, scanned := unitScan{f}.refScan(units, name, ix)
	if !scanned {
		for i := range units {
			cands = append(cands, i)
		}
	}
	declUnit := -1
	for _, ui := range cands {
		u := &units[ui]
		if _, err := f.rootDIE(u); err != nil {
			return Entry{}, false, err
		}
		r := f.newReader(u)
		var d die
		if !r.next(&d) {
			continue
		}
		for r.next(&d) {
			if d.Depth < 1 {
				break
			}
			if d.Tag == dwarf.TagVariable && d.HasName() && f.rawName(u, &d) == name {
				if !d.Declaration {
					t, err := f.tree(u)
					if err != nil {
						return Entry{}, false, err
					}
					// A static of another unit is not visible from the
					// probed code, and its name may be anybody's.
					if i := t.idx(d.Off); i >= 0 && isExternal(t, i) {
						return Entry{t, i}, true, nil
					}
				} else if declUnit < 0 {
					declUnit = ui
				}
			}
			r.skipChildren(&d)
		}
	}
	if declUnit < 0 {
		return Entry{}, false, nil
	}
	t, err := f.tree(&units[declUnit])
	if err != nil {
		return Entry{}, false, err
	}
	for i := 1; i < len(t.dies); i++ {
		if t.dies[i].Depth == 1 && t.dies[i].Tag == dwarf.TagVariable && t.rawNameAt(i) == name {
			return Entry{t, i}, true, nil
		}
	}
	return Entry{}, false, nil
}

// isExternal tells whether DIE i of t has DW_AT_external: visible outside
// its unit.
func isExternal(t *cuTree, i int) bool {
	a, err := t.attrs(i)
	return err == nil && a.has(dwarf.AttrExternal)
}
