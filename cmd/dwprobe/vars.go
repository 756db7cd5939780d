package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/listing"
)

// runVars implements -V in perf's format. Variables in scope that a probe
// cannot read there, which perf leaves out silently or lists from their
// first location operation alone, are named on stderr (stdout stays
// byte-identical to perf's).
//
// Specs are read as they come. A signal ends the run with what was
// printed for the specs before it, and nothing for the spec at hand.
func runVars(ctx context.Context, o *options, tgt *probegen.Target, stdout, stderr io.Writer) error {
	if err := checkSpecFiles(ctx, o.vars); err != nil {
		return err
	}
	ro := tgt.Options(resolveOptions(o))
	vo := listing.VarOptions{Externs: o.externs, Ranges: o.rangeOpt, Filter: o.filter}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	run := newSpecRun(o, o.vars, stderr)
	stopped := func() error {
		if run.total == 0 {
			return ctx.Err()
		}
		return fmt.Errorf("%w after %d specs (%d of them failed); the output above is theirs", errSpecsInterrupted, run.total, run.failed)
	}
	err := eachSpec(ctx, o.vars, func(in specInput) error {
		if ctx.Err() != nil {
			return stopped()
		}
		spec, lists, err := varsAt(tgt, in.raw, ro, vo)
		if ctx.Err() != nil {
			// The signal came during the listing: it may be cut short.
			return stopped()
		}
		run.total++
		return varsOf(o, w, stderr, run, in, spec, lists, err)
	})
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, errSpecsInterrupted) {
			return stopped() // stdin's read, cut by the signal
		}
		return err
	}
	return run.done()
}

// varsOf prints one -V spec's variables (its JSON object with --json), or
// records its failure in run.
func varsOf(o *options, w, stderr io.Writer, run *specRun, in specInput, spec *grammar.Spec, lists []listing.VarList, err error) error {
	if o.json {
		if jerr := writeJSON(w, varsJSON(in, lists, err)); jerr != nil {
			return jerr
		}
	}
	if err != nil {
		return run.fail(in, err)
	}
	if o.json {
		return nil
	}
	fmt.Fprintf(w, "Available variables at %s\n", listing.PerfPoint(&spec.Point))
	for _, vl := range lists {
		printVars(w, vl)
		if !o.quiet {
			leftOut(stderr, vl)
		}
	}
	return nil
}

// varsAt parses a -V spec and lists the variables at each of its points.
func varsAt(tgt *probegen.Target, raw string, ro probegen.ResolveOptions, vo listing.VarOptions) (*grammar.Spec, []listing.VarList, error) {
	spec, err := grammar.ParseSpec(raw)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case len(spec.Args) > 0:
		return nil, nil, &grammar.SyntaxError{Spec: raw, Col: spec.Args[0].Col, Msg: "-V takes a probe point, not arguments"}
	case spec.Point.IsAddr:
		return nil, nil, fmt.Errorf("-V %q: an absolute address has no variables to list: %w", raw, grammar.ErrNotSupported)
	case spec.Point.SDT:
		return nil, nil, fmt.Errorf("-V %q: an SDT marker has no variables, its note's arguments (-D shows them): %w", raw, grammar.ErrNotSupported)
	}
	lists, err := tgt.AvailableVars(spec, ro, vo)
	return spec, lists, err
}

// printVars prints one address's variables as perf does.
func printVars(w io.Writer, vl listing.VarList) {
	fmt.Fprintf(w, "\t@<%s>\n", vl.Point)
	for _, l := range vl.Lines {
		fmt.Fprintf(w, "\t\t%s\n", l)
	}
	if len(vl.Lines) == 0 {
		fmt.Fprintf(w, "\t\t(No matched variables)\n")
	}
}

// leftOut names on stderr the variables in scope that -V does not list.
func leftOut(stderr io.Writer, vl listing.VarList) {
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
