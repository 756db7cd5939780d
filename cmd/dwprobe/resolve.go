package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/tracefs"
)

// runDefinitions implements -D: resolve each spec and print its lines.
func runDefinitions(ctx context.Context, o *options, t *dwarfres.File, stdout, stderr io.Writer) error {
	rs, err := resolveAll(ctx, o, t, o.defs, stderr)
	if err != nil {
		return err
	}
	for _, r := range rs {
		for _, d := range r.defs {
			fmt.Fprintln(stdout, d)
		}
	}
	return nil
}

// resolved is one probe command and its definitions.
type resolved struct {
	spec *probegen.Spec
	defs []tracefs.Event
}

// resolveAll resolves every raw spec as -D does, printing notes, and
// fails before anything is written if one fails.
func resolveAll(ctx context.Context, o *options, t *dwarfres.File, raws []string, stderr io.Writer) ([]resolved, error) {
	exe, err := execPath(o)
	if err != nil {
		return nil, err
	}
	src, err := newSources(o)
	if err != nil {
		return nil, err
	}
	ro := probegen.ResolveOptions{NoInlines: o.noInlines, MaxProbes: o.maxProbes, LazyLines: src.LazyLines, DeclText: src.DeclText}
	var out []resolved
	for _, raw := range raws {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		spec, err := probegen.ParseSpec(raw)
		if err != nil {
			return nil, err
		}
		defs, notes, err := probegen.Definitions(t, spec, exe, ro)
		if err != nil {
			return nil, err
		}
		printNotes(o, stderr, notes)
		out = append(out, resolved{spec, defs})
	}
	return out, nil
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

// execPath returns the absolute, symlink-free path of -x, "" without -x.
func execPath(o *options) (string, error) {
	if o.exec == "" {
		return "", nil
	}
	exe, err := filepath.Abs(o.exec)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return exe, nil
}
