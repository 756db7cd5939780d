package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/tracefs"
)

// The commands that change or read the running kernel's probes: -a (and a
// PROBE without option), -d, -l and --apply. Their output follows perf
// probe 6.1 (builtin-probe.c, probe-event.c): what perf prints with pr_info
// goes to stderr, listings to stdout.

// Hooks the tests replace: the system's tracefs, the running kernel's
// build-id and the input of "--apply -".
var (
	openTracefs    = tracefs.Find
	runningBuildID = func() string { _, bid := runningKernel(); return bid }
	stdin          = io.Reader(os.Stdin)
)

// liveFS opens tracefs, with what to do about it when that fails.
func liveFS() (*tracefs.FS, error) {
	fsys, err := openTracefs()
	if err != nil {
		return nil, tracefsErr(err)
	}
	return fsys, nil
}

// tracefsErr adds the remedy to a tracefs error that needs one.
func tracefsErr(err error) error {
	if errors.Is(err, tracefs.ErrPermission) && os.Geteuid() != 0 {
		return fmt.Errorf("%w; probes are added, listed and deleted through tracefs, which needs root: run dwprobe as root (or with sudo)", err)
	}
	return err
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

// resolved is one probe command and its definitions.
type resolved struct {
	spec *probegen.Spec
	defs []probegen.Def
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
	ro := probegen.ResolveOptions{NoInlines: o.noInlines, MaxProbes: o.maxProbes, LazyLines: src.lazyLines}
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
		if !o.quiet {
			for _, n := range notes {
				fmt.Fprintf(stderr, "note: %s\n", n)
			}
		}
		out = append(out, resolved{spec, defs})
	}
	return out, nil
}

// runBootconfig implements -D with --bootconfig.
func runBootconfig(ctx context.Context, o *options, t *dwarfres.File, stdout, stderr io.Writer) error {
	if o.exec != "" {
		return errors.New("--bootconfig defines kprobes only: boot-time tracing has no uprobes (drop -x)")
	}
	rs, err := resolveAll(ctx, o, t, o.defs, stderr)
	if err != nil {
		return err
	}
	var defs []probegen.Def
	for _, r := range rs {
		defs = append(defs, r.defs...)
	}
	text, notes, err := probegen.Bootconfig(defs)
	if err != nil {
		return err
	}
	if !o.quiet {
		for _, n := range notes {
			fmt.Fprintf(stderr, "note: %s\n", n)
		}
	}
	_, err = io.WriteString(stdout, text)
	return err
}

// runAdd implements -a: resolve every probe as -D does, name the events
// as perf does against the events that exist, and write all of them in
// one batch, so a refused definition leaves nothing of this command.
func runAdd(ctx context.Context, o *options, t *dwarfres.File, stdout, stderr io.Writer) error {
	kind := tracefs.KProbe
	if o.exec != "" {
		kind = tracefs.UProbe
	}
	rs, err := resolveAll(ctx, o, t, o.adds, stderr)
	if err != nil {
		return err
	}
	fsys, err := liveFS()
	var listed []tracefs.Event
	if err == nil {
		listed, err = fsys.List(kind)
	}
	if err != nil {
		if !o.dryRun {
			return tracefsErr(err)
		}
		// A dry run needs no tracefs: names are then not checked
		// against the running kernel's events.
		if !o.quiet {
			fmt.Fprintf(stderr, "note: dry run without the %s events of tracefs (%v): names not checked against existing events\n", kind, err)
		}
		fsys, listed = nil, nil
	}
	if kind == tracefs.KProbe && !o.dryRun {
		if err := checkRunningKernel(t); err != nil {
			return err
		}
	}
	multi := fsys == nil || fsys.MultiProbe()
	if err := nameEvents(rs, listed, o.force, multi); err != nil {
		return err
	}

	var lines []string
	for _, r := range rs {
		for _, d := range r.defs {
			lines = append(lines, d.String())
		}
	}
	if len(lines) == 0 {
		return errors.New("no probe point to add")
	}
	if o.dryRun {
		for _, l := range lines {
			fmt.Fprintln(stdout, l)
		}
		if !o.quiet {
			fmt.Fprintf(stderr, "Dry run: nothing written to %s_events; it would add:\n", kind)
			showAdded(o, rs, stderr)
		}
		return nil
	}
	add := fsys.Add
	if multi {
		add = fsys.AddMulti
	}
	if _, err := add(kind, lines); err != nil {
		return addErr(err, stderr, func(i int) string { return fmt.Sprintf("definition %d of %d", i+1, len(lines)) })
	}
	if o.quiet {
		return nil
	}
	last := rs[len(rs)-1].defs
	d := last[len(last)-1]
	fmt.Fprintln(stderr, addedHeader(len(lines)))
	showAdded(o, rs, stderr)
	fmt.Fprintf(stderr, "\nYou can now use it in all perf tools, such as:\n\n")
	fmt.Fprintf(stderr, "\tperf record -e %s:%s -aR sleep 1\n\n", d.Group, d.Event)
	fmt.Fprintf(stderr, "or enable it in tracefs:\n\n")
	fmt.Fprintf(stderr, "\techo 1 > %s\n\n", filepath.Join(fsys.Root(), "events", d.Group, d.Event, "enable"))
	return nil
}

// addedHeader is perf's "Added new event:" for n probes.
func addedHeader(n int) string {
	if n > 1 {
		return "Added new events:"
	}
	return "Added new event:"
}

// showAdded prints perf's line for each event added, with the probe as
// the user wrote it.
func showAdded(o *options, rs []resolved, w io.Writer) {
	module := ""
	if o.exec != "" {
		module, _ = execPath(o)
	}
	for _, r := range rs {
		point := probegen.SpecPoint(&r.spec.Point)
		var args []string
		for _, a := range r.spec.Args {
			args = append(args, probegen.PerfArg(a))
		}
		for _, d := range r.defs {
			fmt.Fprintln(w, probegen.EventLine(d.Group, d.Event, point, module, args))
		}
	}
}

// nameEvents renames the definitions of rs as perf probe -a names events
// (probe_trace_event__set_name): against the event names of listed,
// whatever their group; the first event of a probe may take a numbered
// name only with force, the others always may. With multi (the kernel
// appends probes to an event) the points of one probe that share a base
// name share the event; without, each point gets its own name.
func nameEvents(rs []resolved, listed []tracefs.Event, force, multi bool) error {
	var names []string
	for _, e := range listed {
		names = append(names, e.Name)
	}
	namer := probegen.NewNamer(names)
	for _, r := range rs {
		var used []string
		for j := range r.defs {
			d := &r.defs[j]
			pick := namer.Peek
			if !multi {
				pick = namer.Next
			}
			name, err := pick(d.Event, force || j > 0)
			if errors.Is(err, probegen.ErrEventExists) {
				return conflictErr(r.spec, d, listed, namer)
			}
			if err != nil {
				return fmt.Errorf("probe %q: %w", r.spec.Raw, err)
			}
			d.Event = name
			used = append(used, name)
		}
		for _, n := range used {
			namer.Add(n)
		}
	}
	return nil
}

// conflictErr explains an event name that is taken, with the ways out.
func conflictErr(spec *probegen.Spec, d *probegen.Def, listed []tracefs.Event, namer *probegen.Namer) error {
	id := d.Group + ":" + d.Event
	owner, del := "", ""
	for _, e := range listed {
		if e.Name == d.Event {
			owner, del = e.PerfName(), fmt.Sprintf("delete it with -d %s, ", e.PerfName())
			break
		}
	}
	switch owner {
	case "":
		owner = " (by an earlier probe of this command)"
	case id:
		owner = ""
	default:
		owner = fmt.Sprintf(" (as %s: event names are unique across groups)", owner)
	}
	force := "add a numbered duplicate with -f"
	if alt, err := namer.Peek(d.Event, true); err == nil {
		force = fmt.Sprintf("add it as %s:%s with -f", d.Group, alt)
	}
	pt := spec.Point
	pt.Group, pt.Event = "", ""
	return fmt.Errorf("probe %q: %s: %w%s; %s%s, or name it (%s:NAME=%s)",
		spec.Raw, id, tracefs.ErrEventExists, owner, del, force, d.Group, pt.String())
}

// checkRunningKernel refuses to add kprobes computed from a vmlinux that
// is not the running kernel's: its offsets would land elsewhere. perf
// checks the build-id the same way for -a.
func checkRunningKernel(t *dwarfres.File) error {
	want, have := runningBuildID(), t.BuildID()
	if want == "" || have == "" || want == have {
		return nil
	}
	return fmt.Errorf("%s is not the running kernel's debuginfo (build-id %s, running kernel %s): its offsets would put the probes in the wrong places; give the running kernel's vmlinux with -k, or use -n to see the definitions", t.Path, have, want)
}

// addErr reports a refused batch. A definition the kernel refused is
// shown with a caret under the byte the kernel blames, on stderr before
// the error; where(i) names definition i of the batch.
func addErr(err error, stderr io.Writer, where func(i int) string) error {
	var exists *tracefs.ExistsError
	if errors.As(err, &exists) {
		id := exists.Group + ":" + exists.Name
		return fmt.Errorf("%s: event %s already exists; nothing was added (delete it with -d %s, or rename the event)", where(exists.Index), id, id)
	}
	var werr *tracefs.WriteError
	if !errors.As(err, &werr) {
		return tracefsErr(err)
	}
	why := werr.Errno.Error()
	if werr.Errno == 0 {
		why = werr.Err.Error()
	}
	if werr.Log != nil {
		why += ": " + werr.Log.Reason
	}
	msg := fmt.Sprintf("%s: the kernel refused %v %q (%s)", where(werr.Index), werr.Kind, werr.Def, why)
	if werr.Log != nil {
		col := utf8.RuneCountInString(werr.Def[:min(werr.Pos, len(werr.Def))])
		fmt.Fprintf(stderr, "  %s\n  %s^ %s\n", werr.Def, strings.Repeat(" ", col), werr.Log.Reason)
		msg += fmt.Sprintf(" at column %d", col+1)
	}
	if werr.Rollback != nil {
		return fmt.Errorf("%s; removing what this command added failed, some of it remains: %w", msg, werr.Rollback)
	}
	if errors.Is(err, tracefs.ErrPermission) {
		return tracefsErr(fmt.Errorf("%s: %w", msg, err))
	}
	return errors.New(msg + "; nothing was added")
}

// runDelete implements -d: delete the kprobes and uprobes that match any
// of the patterns (perf's filter syntax: globs, "[a-z]", "!", "&", "|";
// [GROUP:]EVENT, a pattern without GROUP matching any group).
func runDelete(o *options, stderr io.Writer) error {
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
	hit, kinds := false, 0
	var firstErr error
	for _, kind := range []tracefs.Kind{tracefs.KProbe, tracefs.UProbe} {
		var names []string
		var err error
		if o.dryRun {
			names, err = matching(fsys, kind, match)
		} else {
			names, err = fsys.DeleteFunc(kind, match)
		}
		slices.Sort(names) // perf's order (a sorted strlist)
		for _, n := range names {
			hit = true
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
			return tracefsErr(err)
		}
	}
	if kinds == 0 {
		return tracefsErr(firstErr)
	}
	if !hit {
		return fmt.Errorf("%q does not hit any event", strings.Join(o.del, "|"))
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

// runList implements -l: the kprobes, then the uprobes, that match the
// filter, each mapped back to its source point with debuginfo (the
// kernel's for kprobes, each binary's for uprobes), in perf's format:
//
//	probe:vfs_read_L12   (on vfs_read:12@fs/read_write.c with f_mode buf)
//	probe_app:work_L7    (on work:7@fixtures/app_util.c in /tmp/app with name id)
func runList(o *options, stdout, stderr io.Writer) error {
	if o.exec != "" {
		return errors.New("-l lists the probes of every binary and of the kernel: it takes no -x")
	}
	flt, err := lazymatch.ParseFilter(o.list)
	if err != nil {
		return fmt.Errorf("-l %q: %w", o.list, err)
	}
	fsys, err := liveFS()
	if err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	dbg := newDebugCache(o, stderr)
	defer dbg.close()
	kinds := 0
	var firstErr error
	for _, kind := range []tracefs.Kind{tracefs.KProbe, tracefs.UProbe} {
		evs, err := fsys.List(kind)
		if err != nil {
			if !errors.Is(err, tracefs.ErrNotSupported) {
				return tracefsErr(err)
			}
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		kinds++
		// perf reads the listing into a sorted strlist, dropping
		// duplicate lines.
		slices.SortStableFunc(evs, func(a, b tracefs.Event) int { return strings.Compare(a.Raw, b.Raw) })
		evs = slices.CompactFunc(evs, func(a, b tracefs.Event) bool { return a.Raw == b.Raw })
		for _, e := range evs {
			if !e.Matches(flt.Match) {
				continue
			}
			fmt.Fprintln(w, dbg.line(e))
		}
	}
	if kinds == 0 {
		return tracefsErr(firstErr)
	}
	return nil
}

// debugCache opens the debuginfo -l maps probes back with, once each: the
// kernel's (-k or the running kernel's) and each probed binary's. What
// can't be opened is nil, and the probes show as listed.
type debugCache struct {
	o      *options
	stderr io.Writer // for the note that there is no kernel debuginfo; nil: no note
	kernel *dwarfres.File
	tried  bool
	bins   map[string]*dwarfres.File
}

func newDebugCache(o *options, stderr io.Writer) *debugCache {
	return &debugCache{o: o, stderr: stderr, bins: map[string]*dwarfres.File{}}
}

// line is perf's -l line for e.
func (c *debugCache) line(e tracefs.Event) string {
	tp, err := probegen.ParseTracePoint(e.Target, e.Kind == tracefs.UProbe, e.Type == 'r')
	point, module := e.Target, ""
	if err == nil {
		point, module = tp.Describe(c.get(tp)), tp.Module
	}
	var args []string
	for _, a := range e.Args {
		args = append(args, a.Name)
	}
	return probegen.EventLine(e.Group, e.Name, point, module, args)
}

func (c *debugCache) get(tp probegen.TracePoint) *dwarfres.File {
	if !tp.User {
		if tp.Module != "" {
			return nil // kernel modules: not yet supported
		}
		if !c.tried {
			c.tried = true
			k := options{vmlinux: c.o.vmlinux}
			f, err := openTarget(&k)
			if err != nil && c.stderr != nil && !c.o.quiet {
				fmt.Fprintf(c.stderr, "note: kprobes are shown as listed: %v\n", err)
			}
			c.kernel = f
		}
		return c.kernel
	}
	f, ok := c.bins[tp.Module]
	if !ok {
		f, _ = openTarget(&options{exec: tp.Module})
		c.bins[tp.Module] = f
	}
	return f
}

func (c *debugCache) close() {
	if c.kernel != nil {
		c.kernel.Close()
	}
	for _, f := range c.bins {
		if f != nil {
			f.Close()
		}
	}
}

// applyLine is one definition of an --apply file.
type applyLine struct {
	n    int // line number, from 1
	def  string
	kind tracefs.Kind
}

// runApply implements --apply FILE: add the definition lines of FILE (as
// -D prints them; blank lines and lines starting with '#' are skipped).
// Every line is checked before anything is written, kprobes and uprobes
// are added in one batch each, and if the uprobes are refused the kprobes
// just added are deleted again: all or nothing.
func runApply(o *options, stderr io.Writer) error {
	name := o.apply
	var r io.Reader = stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	} else {
		name = "<stdin>"
	}
	var lines []applyLine
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		t := strings.TrimLeft(l, " ")
		if t == "" || t[0] == '#' {
			continue
		}
		kind := tracefs.KProbe
		if f := strings.Fields(t); len(f) > 1 && strings.Contains(f[1], "/") {
			kind = tracefs.UProbe
		}
		if _, err := tracefs.ParseDefinition(kind, l); err != nil {
			return fmt.Errorf("%s:%d: %w; nothing was added", name, n, err)
		}
		lines = append(lines, applyLine{n, l, kind})
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if len(lines) == 0 {
		return fmt.Errorf("%s: no definitions", name)
	}
	byKind := map[tracefs.Kind][]applyLine{}
	for _, l := range lines {
		byKind[l.kind] = append(byKind[l.kind], l)
	}
	if o.dryRun {
		if !o.quiet {
			fmt.Fprintf(stderr, "Dry run: %d definitions of %s are valid; nothing written\n", len(lines), name)
		}
		return nil
	}
	fsys, err := liveFS()
	if err != nil {
		return err
	}
	var done []tracefs.Event // kprobes added, for the rollback
	var added []tracefs.Event
	for _, kind := range []tracefs.Kind{tracefs.KProbe, tracefs.UProbe} {
		ls := byKind[kind]
		if len(ls) == 0 {
			continue
		}
		defs := make([]string, len(ls))
		for i, l := range ls {
			defs[i] = l.def
		}
		add := fsys.Add
		if fsys.MultiProbe() {
			add = fsys.AddMulti
		}
		evs, err := add(kind, defs)
		if err != nil {
			err = addErr(err, stderr, func(i int) string { return fmt.Sprintf("%s:%d", name, ls[i].n) })
			if len(done) > 0 {
				ours := map[string]bool{}
				for _, e := range done {
					ours[e.PerfName()] = true
				}
				if _, rerr := fsys.DeleteFunc(tracefs.KProbe, func(e tracefs.Event) bool { return ours[e.PerfName()] }); rerr != nil {
					return fmt.Errorf("%w; and deleting the kprobes added before failed: %v", err, rerr)
				}
			}
			return err
		}
		if kind == tracefs.KProbe {
			done = evs
		}
		added = append(added, evs...)
	}
	if o.quiet {
		return nil
	}
	fmt.Fprintln(stderr, addedHeader(len(added)))
	dbg := newDebugCache(o, nil)
	defer dbg.close()
	for _, e := range added {
		fmt.Fprintln(stderr, dbg.line(e))
	}
	return nil
}
