package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/listing"
	"github.com/dwprobe/dwprobe/tracefs"
)

// runAdd implements -a: resolve every probe as -D does, name the events
// as perf does against the events that exist, and write all of them in
// one batch, so a refused definition leaves nothing of this command.
func runAdd(ctx context.Context, o *options, t *probegen.Target, stdout, stderr io.Writer) error {
	rs, err := resolveAll(ctx, o, t, o.adds, stderr)
	if err != nil {
		if o.json {
			// Nothing is added: only the failures are reported.
			if werr := writeSpecsJSON(stdout, "add", o.dryRun, failedOnly(rs)); werr != nil {
				return werr
			}
		}
		return nothingAdded(err)
	}
	return addResolved(ctx, o, rs, func() error { return checkRunning(tracefs.KProbe, t.Built()) }, stdout, stderr)
}

// addResolved writes the resolved probes rs (-a), after checkKernel says
// the kprobes' target is the running kernel.
func addResolved(ctx context.Context, o *options, rs []resolved, checkKernel func() error, stdout, stderr io.Writer) error {
	kind := tracefs.KProbe
	if o.exec != "" {
		kind = tracefs.UProbe
	}
	if o.dryRun {
		return dryRunAdd(o, kind, rs, stdout, stderr)
	}
	if err := refuseUnsafe(rs); err != nil {
		return err
	}
	fsys, err := liveFS()
	if err != nil {
		return err
	}
	if kind == tracefs.KProbe {
		if err := checkKernel(); err != nil {
			return err
		}
	}
	// The names are chosen under the lock, against the listing of that
	// moment: another dwprobe -f can't take the same numbered name.
	multi := fsys.MultiProbe()
	var evs []tracefs.Event
	build := func(listed []tracefs.Event) ([]tracefs.Event, error) {
		if err := nameEvents(rs, listed, o.force, multi); err != nil {
			return nil, err
		}
		if evs, err = definitions(rs); err != nil {
			return nil, err
		}
		return evs, checkDialect(fsys.Dialect(), evs)
	}
	tellStderr(fsys, stderr)
	if _, err := addBatch(ctx, fsys, tracefs.Batch{Kind: kind, Build: build}); err != nil {
		return addErr(err, stderr, func(i int) string { return fmt.Sprintf("definition %d of %d", i+1, len(evs)) })
	}
	recordAdded(fsys, evs)
	if o.json {
		if err := writeSpecsJSON(stdout, "add", false, rs); err != nil {
			return err
		}
	}
	if o.quiet {
		return nil
	}
	last := rs[len(rs)-1].probes()
	d := last[len(last)-1]
	fmt.Fprintln(stderr, addedHeader(len(evs)))
	showAdded(o, rs, stderr)
	fmt.Fprintf(stderr, "\nYou can now use it in all perf tools, such as:\n\n")
	fmt.Fprintf(stderr, "\tperf record -e %s:%s -aR sleep 1\n\n", d.Group, d.Name)
	fmt.Fprintf(stderr, "or enable it in tracefs:\n\n")
	fmt.Fprintf(stderr, "\techo 1 > %s\n\n", filepath.Join(fsys.Root(), "events", d.Group, d.Name, "enable"))
	return nil
}

// nothingAdded says of a keep-going run's failure that, all or nothing,
// the probes that resolved were not added either.
func nothingAdded(err error) error {
	var se *specsError
	if errors.As(err, &se) {
		se.verb = "nothing was added"
	}
	return err
}

// dryRunAdd prints what -a would write, named against the events that
// exist if tracefs can be read.
func dryRunAdd(o *options, kind tracefs.Kind, rs []resolved, stdout, stderr io.Writer) error {
	fsys, err := liveFS()
	var listed []tracefs.Event
	if err == nil {
		listed, err = fsys.List(kind)
	}
	if err != nil {
		// A dry run needs no tracefs: names are then not checked
		// against the running kernel's events.
		if !o.quiet {
			fmt.Fprintf(stderr, "note: dry run without the %s events of tracefs (%v): names not checked against existing events\n", kind, err)
		}
		fsys, listed = nil, nil
	}
	multi := fsys == nil || fsys.MultiProbe()
	if err := nameEvents(rs, listed, o.force, multi); err != nil {
		return err
	}
	evs, err := definitions(rs)
	if err != nil {
		return err
	}
	if o.json {
		err = writeSpecsJSON(stdout, "add", true, rs)
	} else {
		for _, d := range evs {
			fmt.Fprintln(stdout, d)
		}
	}
	if !o.quiet && err == nil {
		fmt.Fprintf(stderr, "Dry run: nothing written to %s_events; it would add:\n", kind)
		showAdded(o, rs, stderr)
	}
	return err
}

// definitions are the definitions of rs, in order.
func definitions(rs []resolved) ([]tracefs.Event, error) {
	var evs []tracefs.Event
	for _, r := range rs {
		evs = append(evs, r.defs()...)
	}
	if len(evs) == 0 {
		return nil, errorWith(dwarfres.ErrNotFound, "no probe point to add")
	}
	return evs, nil
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
	module := o.exe
	for _, r := range rs {
		point := listing.SpecPoint(&r.spec.Point)
		var args []string
		for _, a := range r.spec.Args {
			args = append(args, probegen.PerfArg(a))
		}
		for _, p := range r.probes() {
			if o.module != "" {
				module = p.Attach.Module
			}
			fmt.Fprintln(w, listing.EventLine(p.Group, p.Name, point, module, args))
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
	namer := grammar.NewNamer(names)
	for _, r := range rs {
		var used []string
		for j := range r.probes() {
			d := &r.res.Probes[j]
			pick := namer.Peek
			if !multi {
				pick = namer.Next
			}
			name, err := pick(d.Name, force || j > 0)
			if errors.Is(err, tracefs.ErrEventExists) {
				return conflictErr(r.spec, d, listed, namer)
			}
			if err != nil {
				return fmt.Errorf("probe %q: %w", r.spec.Raw, err)
			}
			d.Name = name
			used = append(used, name)
		}
		for _, n := range used {
			namer.Add(n)
		}
	}
	return nil
}

// conflictErr explains an event name that is taken, with the ways out.
func conflictErr(spec *grammar.Spec, d *answer.Probe, listed []tracefs.Event, namer *grammar.Namer) error {
	id := d.Group + ":" + d.Name
	owner, del := "", ""
	for _, e := range listed {
		if e.Name == d.Name {
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
	if alt, err := namer.Peek(d.Name, true); err == nil {
		force = fmt.Sprintf("add it as %s:%s with -f", d.Group, alt)
	}
	pt := spec.Point
	pt.Group, pt.Event = "", ""
	return fmt.Errorf("probe %q: %s: %w%s; %s%s, or name it (%s:NAME=%s)",
		spec.Raw, id, tracefs.ErrEventExists, owner, del, force, d.Group, pt.String())
}

// checkDialect refuses, before anything is written, a type or register
// the running kernel's README and machine do not have (the vmlinux's
// version was checked while resolving).
func checkDialect(d tracefs.Dialect, evs []tracefs.Event) error {
	for _, e := range evs {
		if err := d.Check(e); err != nil {
			return fmt.Errorf("%s: %w; nothing was added", e, err)
		}
	}
	return nil
}

// checkRunningKernel refuses to add kprobes computed from a vmlinux that
// is not the running kernel's: its offsets would land elsewhere. perf
// checks the build-id the same way for -a.
// checkRunning refuses kprobes made from another kernel's debuginfo, or
// from a module of another release.
func checkRunning(kind tracefs.Kind, t probegen.Built) error {
	switch {
	case kind != tracefs.KProbe:
		return nil
	case t.IsModule:
		return checkRunningModule(t)
	}
	return checkRunningKernel(t)
}

func checkRunningKernel(t probegen.Built) error {
	want, have := runningBuildID(), t.BuildID
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
		return errorWith(tracefs.ErrEventExists, "%s: event %s already exists; nothing was added (delete it with -d %s, or rename the event)", where(exists.Index), id, id)
	}
	var taken *tracefs.TracepointTakenError
	if errors.As(err, &taken) {
		by := strings.Replace(taken.By, "/", ":", 1)
		return errorWith(tracefs.ErrTracepointTaken, "%s: tracepoint %s already has the probe event %s, and this kernel (before Linux 6.15) takes one per tracepoint; nothing was added (put the arguments in one event, or delete %s with -d %s)", where(taken.Index), taken.Tracepoint, by, by, by)
	}
	var stopped *tracefs.StoppedError
	if errors.As(err, &stopped) {
		return stoppedErr(stopped)
	}
	var werr *tracefs.WriteError
	if !errors.As(err, &werr) {
		return lockErr(err, "added")
	}
	why := werr.Errno.Error()
	switch {
	case errors.Is(werr, tracefs.ErrEventTableFull):
		why = "no such device: the kernel's table of trace event ids is full, all 65,535 in use; delete some events first"
	case werr.Errno == 0:
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
	return errorWith(tracefs.ErrRejected, "%s; nothing was added", msg)
}

// refuseUnsafe refuses to write a batch holding a probe whose
// registration is known to crash the kernel (answer.NoteUnsafe: an
// oops is worse than any answer); -D and -n still show it.
func refuseUnsafe(rs []resolved) error {
	for _, r := range rs {
		if r.res == nil {
			continue
		}
		for _, n := range r.res.Notes {
			if n.Kind == answer.NoteUnsafe {
				return errorWith(grammar.ErrNotSupported, "%s: not added, nothing was: %s", r.in.raw, n.Text)
			}
		}
	}
	return nil
}
