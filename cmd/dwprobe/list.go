package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/listing"
	"github.com/dwprobe/dwprobe/tracefs"
)

// runList implements -l: the kprobes, then the uprobes, that match the
// filter, each mapped back to its source point with debuginfo (the
// kernel's for kprobes, each binary's for uprobes), in perf's format:
//
//	probe:vfs_read_L12   (on vfs_read:12@fs/read_write.c with f_mode buf)
//	probe_app:work_L7    (on work:7@fixtures/app_util.c in /tmp/app with name id)
func runList(o *options, stdout, stderr io.Writer) error {
	if o.exec != "" {
		return &usageError{errors.New("-l lists the probes of every binary and of the kernel: it takes no -x")}
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
	changed := newChangedBinaries(fsys)
	kinds := 0
	var firstErr error
	for _, kind := range tracefs.Kinds {
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
			if err := dbg.print(w, e); err != nil {
				return err
			}
			changed.check(e)
		}
	}
	if w.Flush(); !o.quiet {
		changed.write(stderr)
	}
	if kinds == 0 {
		return tracefsErr(firstErr)
	}
	return nil
}

// openDebuginfo opens a kernel's or binary's debuginfo (or symbols) for
// -l; tests count the calls.
var openDebuginfo = func(o *options) (*probegen.Target, error) {
	o.symbolsOnly = true
	return openTarget(o)
}

// debugCache opens the debuginfo -l maps probes back with, once each: the
// kernel's (-k or the running kernel's) and each probed binary's, each
// with one Mapper, so a listing costs one open per binary and one
// lookup per probe. What can't be opened is nil, and the probes show as
// listed.
type debugCache struct {
	o      *options
	stderr io.Writer // for the note that there is no kernel debuginfo; nil: no note
	kernel *listing.Mapper
	tried  bool
	bins   map[string]*listing.Mapper
	mods   map[string]*listing.Mapper // by module name
	opened []*probegen.Target         // closed at the end
}

func newDebugCache(o *options, stderr io.Writer) *debugCache {
	return &debugCache{o: o, stderr: stderr, bins: map[string]*listing.Mapper{}, mods: map[string]*listing.Mapper{}}
}

// mapper is a Mapper of tgt, kept open until close.
func (c *debugCache) mapper(tgt *probegen.Target) *listing.Mapper {
	c.opened = append(c.opened, tgt)
	return tgt.Mapper()
}

// print writes e's -l line, or its JSON object with --json.
func (c *debugCache) print(w io.Writer, e tracefs.Event) error {
	if !c.o.json {
		_, err := fmt.Fprintln(w, c.line(e))
		return err
	}
	point, module := c.point(e)
	return writeJSON(w, eventJSON(e, point, module))
}

// point is e's source point as -l shows it, and the binary (or kernel
// module) it is in.
func (c *debugCache) point(e tracefs.Event) (point, module string) {
	if e.Kind == tracefs.FProbe || e.Kind == tracefs.TProbe {
		return e.Target, "" // a function or tracepoint by name: nothing to map
	}
	tp, err := listing.ParseTracePoint(e.Target, e.Kind == tracefs.UProbe, e.Type == 'r')
	if err != nil {
		return e.Target, ""
	}
	return c.get(tp).Describe(tp), tp.Module
}

// line is perf's -l line for e.
func (c *debugCache) line(e tracefs.Event) string {
	point, module := c.point(e)
	var args []string
	for _, a := range e.Args {
		args = append(args, a.Name)
	}
	return listing.EventLine(e.Group, e.Name, point, module, args)
}

// get is the mapper for tp's kernel or binary, opened on first use.
func (c *debugCache) get(tp listing.TracePoint) *listing.Mapper {
	if !tp.User {
		if tp.Module != "" {
			return c.module(tp.Module)
		}
		if !c.tried {
			c.tried = true
			c.kernel = c.openKernel()
		}
		return c.kernel
	}
	m, ok := c.bins[tp.Module]
	if !ok {
		m = c.openBinary(tp.Module)
		c.bins[tp.Module] = m
	}
	return m
}

func (c *debugCache) openKernel() *listing.Mapper {
	f, err := openDebuginfo(&options{vmlinux: c.o.vmlinux, symfs: c.o.symfs})
	if err != nil {
		if c.stderr != nil && !c.o.quiet {
			fmt.Fprintf(c.stderr, "note: kprobes are shown as listed: %v\n", err)
		}
		return nil
	}
	return c.mapper(f)
}

// openBinary opens a probed binary's debuginfo, once per listing: the
// place to check that the binary is still the one the probes were added
// to.
func (c *debugCache) openBinary(path string) *listing.Mapper {
	f, err := openDebuginfo(&options{exec: path})
	if err != nil {
		return nil
	}
	return c.mapper(f)
}

// module is the mapper of the module name of the kernel listed (-k's
// release, else the running kernel's), found and opened as -m NAME does,
// once per listing; nil, with a note, when it can't be opened.
func (c *debugCache) module(name string) *listing.Mapper {
	m, ok := c.mods[name]
	if ok {
		return m
	}
	f, err := openDebuginfo(&options{module: name, vmlinux: c.o.vmlinux, symfs: c.o.symfs})
	if err == nil {
		m = c.mapper(f)
	} else if c.stderr != nil && !c.o.quiet {
		fmt.Fprintf(c.stderr, "note: the kprobes on module %s are shown as listed: %v\n", name, err)
	}
	c.mods[name] = m
	return m
}

func (c *debugCache) close() {
	for _, tgt := range c.opened {
		tgt.Close()
	}
}
