package probegen

import (
	"fmt"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/locate"
	"github.com/dwprobe/dwprobe/probegen/grammar"
)

// symbolsOnly reports whether t was opened for its symbol table alone: no
// debuginfo was found for it (dwarfres.Locator.OpenOrSymbols).
func symbolsOnly(t *dwarfres.File) bool { return t.MissingDebug() != nil }

// checkSymbolsOnly refuses, on a binary without debuginfo, the parts of a
// spec that only debuginfo answers: a source line or file, a lazy
// pattern, a variable or $vars/$params. What a symbol table answers goes
// through as perf 6.1 does: FUNC, FUNC+OFFS (instruction boundaries are
// still checked, from the code), FUNC%return, 0xADDR and raw fetchargs
// (%di, +8(%sp), $comm, $stackN, $retval).
func checkSymbolsOnly(t *dwarfres.File, spec *grammar.Spec) error {
	p := &spec.Point
	switch {
	case p.LineGiven():
		return NeedsDebuginfo(t, "a source line ("+p.String()+")")
	case p.File != "":
		return NeedsDebuginfo(t, "a source file ("+p.File+")")
	case p.Lazy != "":
		return NeedsDebuginfo(t, "a lazy pattern (;"+p.Lazy+")")
	}
	for _, a := range spec.Args {
		if isCVarName(a.Expr) || a.Expr == "$vars" || a.Expr == "$params" {
			return NeedsDebuginfo(t, fmt.Sprintf("argument %q (a variable; registers such as %%di and $comm are not)", a.Raw))
		}
	}
	return nil
}

// NeedsDebuginfo refuses what, asked of t, needs debuginfo t does not
// have, with where it was looked for; nil when t has debuginfo. The error
// is a *NeedsDebuginfoError.
func NeedsDebuginfo(t *dwarfres.File, what string) error {
	nf := t.MissingDebug()
	if nf == nil {
		return nil
	}
	return &NeedsDebuginfoError{Path: t.Path, What: what, Missing: nf}
}

// NeedsDebuginfoError refuses What, which needs debuginfo, on the binary
// at Path, opened for its symbol table alone. Missing says where
// debuginfo was looked for; the command words it into Tried, the end of
// the message (left out while empty). It wraps dwarfres.ErrNoDebugInfo.
type NeedsDebuginfoError struct {
	Path    string
	What    string
	Missing *locate.NotFoundError
	Tried   string
}

func (e *NeedsDebuginfoError) Error() string {
	return fmt.Sprintf("%s: %s needs debuginfo: %v%s", e.Path, e.What, dwarfres.ErrNoDebugInfo, e.Tried)
}

func (e *NeedsDebuginfoError) Unwrap() error { return dwarfres.ErrNoDebugInfo }

// symbolsOnlyNote says what a probe from the symbol table lacks.
func symbolsOnlyNote(t *dwarfres.File) string {
	return fmt.Sprintf("%s has no debuginfo: probed from its symbol table (debuginfo would add source lines, variables and their types by name, inlined copies of functions, and prologue skipping)", t.Path)
}
