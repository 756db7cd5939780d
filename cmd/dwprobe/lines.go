package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/listing"
)

// runLines implements -L: perf's show_line_range.
func runLines(o *options, tgt *probegen.Target, stdout, stderr io.Writer) error {
	var l *listing.Listing
	var err error
	if o.detail {
		l, err = tgt.ListLineVars(o.line, listing.VarOptions{Externs: o.externs, Ranges: o.rangeOpt, Filter: o.filter})
	} else {
		l, err = tgt.ListLines(o.line)
	}
	if err != nil {
		return err
	}
	if !l.Found {
		fmt.Fprintf(stderr, "note: source of %s not found (tried %s; %s); probeable lines only:\n", l.Path, strings.Join(l.Tried, ", "), sourceHint(o))
	}
	if o.json {
		return writeJSON(stdout, linesJSON(l))
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	printListing(w, l)
	return nil
}

// printListing prints l as perf does: the header, then numbered probeable
// lines and indented others (without the source, the probeable numbers).
func printListing(w io.Writer, l *listing.Listing) {
	if l.Function != "" {
		fmt.Fprintf(w, "<%s@%s:%d>\n", l.Function, l.Path, l.Start)
	} else {
		fmt.Fprintf(w, "<%s:%d>\n", l.Path, l.Start)
	}
	for _, ln := range l.Lines {
		switch {
		case !l.Found:
			fmt.Fprintf(w, "%7d\n", ln.Num)
		case ln.Probeable:
			fmt.Fprintf(w, "%7d  %s", ln.Num, ln.Text)
		default:
			fmt.Fprintf(w, "         %s", ln.Text)
		}
		printPoints(w, ln.Points)
	}
}

// printPoints prints a line's points under it (--detail), one a line,
// each with the variables readable there as "TYPE NAME" (-V's lines):
//
//	2 points: @<vfs_read+53> rw_verify_area inlined: struct file* file, ...
//	          @<vfs_write+60> rw_verify_area inlined: ...
func printPoints(w io.Writer, pts []listing.LinePoint) {
	for i, p := range pts {
		lead := strings.Repeat(" ", 21)
		if i == 0 {
			lead = fmt.Sprintf("%20s ", plural(len(pts), "point")+":")
		}
		where := "@<" + p.Point + ">"
		if p.InlinedInto != "" {
			where += " " + p.Function + " inlined"
		}
		vars := "(no variables)"
		if len(p.Vars.Lines) > 0 {
			vars = strings.ReplaceAll(strings.Join(p.Vars.Lines, ", "), "\t", " ")
		}
		fmt.Fprintf(w, "%s%s: %s\n", lead, where, vars)
	}
}

// plural is "1 point", "3 points".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// runFuncs implements -F: perf's function list, filtered by -F's word or
// else --filter.
func runFuncs(o *options, tgt *probegen.Target, stdout io.Writer) error {
	rules := o.filter
	if o.funcs != "\x00" && o.funcs != "" {
		rules = o.funcs
	}
	names, err := tgt.Functions(rules)
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(stdout, funcsJSON(names))
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	for _, n := range names {
		fmt.Fprintln(w, n)
	}
	return nil
}
