package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/probegen"
)

// extraLines is perf's NR_ADDITIONAL_LINES: context shown after the last
// probeable line of an open range.
const extraLines = 2

// runLines implements -L: perf's show_line_range.
func runLines(o *options, t *dwarfres.File, stdout, stderr io.Writer) error {
	lq, err := probegen.ParseLineRange(o.line)
	if err != nil {
		return err
	}
	lr, err := t.FindLineRange(dwarfres.LineQuery{Function: lq.Function, File: lq.File, Start: lq.Start, End: lq.End})
	if err != nil {
		return err
	}
	if lr == nil {
		return fmt.Errorf("line range %q: no probeable source line found", o.line)
	}
	src, err := newSources(o)
	if err != nil {
		return err
	}
	path, tried, ok := src.find(lr.Path, lr.CompDir)
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	if !ok {
		// perf gives up here; the probeable lines are still worth having.
		fmt.Fprintf(stderr, "source of %s not found (tried %s; give the source tree with -s); probeable lines only:\n", lr.Path, strings.Join(tried, ", "))
		header(w, lq, lr, lr.Path)
		for _, l := range lr.Lines {
			fmt.Fprintf(w, "%7d\n", l-lr.Offset)
		}
		return nil
	}
	header(w, lq, lr, path)
	fp, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fp.Close()
	return printRange(w, bufio.NewReader(fp), lr)
}

func header(w io.Writer, lq *probegen.LineRange, lr *dwarfres.LineRange, path string) {
	if lq.Function != "" {
		fmt.Fprintf(w, "<%s@%s:%d>\n", lq.Function, path, lr.Start-lr.Offset)
	} else {
		fmt.Fprintf(w, "<%s:%d>\n", path, lr.Start)
	}
}

var errShortSource = errors.New("source file is shorter than expected")

// printRange prints lines as perf does: probeable lines numbered (relative
// to the function), the others indented, then a little trailing context.
func printRange(w io.Writer, r *bufio.Reader, lr *dwarfres.LineRange) error {
	readLine := func() (string, bool) {
		s, err := r.ReadString('\n')
		if s == "" && err != nil {
			return "", false
		}
		return s, true
	}
	l := 1
	for ; l < lr.Start; l++ {
		if _, ok := readLine(); !ok {
			return errShortSource
		}
	}
	show := func(num int, numbered bool) bool {
		s, ok := readLine()
		if !ok {
			return false
		}
		if numbered {
			fmt.Fprintf(w, "%7d  %s", num, s)
		} else {
			fmt.Fprintf(w, "         %s", s)
		}
		return true
	}
	for _, ln := range lr.Lines {
		for ; ln > l; l++ {
			if !show(l-lr.Offset, false) {
				return errShortSource
			}
		}
		if !show(l-lr.Offset, true) {
			return errShortSource
		}
		l++
	}
	end := lr.End
	if end == math.MaxInt32 {
		end = l + extraLines
	}
	for ; l <= end; l++ {
		if !show(l-lr.Offset, false) {
			break
		}
	}
	return nil
}

// defaultFuncFilter is perf 6.1's default for -F.
const defaultFuncFilter = "!_* & !*@plt"

// runFuncs implements -F: every function symbol perf's map holds, sorted by
// name (duplicates kept, as perf prints them), filtered.
func runFuncs(o *options, t *dwarfres.File, stdout io.Writer) error {
	rules := defaultFuncFilter
	switch {
	case o.funcs != "\x00" && o.funcs != "":
		rules = o.funcs
	case o.filter != "":
		rules = o.filter
	}
	flt, err := lazymatch.ParseFilter(rules)
	if err != nil {
		return err
	}
	var names []string
	t.Symbols().Each(func(s dwarfres.Sym) {
		if flt.Match(s.Name) {
			names = append(names, s.Name)
		}
	})
	sort.Strings(names)
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	for _, n := range names {
		fmt.Fprintln(w, n)
	}
	return nil
}
