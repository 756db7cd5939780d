package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/dwprobe/dwprobe/tracefs"
)

// The commands that change or read the running kernel's probes: -a (and a
// PROBE without option, add.go), -d (delete.go), -l (list.go) and --apply
// (apply.go). Their output follows perf probe 6.1 (builtin-probe.c,
// probe-event.c): what perf prints with pr_info goes to stderr, listings
// to stdout.

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

// addBatch adds evs in one batch, appending probes to one event where the
// kernel can (tracefs rolls back the whole batch, kprobes and uprobes, if
// the kernel refuses one).
func addBatch(fsys *tracefs.FS, evs []tracefs.Event) ([]tracefs.Event, error) {
	if fsys.MultiProbe() {
		return fsys.AddMulti(evs)
	}
	return fsys.Add(evs)
}
