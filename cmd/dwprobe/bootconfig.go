package main

import (
	"context"
	"errors"
	"io"

	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/bootconfig"
	"github.com/dwprobe/dwprobe/tracefs"
)

// runBootconfig implements -D with --bootconfig.
func runBootconfig(ctx context.Context, o *options, t *probegen.Target, stdout, stderr io.Writer) error {
	if o.exec != "" {
		return &usageError{errors.New("--bootconfig defines kprobes only: boot-time tracing has no uprobes (drop -x)")}
	}
	// As -D, a keep-going run prints the specs that resolved.
	rs, failed := resolveAll(ctx, o, t, o.defs, stderr)
	return printBootconfig(o, rs, failed, stdout, stderr)
}

// printBootconfig prints the kprobes of rs as a bootconfig; failed is
// the resolution's error, returned after.
func printBootconfig(o *options, rs []resolved, failed error, stdout, stderr io.Writer) error {
	var defs []tracefs.Event
	for _, r := range rs {
		defs = append(defs, r.defs()...)
	}
	if len(defs) == 0 && failed != nil {
		return failed
	}
	text, notes, err := bootconfig.Render(defs)
	if err != nil {
		return err
	}
	printNotes(o, stderr, notes)
	if _, err = io.WriteString(stdout, text); err != nil {
		return err
	}
	return failed
}
