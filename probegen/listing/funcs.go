package listing

import (
	"slices"
	"sort"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// DefaultFuncFilter is perf 6.1's filter for the function list.
const DefaultFuncFilter = "!_* & !*@plt"

// Functions is perf's function list (-F): every function symbol perf's map
// holds, sorted by name, each name once, that matches the filter rules (""
// for DefaultFuncFilter). perf prints a name as often as its map holds it
// (glibc's versioned aliases: aio_cancel twice), which says nothing more
// to someone choosing a function to probe. A module's list is every
// symbol it defines, as perf's. C++ and Rust names are listed demangled
// without parameters ("add<long>", "geo::Box::grow", "r::work"), as perf
// lists them and as specs name them.
func Functions(t *dwarfres.File, rules string) ([]string, error) {
	flt, err := funcFilter(rules)
	if err != nil {
		return nil, err
	}
	// Matched as they come: a vmlinux's 200,000 names are not kept
	// (EachTextName's are views: a match is copied).
	var names []string
	add := func(n string) {
		n, _ = dwarfres.Demangle(n) // perf lists C++ and Rust names demangled
		if flt.Match(n) {
			names = append(names, strings.Clone(n))
		}
	}
	if t.IsModule() {
		// perf maps a module file as one object of all its symbols:
		// data (ovl_aops) and local labels (.LC0) are listed too, not
		// arm64's mapping symbols ($x, $d).
		t.Symbols().EachName(func(n string) {
			if !arch.IsMappingSymbol(t.Machine, n) {
				add(n)
			}
		})
	} else {
		t.EachTextName(add)
	}
	return sortedOnce(names), nil
}

// funcFilter parses -F's rules, "" for DefaultFuncFilter.
func funcFilter(rules string) (*lazymatch.Filter, error) {
	if rules == "" {
		rules = DefaultFuncFilter
	}
	return lazymatch.ParseFilter(rules)
}

// FilterFuncs is -F's list of names: those rules ("" for
// DefaultFuncFilter) match, sorted, each once.
func FilterFuncs(names []string, rules string) ([]string, error) {
	flt, err := funcFilter(rules)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if flt.Match(n) {
			out = append(out, n)
		}
	}
	return sortedOnce(out), nil
}

// sortedOnce sorts names and drops repeats.
func sortedOnce(names []string) []string {
	sort.Strings(names)
	return slices.Compact(names)
}
