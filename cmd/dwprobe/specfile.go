package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/grammar"
)

// errNoSpecs: a spec file holds no probe command.
var errNoSpecs = errors.New("no probe specs")

// specInput is one probe command and where it came from.
type specInput struct {
	raw    string
	file   string // the spec file ("<stdin>" for @-); "" on the command line
	line   int    // 1-based line in file
	indent int    // bytes of blanks before raw on its line
}

// specFileOf returns FILE for an argument @FILE. No perf probe command
// starts with '@' (@SRC follows a function name), so the form is free.
func specFileOf(arg string) (string, bool) {
	if len(arg) > 1 && arg[0] == '@' {
		return arg[1:], true
	}
	return "", false
}

// hasSpecFile reports whether one of args is an @FILE.
func hasSpecFile(args []string) bool {
	for _, a := range args {
		if _, ok := specFileOf(a); ok {
			return true
		}
	}
	return false
}

// allSpecFiles reports whether every word of args is an @FILE.
func allSpecFiles(args []string) bool {
	for _, a := range args {
		if _, ok := specFileOf(a); !ok {
			return false
		}
	}
	return true
}

// eachSpec calls fn with each command of args in order, an @FILE's read
// as fn takes them: a file of a million specs is never held whole. An
// error of fn ends it and is returned.
func eachSpec(ctx context.Context, args []string, fn func(specInput) error) error {
	for _, a := range args {
		path, ok := specFileOf(a)
		if !ok {
			if err := fn(specInput{raw: a}); err != nil {
				return err
			}
			continue
		}
		if err := eachSpecOf(ctx, path, fn); err != nil {
			return err
		}
	}
	return nil
}

// checkSpecFiles reads each @FILE of args once before any spec is tried,
// so that one that cannot be read (missing, a directory, a line too
// long, no specs) is one error and no output; stdin (@-) and other
// streams (a FIFO, @<(cmd)) can't be read twice and are checked as they
// are read.
func checkSpecFiles(ctx context.Context, args []string) error {
	for _, a := range args {
		if path, ok := specFileOf(a); ok && !isStream(path) {
			if err := eachSpecOf(ctx, path, func(specInput) error { return nil }); err != nil {
				return err
			}
		}
	}
	return nil
}

// errStop wraps an error of eachSpec's fn, told apart from the file's.
type errStop struct{ err error }

func (e errStop) Error() string { return e.err.Error() }

// eachSpecOf calls fn with each command of path ("-": stdin).
func eachSpecOf(ctx context.Context, path string, fn func(specInput) error) error {
	name, r, done, err := openInput(ctx, path)
	if err != nil {
		return err
	}
	defer done()
	n := 0
	err = grammar.ScanSpecs(r, func(l grammar.SpecLine) error {
		n++
		if err := fn(specInput{raw: l.Text, file: name, line: l.Line, indent: l.Indent}); err != nil {
			return errStop{err}
		}
		return nil
	})
	var stop errStop
	var fe *grammar.SpecFileError
	switch {
	case errors.As(err, &stop):
		return stop.err
	case errors.As(err, &fe):
		return fmt.Errorf("%s:%d: %w", name, fe.Line, fe.Err)
	case err != nil:
		return fmt.Errorf("%s: %w", name, err)
	case n == 0:
		return fmt.Errorf("%s: %w (only blank lines and comments)", name, errNoSpecs)
	}
	return nil
}

// specErr is the column and message of spec's failure, the column
// 1-based within spec (0 when the failure points nowhere in it).
func specErr(spec string, err error) (col int, msg string) {
	var se *grammar.SyntaxError
	var pe *probegen.PointError
	switch {
	case errors.As(err, &se) && se.Spec == spec:
		return se.Col, se.Msg
	case errors.As(err, &pe):
		return 0, oneLine(pe.Err.Error())
	}
	return 0, oneLine(err.Error())
}

// failure prints a failing spec of a file as FILE:LINE:COL: message (the
// column that of the line, counting the blanks before the spec; the
// spec's first column when the message points nowhere in it), and a
// command-line spec as dwprobe prints any error.
func (in specInput) failure(err error) string {
	if in.file == "" {
		return "dwprobe: " + oneLine(err.Error())
	}
	col, msg := specErr(in.raw, err)
	col = max(col, 1)
	return fmt.Sprintf("%s:%d:%d: %s", in.file, in.line, in.indent+col, msg)
}

// specRun tries a list of probe commands. Without keepGoing (plain
// command-line specs, as perf does) the first failure stops the run;
// with it (a spec file or --json) every command is tried, each failure is
// reported on stderr as it comes, and done returns an error classed as
// the first failure (so the exit status is that failure's).
type specRun struct {
	o         *options
	stderr    io.Writer
	keepGoing bool
	total     int
	failed    int
	first     error
}

func newSpecRun(o *options, args []string, stderr io.Writer) *specRun {
	return &specRun{o: o, stderr: stderr, keepGoing: o.json || hasSpecFile(args)}
}

// fail records err for in; it returns err when the run must stop.
func (r *specRun) fail(in specInput, err error) error {
	err = withHints(err, r.o)
	if !r.keepGoing {
		return err
	}
	r.failed++
	if r.first == nil {
		r.first = err
	}
	fmt.Fprintln(r.stderr, in.failure(err))
	return nil
}

// done is nil if every command succeeded, else a *specsError.
func (r *specRun) done() error {
	if r.failed == 0 {
		return nil
	}
	return &specsError{failed: r.failed, total: r.total, first: r.first}
}

// specsError: some commands of a keep-going run failed (each reported).
type specsError struct {
	failed, total int
	verb          string // what failing stopped: "", "nothing was added"
	first         error
}

func (e *specsError) Error() string {
	s := fmt.Sprintf("%d of %d probes failed", e.failed, e.total)
	if e.total == 1 {
		s = "the probe failed"
	}
	if e.verb != "" {
		s += "; " + e.verb
	}
	return s
}

// Unwrap is the first failure: its class is the exit status.
func (e *specsError) Unwrap() error { return e.first }
