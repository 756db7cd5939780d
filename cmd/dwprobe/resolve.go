package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen"
)

// runDefinitions implements -D: resolve each spec and print its lines.
func runDefinitions(ctx context.Context, o *options, t *dwarfres.File, stdout, stderr io.Writer) error {
	exe := ""
	if o.exec != "" {
		var err error
		if exe, err = filepath.Abs(o.exec); err != nil {
			return err
		}
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
	}
	src, err := newSources(o)
	if err != nil {
		return err
	}
	ro := probegen.ResolveOptions{NoInlines: o.noInlines, MaxProbes: o.maxProbes, LazyLines: src.lazyLines}
	var out []string
	for _, raw := range o.defs {
		if err := ctx.Err(); err != nil {
			return err
		}
		spec, err := probegen.ParseSpec(raw)
		if err != nil {
			return err
		}
		defs, notes, err := probegen.Definitions(t, spec, exe, ro)
		if err != nil {
			return err
		}
		if !o.quiet {
			for _, n := range notes {
				fmt.Fprintf(stderr, "note: %s\n", n)
			}
		}
		for _, d := range defs {
			out = append(out, d.String())
		}
	}
	for _, l := range out {
		fmt.Fprintln(stdout, l)
	}
	return nil
}
