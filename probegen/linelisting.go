package probegen

import (
	"fmt"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/listing"
	"github.com/dwprobe/dwprobe/probegen/sources"
)

// ListLines resolves a line range (grammar.ParseLineRange's syntax)
// against t and lists its lines (probegen/listing's List) from the
// source src finds (nil: where the debuginfo names it). A source that is
// not found is no error: the listing then holds the probeable line
// numbers only.
func ListLines(t *dwarfres.File, spec string, src *sources.Sources) (*listing.Listing, error) {
	r, err := lineRange(t, spec, false)
	if err != nil {
		return nil, err
	}
	return listing.List(r, src, nil, nil)
}

// ListLineVars is ListLines with each probeable line's points and the
// variables readable at each (as -V lists them), found in one walk of
// the range's units rather than one -V per line. A kernel's point is
// written as -D writes its probe: _text+OFFS for a name the kernel has
// several of (two copies of lru_gen_del_folio.constprop.0 are not
// alike).
func ListLineVars(t *dwarfres.File, spec string, src *sources.Sources, vo listing.VarOptions) (*listing.Listing, error) {
	vars, err := listing.NewVars(vo)
	if err != nil {
		return nil, err
	}
	r, err := lineRange(t, spec, true)
	if err != nil {
		return nil, err
	}
	var place func(dwarfres.Probe) string
	if t.IsKernel() {
		place = func(p dwarfres.Probe) string {
			return kernelTarget(t, p.Symbol, p.Offset, p.Addr, p.RealName, p.InText).at.Place()
		}
	}
	return listing.List(r, src, vars, place)
}

// lineRange finds the line range spec names in t, each line's points too
// when points is set; a function DWARF does not know by the name asked
// (a symbol alias: malloc) is found as the function it is, as -D probes
// it.
func lineRange(t *dwarfres.File, spec string, points bool) (listing.Range, error) {
	lq, err := grammar.ParseLineRange(spec)
	if err != nil {
		return listing.Range{}, err
	}
	shown := lq.Function // the name the header shows
	lr, err := t.FindLineRange(dwarfres.LineQuery{Function: lq.Function, File: lq.File, Start: lq.Start, End: lq.End, Points: points})
	if err != nil {
		return listing.Range{}, err
	}
	if lr == nil && lq.Function != "" {
		// A symbol alias (malloc): list the function it is, as -D probes it.
		if alt, ok, err := symbolAlias(t, lq.Function); err == nil && ok && alt.Offset == 0 && alt.Line == 0 {
			shown = aliasShown(lq.Function, alt.Function)
			lq.Function = alt.Function
			if lr, err = t.FindLineRange(dwarfres.LineQuery{Function: lq.Function, File: lq.File, Start: lq.Start, End: lq.End, Points: points}); err != nil {
				return listing.Range{}, err
			}
		}
	}
	if lr == nil {
		return listing.Range{}, &dwarfres.ProbeError{Err: dwarfres.ErrNotFound, Msg: fmt.Sprintf("line range %q: no probeable source line found", spec)}
	}
	return listing.Range{Function: shown, Lines: lr}, nil
}

// aliasShown is the name a listing of the function DWARF calls fn, found
// through the symbol asked, shows: the name asked, as perf shows it, for
// a Rust or C++ function whose symbol is not its qualified name (the
// kernel's rust_begin_unwind is kernel::panic); fn for a C alias (glibc's
// malloc is __libc_malloc, which perf does not find).
func aliasShown(asked, fn string) string {
	if dwarfres.IsScoped(fn) {
		return asked
	}
	return fn
}
