package main

import (
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen"
)

// needsDebuginfo refuses -L and -V on a binary opened for its symbol
// table alone (no debuginfo found): source lines and variables come from
// debuginfo only. -D, -a and -F answer from the symbol table, as perf's.
func needsDebuginfo(o *options, tgt *probegen.Target) error {
	switch {
	case o.line != "":
		return tgt.NeedsDebuginfo("listing source lines (-L)")
	case len(o.vars) > 0:
		return tgt.NeedsDebuginfo("listing variables (-V)")
	}
	return nil
}

// debuginfoTried is the one wording of where debuginfo was looked for in
// vain, ending a message that says there is none (a program, a module,
// the running kernel, what needs debuginfo on a program probed from its
// symbols): "; tried A, B", or, with nothing to look by, " (stripped, and
// no build-id to find separate debuginfo by)".
func debuginfoTried(nf *dwarfres.NotFoundError) string {
	if len(nf.Tried) == 0 {
		return " (stripped, and no build-id to find separate debuginfo by)"
	}
	return "; tried " + strings.Join(nf.Tried, ", ")
}
