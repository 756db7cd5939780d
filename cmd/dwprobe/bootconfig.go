package main

import (
	"context"
	"errors"
	"io"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/tracefs"
)

// runBootconfig implements -D with --bootconfig.
func runBootconfig(ctx context.Context, o *options, t *dwarfres.File, stdout, stderr io.Writer) error {
	if o.exec != "" {
		return &usageError{errors.New("--bootconfig defines kprobes only: boot-time tracing has no uprobes (drop -x)")}
	}
	rs, err := resolveAll(ctx, o, t, o.defs, stderr)
	if err != nil {
		return err
	}
	var defs []tracefs.Event
	for _, r := range rs {
		defs = append(defs, r.defs...)
	}
	text, notes, err := probegen.Bootconfig(defs)
	if err != nil {
		return err
	}
	printNotes(o, stderr, notes)
	_, err = io.WriteString(stdout, text)
	return err
}
