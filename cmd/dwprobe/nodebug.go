package main

import (
	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen"
)

// needsDebuginfo refuses -L and -V on a binary opened for its symbol
// table alone (no debuginfo found): source lines and variables come from
// debuginfo only. -D, -a and -F answer from the symbol table, as perf's.
func needsDebuginfo(o *options, t *dwarfres.File) error {
	switch {
	case o.line != "":
		return probegen.NeedsDebuginfo(t, "listing source lines (-L)")
	case len(o.vars) > 0:
		return probegen.NeedsDebuginfo(t, "listing variables (-V)")
	}
	return nil
}
