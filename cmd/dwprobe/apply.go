package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/dwprobe/dwprobe/tracefs"
)

// applyLine is one definition of an --apply file.
type applyLine struct {
	n  int // line number, from 1
	ev tracefs.Event
}

// runApply implements --apply FILE: add the definition lines of FILE (as
// -D prints them; blank lines and lines starting with '#' are skipped).
// Every line is parsed and checked (against the running kernel's types
// and registers too) before anything is written, and kprobes and uprobes
// are added in one batch that tracefs rolls back whole: all or nothing.
func runApply(ctx context.Context, o *options, stdout, stderr io.Writer) error {
	name, lines, err := readApply(ctx, o.apply)
	if err != nil {
		return err
	}
	fsys, ferr := liveFS()
	dialect := tracefs.HostDialect()
	if ferr == nil {
		dialect = fsys.Dialect()
	}
	if err := checkApply(name, lines, dialect); err != nil {
		return err
	}
	if o.dryRun {
		if !o.quiet {
			fmt.Fprintf(stderr, "Dry run: %d definitions of %s are valid; nothing written\n", len(lines), name)
		}
		return nil
	}
	if ferr != nil {
		return ferr
	}
	evs := make([]tracefs.Event, len(lines))
	for i, l := range lines {
		evs[i] = l.ev
	}
	tellStderr(fsys, stderr)
	added, err := addBatch(ctx, fsys, tracefs.Batch{Events: evs})
	if err != nil {
		return addErr(err, stderr, func(i int) string { return fmt.Sprintf("%s:%d", name, lines[i].n) })
	}
	recordAdded(fsys, added)
	if o.json {
		if err := appliedJSON(o, added, stdout); err != nil {
			return err
		}
	}
	if !o.quiet {
		showApplied(o, added, stderr)
	}
	return nil
}

// appliedJSON writes an object per event added, as -l --json shows it.
func appliedJSON(o *options, added []tracefs.Event, stdout io.Writer) error {
	dbg := newDebugCache(o, nil)
	defer dbg.close()
	for _, e := range added {
		point, module := dbg.point(e)
		je := eventJSON(e, point, module)
		je.Mode = "apply"
		if err := writeJSON(stdout, je); err != nil {
			return err
		}
	}
	return nil
}

// readApply reads and parses the definitions of path ("-": stdin), and
// returns the name to report them by.
func readApply(ctx context.Context, path string) (string, []applyLine, error) {
	name, r, done, err := openInput(ctx, path)
	if err != nil {
		return "", nil, err
	}
	defer done()
	lines, err := parseApply(name, r)
	if err == nil && len(lines) == 0 {
		err = fmt.Errorf("%s: no definitions", name)
	}
	return name, lines, err
}

// parseApply parses each definition line of r once.
func parseApply(name string, r io.Reader) ([]applyLine, error) {
	var lines []applyLine
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if t := strings.TrimLeft(l, " "); t == "" || t[0] == '#' {
			continue
		}
		ev, err := tracefs.ParseDynamic(l)
		if err != nil {
			return nil, applyErr(name, n, l, err)
		}
		lines = append(lines, applyLine{n, ev})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return lines, nil
}

// checkApply refuses types and registers the kernel does not have.
func checkApply(name string, lines []applyLine, d tracefs.Dialect) error {
	for _, l := range lines {
		if err := d.Check(l.ev); err != nil {
			return applyErr(name, l.n, l.ev.Raw, err)
		}
	}
	return nil
}

// applyErr reports a refused line as FILE:LINE:COLUMN, the column the
// character the refusal points at.
func applyErr(name string, n int, line string, err error) error {
	var de *tracefs.DefError
	if errors.As(err, &de) {
		col := utf8.RuneCountInString(line[:min(max(de.Pos, 0), len(line))]) + 1
		return fmt.Errorf("%s:%d:%d: %w; nothing was added", name, n, col, err)
	}
	return fmt.Errorf("%s:%d: %w; nothing was added", name, n, err)
}

// showApplied prints perf's "Added new events:" and a line per event.
func showApplied(o *options, added []tracefs.Event, stderr io.Writer) {
	fmt.Fprintln(stderr, addedHeader(len(added)))
	dbg := newDebugCache(o, nil)
	defer dbg.close()
	for _, e := range added {
		fmt.Fprintln(stderr, dbg.line(e))
	}
}
