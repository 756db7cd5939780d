package probegen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ianlancetaylor/demangle"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
)

// overloadNote lists the overloads a C++ function name resolved to when
// it names several functions (each is probed), with the mangled names
// that pick one: "over is overloaded: probing all 2 of over(int)
// (_Z4overi), over(double) (_Z4overd); name one by its mangled name to
// probe it alone". "" when the name is a glob or picks one function.
func overloadNote(p *grammar.Point, probes []dwarfres.Probe) string {
	if p.Function == "" || lazymatch.NewNameMatcher(p.Function).IsGlob() {
		return ""
	}
	var syms []string
	for _, pr := range probes {
		if !strings.HasPrefix(pr.Symbol, "_Z") || slices.Contains(syms, pr.Symbol) {
			continue
		}
		syms = append(syms, pr.Symbol)
	}
	if len(syms) < 2 {
		return ""
	}
	var each []string
	for _, s := range syms {
		full, err := demangle.ToString(s)
		if err != nil {
			full = s
		}
		each = append(each, fmt.Sprintf("%s (%s)", full, s))
	}
	return fmt.Sprintf("%s is overloaded: probing all %d of %s; name one by its mangled name to probe it alone", p.Function, len(syms), strings.Join(each, ", "))
}

// addNote gives note n to the first of pts without one (a point carries
// one note), else appends it to the last's.
func addNote(pts []point, n string) {
	for i := range pts {
		if pts[i].note == "" {
			pts[i].note, pts[i].noteKind = n, answer.NoteOverload
			return
		}
	}
	if len(pts) > 0 {
		pts[len(pts)-1].note += "; " + n
	}
}
