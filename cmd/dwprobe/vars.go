package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/probegen"
)

// defaultVarFilter is perf 6.1's default --filter for -V.
const defaultVarFilter = "!__k???tab_* & !__crc_*"

// runVars implements -V in perf's format. Variables in scope without a
// location at an address, which perf leaves out silently, are named on
// stderr (stdout stays byte-identical to perf's).
func runVars(o *options, t *dwarfres.File, stdout, stderr io.Writer) error {
	rules := defaultVarFilter
	if o.filter != "" {
		rules = o.filter
	}
	flt, err := lazymatch.ParseFilter(rules)
	if err != nil {
		return err
	}
	src, err := newSources(o)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	for _, raw := range o.vars {
		spec, err := probegen.ParseSpec(raw)
		if err != nil {
			return err
		}
		if len(spec.Args) > 0 {
			return fmt.Errorf("-V %q: --vars takes a probe point, not arguments (column %d)", raw, spec.Args[0].Col)
		}
		ro := probegen.ResolveOptions{NoInlines: o.noInlines, MaxProbes: o.maxProbes, LazyLines: src.lazyLines}
		if o.exec != "" {
			ro.User = true
		}
		lists, err := probegen.AvailableVars(t, spec, ro, probegen.VarOptions{Externs: o.externs, Ranges: o.rangeOpt, Filter: flt.Match})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "Available variables at %s\n", probegen.PerfPoint(&spec.Point))
		for _, vl := range lists {
			fmt.Fprintf(w, "\t@<%s>\n", vl.Point)
			for _, l := range vl.Lines {
				fmt.Fprintf(w, "\t\t%s\n", l)
			}
			if len(vl.Lines) == 0 {
				fmt.Fprintf(w, "\t\t(No matched variables)\n")
			}
			if !o.quiet {
				leftOut(stderr, vl)
			}
		}
	}
	return nil
}

// leftOut names on stderr the variables in scope that -V does not list.
func leftOut(stderr io.Writer, vl probegen.VarList) {
	if len(vl.Missing) > 0 {
		fmt.Fprintf(stderr, "note: at %s, in scope but without a location (optimized out): %s\n", vl.Point, strings.Join(vl.Missing, ", "))
	}
	if len(vl.Unreadable) > 0 {
		var why []string
		for _, u := range vl.Unreadable {
			why = append(why, u.Name+" ("+u.Err.Error()+")")
		}
		fmt.Fprintf(stderr, "note: at %s, in scope but not readable by a probe: %s\n", vl.Point, strings.Join(why, ", "))
	}
}
