package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

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

// addBatch adds a batch, appending probes to one event where the kernel
// can (tracefs rolls back the whole batch, kprobes and uprobes, if the
// kernel refuses one, ctx ends or perf races it).
func addBatch(ctx context.Context, fsys *tracefs.FS, b tracefs.Batch) ([]tracefs.Event, error) {
	b.Multi = fsys.MultiProbe()
	return fsys.AddBatch(ctx, b)
}

// tellStderr has fsys report on stderr a long wait for the lock and the
// batches of killed processes it rolls back.
func tellStderr(fsys *tracefs.FS, stderr io.Writer) {
	fsys.SetHooks(tracefs.Hooks{
		LockWait: func(path string, holder int) {
			fmt.Fprintf(stderr, "Waiting for the lock %s, held by %s (Ctrl-C stops waiting)\n", path, holderName(holder))
		},
		Recovered: func(r tracefs.Recovery) {
			fmt.Fprintln(stderr, recoveredMsg(r))
		},
	})
}

// holderName names the process holding the lock.
func holderName(pid int) string {
	if pid == 0 {
		return "another process"
	}
	return fmt.Sprintf("pid %d", pid)
}

// recoveredMsg reports the rollback of a killed dwprobe's batch, or a
// journal that could not be read: exactly what was removed, what was
// left and why, and whether the journal is kept.
func recoveredMsg(r tracefs.Recovery) string {
	if errors.Is(r.Err, tracefs.ErrJournalUnsafe) {
		return fmt.Sprintf("Ignored a batch journal: %v; it was not read or removed (remove it as root if no dwprobe of yours made it)", r.Err)
	}
	if r.Total == 0 && r.Err != nil {
		return fmt.Sprintf("Could not read the batch journal %s of dwprobe (pid %d), kept: %v", r.Path, r.PID, r.Err)
	}
	msg := fmt.Sprintf("Found an interrupted batch: dwprobe (pid %d) was killed while adding %d definitions (%d recorded as written)", r.PID, r.Total, r.Wrote)
	switch n := len(r.Removed); {
	case n == 0 && len(r.Unverified) == 0 && r.Err == nil:
		msg += "; none of them was left in the kernel"
	case n == 0:
	case n <= 3:
		msg += "; removed what it had added: " + strings.Join(r.Removed, " ")
	default:
		msg += fmt.Sprintf("; removed what it had added: %s … (%d events)", strings.Join(r.Removed[:3], " "), n)
	}
	if len(r.Unverified) > 0 {
		msg += fmt.Sprintf("; left %s: it was killed in the middle of writing it, and the kernel lists it alike whether that write happened or another tracer made the same event since (if it is not another's, remove it with dwprobe -d %s)", strings.Join(r.Unverified, " "), strings.Join(r.Unverified, " -d "))
	}
	if r.Err != nil {
		msg += fmt.Sprintf("; could not remove all of it: %v; the journal %s is kept and tried again", r.Err, r.Path)
	}
	return msg
}

// lockErr words the errors of the lock; nothing says what did not happen
// ("added", "deleted").
func lockErr(err error, nothing string) error {
	var lw *tracefs.LockWaitError
	switch {
	case errors.As(err, &lw):
		return fmt.Errorf("interrupted while waiting for the lock %s, held by %s; nothing was %s", lw.Path, holderName(lw.Holder), nothing)
	case errors.Is(err, tracefs.ErrLockUnsafe):
		return fmt.Errorf("%w; nothing was %s (dwprobe only uses a lock it made itself: remove that as root)", err, nothing)
	}
	return tracefsErr(err)
}

// stoppedErr words a batch that tracefs stopped and rolled back.
func stoppedErr(s *tracefs.StoppedError) error {
	var msg string
	if errors.Is(s, tracefs.ErrInterrupted) {
		msg = fmt.Sprintf("interrupted after writing %d of %d definitions", s.Written, s.Total)
	} else {
		msg = fmt.Sprintf("event %s was created or extended by another tracer at the same time (perf probe takes no lock)", s.Event)
	}
	if s.Rollback != nil {
		return fmt.Errorf("%s; removing what this command added failed, some of it remains: %w", msg, s.Rollback)
	}
	return errors.New(msg + "; removed what this command wrote, nothing was added")
}
