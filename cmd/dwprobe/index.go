package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/dwprobe/dwprobe/probegen"
)

// indexOff reports whether queries scan the debuginfo without an index:
// --no-index, or DWPROBE_INDEX=off (the conformance suite's second way).
func indexOff(o *options) bool {
	return o.noIndex || os.Getenv("DWPROBE_INDEX") == "off"
}

// useIndex has t's queries go through its index where it pays
// (Target.UseIndex): one already built, a run of many specs, or a
// binary queried before. A first query scans, never waiting for a build.
func useIndex(o *options, tgt *probegen.Target, stderr io.Writer) {
	if indexOff(o) {
		return
	}
	tgt.UseIndex(indexOptions(o, tgt, stderr), specCount(o))
}

// specCount is how many specs the run has, counted up to
// probegen.ManySpecs: one per -D/-a/-V, the lines of an @FILE, and
// ManySpecs for @- and any other stream (stdin, a FIFO or @<(cmd) cannot
// be read twice; a pipe of specs is a batch).
func specCount(o *options) int {
	n := 0
	for _, list := range [][]string{o.defs, o.adds, o.vars} {
		for _, s := range list {
			switch {
			case strings.HasPrefix(s, "@") && isStream(s[1:]):
				n += probegen.ManySpecs
			case strings.HasPrefix(s, "@"):
				n += countSpecLines(s[1:], probegen.ManySpecs-n)
			default:
				n++
			}
			if n >= probegen.ManySpecs {
				return n
			}
		}
	}
	return n
}

// countSpecLines counts the spec lines of file (neither blank nor a #
// comment), stopping at limit; one for a file that does not read (the
// run reports it). It opens only a regular file (never blocking on a
// FIFO swapped in since specCount looked).
func countSpecLines(file string, limit int) int {
	fh, mode, err := openNonblock(file)
	if err != nil {
		return 1
	}
	if !mode.IsRegular() {
		fh.Close()
		return 1
	}
	defer fh.Close()
	n := 0
	sc := bufio.NewScanner(fh)
	for n < limit && sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			n++
		}
	}
	return n
}

// indexOptions reports a rebuilt or unusable index on stderr, and shows
// the build's progress when stderr is a terminal.
func indexOptions(o *options, tgt *probegen.Target, stderr io.Writer) probegen.IndexOptions {
	opts := probegen.IndexOptions{Note: func(r probegen.IndexReport) {
		if !o.quiet {
			fmt.Fprintln(stderr, "note: "+indexNote(r))
		}
	}}
	if isTerminal(stderr) {
		opts.Progress = progressLine(stderr, tgt.Built().Path)
	}
	return opts
}

// indexNote words what happened to an index that did not simply load.
func indexNote(r probegen.IndexReport) string {
	switch {
	case !r.Used:
		return fmt.Sprintf("debuginfo index not used (%v): scanning the debuginfo", r.Err)
	case r.Stale != nil && r.Err != nil:
		return fmt.Sprintf("debuginfo index %v: rebuilt, but not saved (%v)", r.Stale, r.Err)
	case r.Stale != nil:
		return fmt.Sprintf("debuginfo index %v: rebuilt", r.Stale)
	default:
		return fmt.Sprintf("debuginfo index built but not saved (%v)", r.Err)
	}
}

// runBuildIndex is --build-index: build the index, or check the one there,
// and say which.
func runBuildIndex(o *options, tgt *probegen.Target, stdout, stderr io.Writer) error {
	if o.noIndex {
		return errors.New("--build-index and --no-index are exclusive")
	}
	r := tgt.BuildIndex(indexOptions(o, tgt, stderr))
	if r.Stale != nil && !o.quiet {
		fmt.Fprintf(stderr, "note: debuginfo index %v: rebuilding\n", r.Stale)
	}
	if r.Err != nil {
		return fmt.Errorf("debuginfo index of %s: %w", tgt.Built().Path, r.Err)
	}
	if !o.quiet {
		what := "verified"
		if r.Built {
			what = "built"
		}
		fmt.Fprintf(stdout, "%s: %s\n", r.Path, what)
	}
	return nil
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressLine rewrites one stderr line as the index build goes, every
// percent, and clears it at the end.
func progressLine(w io.Writer, path string) func(done, total int) {
	last := -1
	return func(done, total int) {
		pct := done * 100 / max(total, 1)
		if pct == last {
			return
		}
		last = pct
		if done == total {
			fmt.Fprint(w, "\r\033[K")
			return
		}
		fmt.Fprintf(w, "\rindexing %s: %d%% of %d units", path, pct, total)
	}
}
