package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
)

// runDefinitions implements -D: resolve each spec and print its lines.
// With a spec file or --json each spec's lines (or JSON) are printed as
// it resolves, in spec order, so that a spec file of any length prints
// from its first spec on and holds only the spec at hand. In a keep-going run (a spec file, --json) the
// definitions of the specs that resolved are printed even when others
// failed.
func runDefinitions(ctx context.Context, o *options, t *probegen.Target, stdout, stderr io.Writer) error {
	if !o.json && !hasSpecFile(o.defs) {
		// Command-line specs: nothing is printed if one fails, as in perf.
		rs, err := resolveAll(ctx, o, t, o.defs, stderr)
		return printDefinitions(o, rs, err, stdout)
	}
	return resolveStream(ctx, o, t, o.defs, stderr, definitionPrinter(o, stdout))
}

// definitionPrinter prints the definitions of one resolved spec.
func definitionPrinter(o *options, stdout io.Writer) func(resolved) error {
	return func(r resolved) error {
		if o.json {
			return writeSpecsJSON(stdout, "definition", false, []resolved{r})
		}
		for _, d := range r.defs() {
			if _, err := fmt.Fprintln(stdout, d); err != nil {
				return err
			}
		}
		return nil
	}
}

// printDefinitions prints the definitions of rs (as JSON with --json);
// err is the resolution's error, returned after.
func printDefinitions(o *options, rs []resolved, err error, stdout io.Writer) error {
	print := definitionPrinter(o, stdout)
	for _, r := range rs {
		if werr := print(r); werr != nil {
			return werr
		}
	}
	return err
}

// resolved is one probe command and its answer, or why it failed.
type resolved struct {
	in    specInput
	spec  *grammar.Spec
	notes []string
	res   *answer.Resolution // nil when err is set
	err   error
}

// probes are r's probes, one per definition.
func (r *resolved) probes() []answer.Probe {
	if r.res == nil {
		return nil
	}
	return r.res.Probes
}

// defs are the definitions of r's probes.
func (r *resolved) defs() []tracefs.Event {
	if r.res == nil {
		return nil
	}
	return r.res.Definitions()
}

// resolveAll resolves every spec of args (a spec or an @FILE of specs) as
// -D does, printing notes. Without a spec file or --json, the first
// failure is returned alone, as perf does; with them, every spec is
// tried, failures are reported as they come, and the specs that resolved
// are returned with an error classed as the first failure. Callers that
// write to tracefs write nothing if err is not nil.
func resolveAll(ctx context.Context, o *options, t *probegen.Target, args []string, stderr io.Writer) ([]resolved, error) {
	var out []resolved
	err := resolveStream(ctx, o, t, args, stderr, func(r resolved) error {
		out = append(out, r)
		return nil
	})
	if err != nil && !o.json && !hasSpecFile(args) {
		if errors.Is(err, errSpecsInterrupted) {
			err = ctx.Err() // nothing was printed: the specs print together
		}
		return nil, err
	}
	return out, err
}

// resolveStream is resolveAll handing each spec's resolution to emit as
// it comes, in spec order, instead of keeping them: emit sees failed
// specs too (after they are reported). If ctx ends, what was emitted
// stands and the error says how far the run got. The specs resolve
// through the target's Resolver and the library's batch runner
// (probegen.Resolver.Stream), on every core against debuginfo.
func resolveStream(ctx context.Context, o *options, t *probegen.Target, args []string, stderr io.Writer, emit func(resolved) error) error {
	res := t.Resolver(resolveOptions(o))
	// Definitions alone, unless --json says where each lies or trace
	// attaches there.
	res.Brief = !o.json && !o.points
	res.Workers = specWorkers()
	if err := checkSpecFiles(ctx, args); err != nil {
		return err
	}
	// The inputs of the specs yielded and not yet emitted, oldest first:
	// Stream hands the results on in the order the specs were yielded.
	var (
		mu  sync.Mutex
		ins []specInput
	)
	specs := func(yield func(string) bool) error {
		return eachSpec(ctx, args, func(in specInput) error {
			mu.Lock()
			ins = append(ins, in)
			mu.Unlock()
			if !yield(in.raw) {
				return errStopSpecs
			}
			return nil
		})
	}
	run := newSpecRun(o, args, stderr)
	err := res.Stream(specs, func(sr probegen.SpecResult) error {
		mu.Lock()
		in := ins[0]
		ins = ins[1:]
		mu.Unlock()
		r := resolvedOf(in, sr)
		if err := ctx.Err(); err != nil {
			// A signal before or during the resolution: this spec's
			// answer may be cut short, so it is not printed.
			if run.total == 0 {
				return err
			}
			return fmt.Errorf("%w after %d specs (%d of them failed); the output above is theirs", errSpecsInterrupted, run.total, run.failed)
		}
		run.total++
		if r.err != nil {
			if err := run.fail(in, r.err); err != nil {
				return err
			}
		} else if r.res != nil && o.verbose == 0 {
			printNotes(o, stderr, alikeNotes(r.res.Notes))
		} else {
			printNotes(o, stderr, r.notes)
		}
		return emit(r)
	})
	if err != nil {
		return err
	}
	return run.done()
}

// take records a resolution, or why there is none.
func (r *resolved) take(res *answer.Resolution, err error) {
	if err != nil {
		r.err = err
		return
	}
	r.notes, r.res = answer.NoteTexts(res.Notes), res
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

// alikeNotes are the texts of one spec's notes, those of a kind said at
// several points (a function's five copies not unique, each notrace) in
// one line: the first, and how many more points it holds for (-v says
// each).
func alikeNotes(notes []answer.Note) []string {
	count := map[answer.NoteKind]int{}
	for _, n := range notes {
		if n.Kind != answer.NoteOther {
			count[n.Kind]++
		}
	}
	var out []string
	said := map[answer.NoteKind]bool{}
	for _, n := range notes {
		switch c := count[n.Kind]; {
		case n.Kind == answer.NoteOther || c < 2:
			out = append(out, n.Text)
		case !said[n.Kind]:
			said[n.Kind] = true
			out = append(out, fmt.Sprintf("%s (and %s alike: -v says each)", n.Text, plural(c-1, "more point")))
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

// resolveOptions are the options of o every spec resolves with.
func resolveOptions(o *options) probegen.ResolveOptions {
	return probegen.ResolveOptions{NoInlines: o.noInlines, Nearest: o.nearest, MaxProbes: o.maxProbes, FProbe: o.fprobe, User: o.exec != ""}
}

// releaseEvery is how many specs --diff and --fleet resolve between
// giving back the pages of the debuginfo they read through the mapping,
// as the library's batches do (probegen.Resolver.Stream).
const releaseEvery = 32

// errSpecsInterrupted: a signal ended a run of specs before its end.
var errSpecsInterrupted = errors.New("interrupted")

// errStopSpecs: a stream of specs stopped reading them.
var errStopSpecs = errors.New("stopped")

// specWorkers is how many specs of a run resolve at once against
// debuginfo: the library's rule (a variable for the tests, which compare
// runs of one and of many).
var specWorkers = probegen.BatchWorkers
