package main

import (
	"context"
	"fmt"
	"io"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/tracefs"
)

// runDefinitions implements -D: resolve each spec and print its lines.
// In a keep-going run (a spec file, --json) the definitions of the specs
// that resolved are printed even when others failed.
func runDefinitions(ctx context.Context, o *options, t *dwarfres.File, stdout, stderr io.Writer) error {
	rs, err := resolveAll(ctx, o, t, o.defs, stderr)
	return printDefinitions(o, rs, err, stdout)
}

// printDefinitions prints the definitions of rs (as JSON with --json);
// err is the resolution's error, returned after.
func printDefinitions(o *options, rs []resolved, err error, stdout io.Writer) error {
	if o.json {
		if werr := writeSpecsJSON(stdout, "definition", false, rs); werr != nil {
			return werr
		}
		return err
	}
	for _, r := range rs {
		for _, d := range r.defs {
			fmt.Fprintln(stdout, d)
		}
	}
	return err
}

// resolved is one probe command and its definitions, or why it failed.
type resolved struct {
	in     specInput
	spec   *probegen.Spec
	defs   []tracefs.Event
	points []probegen.ResolvedPoint // points[i] is where defs[i] lies
	notes  []string
	err    error
}

// resolveAll resolves every spec of args (a spec or an @FILE of specs) as
// -D does, printing notes. Without a spec file or --json, the first
// failure is returned alone, as perf does; with them, every spec is
// tried, failures are reported as they come, and the specs that resolved
// are returned with an error classed as the first failure. Callers that
// write to tracefs write nothing if err is not nil.
func resolveAll(ctx context.Context, o *options, t *dwarfres.File, args []string, stderr io.Writer) ([]resolved, error) {
	ins, err := expandSpecs(args)
	if err != nil {
		return nil, err
	}
	exe, err := execPath(o)
	if err != nil {
		return nil, err
	}
	src, err := newSources(o, t)
	if err != nil {
		return nil, err
	}
	ro := probegen.ResolveOptions{NoInlines: o.noInlines, Nearest: o.nearest, MaxProbes: o.maxProbes, LazyLines: src.LazyLines, DeclText: src.DeclText, LineText: src.LineText, FProbe: o.fprobe}
	n := 0
	return resolveEach(ctx, o, args, ins, stderr, func(in specInput) resolved {
		if n++; n%releaseEvery == 0 {
			t.ReleasePages()
		}
		return resolveSpec(o, t, in, exe, ro)
	})
}

// releaseEvery is how many specs a run resolves between giving back the
// pages of the debuginfo they read through the mapping: the 663 specs of
// the conformance suite otherwise peak at 90 MB of them (of 215 MB RSS).
const releaseEvery = 32

// resolveEach resolves the specs ins (expanded from args) with resolve,
// as resolveAll describes.
func resolveEach(ctx context.Context, o *options, args []string, ins []specInput, stderr io.Writer, resolve func(specInput) resolved) ([]resolved, error) {
	run := newSpecRun(o, args, stderr)
	var out []resolved
	for _, in := range ins {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		run.total++
		r := resolve(in)
		if err := ctx.Err(); err != nil {
			return nil, err // a signal during the resolution: print nothing
		}
		if r.err != nil {
			if err := run.fail(in, r.err); err != nil {
				return nil, err
			}
		} else {
			printNotes(o, stderr, r.notes)
		}
		out = append(out, r)
	}
	return out, run.done()
}

// resolveOne parses and resolves one spec; withPoints also says where
// each definition lies (for --json: a line-table lookup per point that
// the other outputs do not need).
func resolveOne(t *dwarfres.File, in specInput, exe string, ro probegen.ResolveOptions, withPoints bool) resolved {
	r := resolved{in: in}
	if r.spec, r.err = probegen.ParseSpec(in.raw); r.err != nil {
		return r
	}
	if !withPoints {
		r.defs, r.notes, r.err = probegen.Definitions(t, r.spec, exe, ro)
		return r
	}
	r.take(probegen.Resolve(t, r.spec, exe, ro))
	return r
}

// take records a resolution, or why there is none.
func (r *resolved) take(res *probegen.Resolution, err error) {
	if err != nil {
		r.err = err
		return
	}
	r.defs, r.points, r.notes = res.Defs, res.Points, res.Notes
}

// failedOnly are the specs of rs that failed.
func failedOnly(rs []resolved) []resolved {
	var out []resolved
	for _, r := range rs {
		if r.err != nil {
			out = append(out, r)
		}
	}
	return out
}

// printNotes prints notes on stderr as "note: …", unless -q.
func printNotes(o *options, stderr io.Writer, notes []string) {
	if o.quiet {
		return
	}
	for _, n := range notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
}

// execPath returns the path of -x written in definitions, "" without -x
// (see execPaths).
func execPath(o *options) (string, error) {
	_, exe, err := execPaths(o)
	return exe, err
}
