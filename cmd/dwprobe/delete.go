package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/tracefs"
)

// runDelete implements -d: delete the kprobes and uprobes that match any
// of the patterns (perf's filter syntax: globs, "[a-z]", "!", "&", "|";
// [GROUP:]EVENT, a pattern without GROUP matching any group).
func runDelete(ctx context.Context, o *options, stdout, stderr io.Writer) error {
	var flts []*lazymatch.Filter
	for _, p := range o.del {
		f, err := lazymatch.ParseFilter(p)
		if err != nil {
			return fmt.Errorf("-d %q: %w", p, err)
		}
		flts = append(flts, f)
	}
	match := func(e tracefs.Event) bool {
		for _, f := range flts {
			if e.Matches(f.Match) {
				return true
			}
		}
		return false
	}
	fsys, err := liveFS()
	if err != nil {
		return err
	}
	tellStderr(fsys, stderr)
	hit, kinds := false, 0
	var firstErr error
	for _, kind := range tracefs.Kinds {
		var names []string
		var err error
		if o.dryRun {
			names, err = matching(fsys, kind, match)
		} else {
			names, err = fsys.DeleteFuncContext(ctx, kind, match)
		}
		slices.Sort(names) // perf's order (a sorted strlist)
		for _, n := range names {
			hit = true
			if o.json {
				if err := writeJSON(stdout, deletedJSON(n, o.dryRun)); err != nil {
					return err
				}
			}
			switch {
			case o.dryRun:
				fmt.Fprintf(stderr, "Would remove event: %s\n", n)
			case !o.quiet:
				fmt.Fprintf(stderr, "Removed event: %s\n", n)
			}
		}
		switch {
		case err == nil || errors.Is(err, tracefs.ErrNoMatch):
			kinds++
		case errors.Is(err, tracefs.ErrNotSupported):
			if firstErr == nil {
				firstErr = err
			}
		default:
			return lockErr(err, "deleted")
		}
	}
	if kinds == 0 {
		return tracefsErr(firstErr)
	}
	if !hit {
		return errorWith(tracefs.ErrNoMatch, "%q does not hit any event", strings.Join(o.del, "|"))
	}
	return nil
}

// matching returns the names of the events of kind that match, each once,
// as DeleteFunc would delete them.
func matching(fsys *tracefs.FS, kind tracefs.Kind, match func(tracefs.Event) bool) ([]string, error) {
	evs, err := fsys.List(kind)
	if err != nil {
		return nil, err
	}
	var names []string
	seen := map[string]bool{}
	for _, e := range evs {
		if id := e.PerfName(); match(e) && !seen[id] {
			seen[id] = true
			names = append(names, id)
		}
	}
	return names, nil
}
