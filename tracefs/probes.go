package tracefs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/dwprobe/dwprobe/lazymatch"
)

// eventsFile returns the path of kind's file, checking that it exists.
func (t *FS) eventsFile(kind Kind) (string, error) {
	name, err := kind.file()
	if err != nil {
		return "", err
	}
	path := filepath.Join(t.root, name)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			config := strings.ToUpper(kind.String())
			if kind == FProbe || kind == TProbe {
				config = "FPROBE" // and DYNAMIC_EVENTS
			}
			return "", fmt.Errorf("%w: %s has no %s (the kernel is built without CONFIG_%s_EVENTS)",
				ErrNotSupported, t.root, name, config)
		}
		return "", permission(err)
	}
	return path, nil
}

// permission wraps err with ErrPermission if it is EACCES or EPERM.
func permission(err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("%w: %w", ErrPermission, err)
	}
	return err
}

// List returns the probes of kind, in the kernel's order and as the kernel
// prints them. Errors wrap ErrNotSupported, ErrPermission or ErrBadListing.
func (t *FS) List(kind Kind) ([]Event, error) {
	path, err := t.eventsFile(kind)
	if err != nil {
		return nil, err
	}
	return t.list(kind, path)
}

func (t *FS) list(kind Kind, path string) ([]Event, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, permission(err)
	}
	return parseListing(kind, string(b))
}

// exists reports whether Add would refuse GROUP/EVENT of kind with
// ErrEventExists: the name is in kind's listing, or events/GROUP/EVENT
// exists (kprobes, uprobes, tracepoints and every other trace event share
// that namespace). The answer can be stale by the time Add runs; Add
// checks again under its lock.
func (t *FS) exists(kind Kind, group, event string) (bool, error) {
	if !isName(group, true) || !isName(event, false) {
		return false, fmt.Errorf("%w: %q/%q is not a valid event name", ErrBadDefinition, group, event)
	}
	evs, err := t.List(kind)
	if err != nil {
		return false, err
	}
	return t.taken(evs, group, event), nil
}

func (t *FS) taken(listed []Event, group, event string) bool {
	for _, e := range listed {
		if e.Group == group && e.Name == event {
			return true
		}
	}
	_, err := os.Lstat(filepath.Join(t.root, "events", group, event))
	return err == nil
}

// Add writes evs, kprobes and uprobes alike, and returns them as the
// kernel lists them afterwards, in the order of evs. It is AddBatch with
// Batch{Events: evs} and no end to the wait for the lock.
//
// Every event is checked first (Validate) and the whole batch refused if
// one fails (ErrBadDefinition) or if a GROUP/EVENT is taken or named twice
// (ErrEventExists); nothing is written then. The check of the names and
// the writes happen under the exclusive lock, so concurrent dwprobe
// processes cannot take the same name. Each event is one write(2) to its
// kind's file opened O_WRONLY|O_APPEND: the file is never truncated, which
// would delete every probe of the kind.
//
// If the kernel refuses event i, Add deletes the events of the batch
// written before it again, of both kinds (last first, with
// "-:GROUP/EVENT"), and returns a *WriteError with the kernel's error_log
// entry for event i. error_log is not cleared: it is shared by every
// tracing user, so the entry is found by comparing the log before and
// after the batch.
func (t *FS) Add(evs []Event) ([]Event, error) {
	return t.AddBatch(context.Background(), Batch{Events: evs})
}

// AddMulti is Add for events with several probes: events of the batch
// that name the same GROUP/EVENT (and kind) make one event, the first
// creating it and the others appended to it, as the kernel does since
// Linux 5.6 (MultiProbe). The GROUP/EVENT must still be new to the
// kernel, so an event of somebody else's is never extended, and the
// rollback of a refused batch deletes each event once.
func (t *FS) AddMulti(evs []Event) ([]Event, error) {
	return t.AddBatch(context.Background(), Batch{Events: evs, Multi: true})
}

// Batch is what AddBatch adds.
type Batch struct {
	// Events are the definitions, unless Build is set.
	Events []Event
	// Multi makes events that share a GROUP/EVENT one event (AddMulti).
	Multi bool
	// Build, if set, makes the definitions under the lock from the
	// kernel's listing of Kind, so that names chosen against it (perf
	// probe's numbered names) can't be taken by another dwprobe before
	// they are written. Its error is returned as it is.
	Build func(listed []Event) ([]Event, error)
	Kind  Kind
}

// AddBatch is Add and AddMulti, with a context: if ctx ends while waiting
// for the lock, nothing is written (a *LockWaitError); if it ends while
// the batch is written, or before AddBatch returns, what was written is
// deleted again (a *StoppedError wrapping ErrInterrupted). The same
// rollback follows if another tracer that takes no lock (perf probe)
// creates one of the batch's events between the check and its write, or
// extends one of them meanwhile: each event is checked again right before
// its first write and the kernel's count of its probes after the last
// one (a *StoppedError wrapping ErrContested). While the batch is
// written a journal next to the lock lists it, so that if this process is
// killed the next one to take the lock rolls it back (Hooks.Recovered).
func (t *FS) AddBatch(ctx context.Context, spec Batch) ([]Event, error) {
	if spec.Build == nil {
		if _, err := t.check(spec.Events, spec.Multi); err != nil || len(spec.Events) == 0 {
			return nil, err
		}
	} else if _, err := t.eventsFile(spec.Kind); err != nil {
		return nil, err
	}
	unlock, err := t.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	b, listed, err := t.locked(spec)
	if err != nil || b == nil {
		return nil, err
	}
	for _, id := range b.ids {
		ev := b.evs[b.at[id]]
		if t.taken(listed[ev.Kind], ev.Group, ev.Name) {
			return nil, &ExistsError{Kind: ev.Kind, Index: b.at[id], Group: ev.Group, Name: ev.Name}
		}
	}
	if err := t.tracepointsFree(b.evs, listed[TProbe]); err != nil {
		return nil, err
	}
	j, err := t.writeJournal(b.evs)
	if err != nil {
		return nil, err
	}
	defer j.remove()
	if err := t.writeBatch(ctx, b, j); err != nil {
		return nil, err
	}
	if err := t.settle(ctx, b); err != nil {
		return nil, err
	}
	return b.evs, nil
}

// locked makes and checks the batch of spec under the lock, and lists
// the kinds it goes to; a nil batch is an empty one.
func (t *FS) locked(spec Batch) (*batch, map[Kind][]Event, error) {
	listed := map[Kind][]Event{}
	evs := spec.Events
	if spec.Build != nil {
		path, err := t.eventsFile(spec.Kind)
		if err != nil {
			return nil, nil, err
		}
		if listed[spec.Kind], err = t.list(spec.Kind, path); err != nil {
			return nil, nil, err
		}
		if evs, err = spec.Build(listed[spec.Kind]); err != nil {
			return nil, nil, err
		}
	}
	b, err := t.check(evs, spec.Multi)
	if err != nil || len(evs) == 0 {
		return nil, nil, err
	}
	for kind, path := range b.paths {
		if _, ok := listed[kind]; !ok {
			if listed[kind], err = t.list(kind, path); err != nil {
				return nil, nil, err
			}
		}
	}
	return b, listed, nil
}

// MultiProbe reports whether the kernel appends a probe written under an
// existing GROUP/EVENT to that event instead of refusing it: its README
// says "Create/append" (Linux 5.6 and later), which is how perf probe
// decides. It is false if the README can't be read.
func (t *FS) MultiProbe() bool {
	b, err := os.ReadFile(filepath.Join(t.root, "README"))
	return err == nil && strings.Contains(string(b), "Create/append/")
}

// batch is a checked Add: the events, the first index of each distinct
// GROUP/EVENT in order of first use, and the events file of each kind.
type batch struct {
	evs   []Event
	at    map[string]int
	ids   []string
	paths map[Kind]string
}

// check validates evs for add and finds the files they go to.
func (t *FS) check(evs []Event, multi bool) (*batch, error) {
	b := &batch{evs: slices.Clone(evs), at: make(map[string]int, len(evs)), paths: map[Kind]string{}}
	for i, ev := range evs {
		if err := ev.Validate(); err != nil {
			return nil, fmt.Errorf("%v definition %d %q: %w", ev.Kind, i, ev.text(), err)
		}
		id := ev.Group + "/" + ev.Name
		if j, ok := b.at[id]; ok && (!multi || evs[j].Kind != ev.Kind) {
			return nil, fmt.Errorf("%v definitions %d and %d are both %s: %w", ev.Kind, j, i, id, ErrEventExists)
		} else if !ok {
			b.at[id] = i
			b.ids = append(b.ids, id)
		}
		if _, ok := b.paths[ev.Kind]; !ok {
			path, err := t.eventsFile(ev.Kind)
			if err != nil {
				return nil, err
			}
			b.paths[ev.Kind] = path
		}
	}
	return b, nil
}

// writeBatch writes the events of b in order, and on a refusal, an ended
// ctx or an event name taken meanwhile rolls back what the batch wrote.
func (t *FS) writeBatch(ctx context.Context, b *batch, j *journal) error {
	before := t.errorLog()
	for i, ev := range b.evs {
		if err := ctx.Err(); err != nil {
			return t.stop(b, i, "", fmt.Errorf("%w: %w", ErrInterrupted, err))
		}
		// The check under the lock does not stop perf: look again right
		// before creating the event (its directory appears with it).
		if b.at[ev.Group+"/"+ev.Name] == i && t.taken(nil, ev.Group, ev.Name) {
			return t.stop(b, i, ev.PerfName(), fmt.Errorf("%w: %w: %s was created by another tracer while this batch was written", ErrContested, ErrEventExists, ev.PerfName()))
		}
		if err := j.writing(i, ev); err != nil {
			_, rb := t.undo(b.paths, b.evs[:i], true)
			return errors.Join(err, rb)
		}
		if err := t.writeFile(b.paths[ev.Kind], appendFlag, []byte(ev.String()+"\n")); err != nil {
			def := ev.text()
			werr := &WriteError{Kind: ev.Kind, Index: i, Def: def, Err: err, Pos: -1}
			errors.As(err, &werr.Errno)
			if e := findLogEntry(before, t.errorLog(), def); e != nil {
				werr.Log, werr.Pos = e, mapPos(def, e.Pos)
			}
			// Delete every event the batch created, including the one
			// this definition would have been appended to.
			_, werr.Rollback = t.undo(b.paths, b.evs[:i], true)
			return werr
		}
		if err := j.wrote(i, ev, t.eventID); err != nil {
			// Unrecorded, a kill would leave it: undo the batch now.
			_, rb := t.undo(b.paths, b.evs[:i+1], true)
			return errors.Join(err, rb)
		}
	}
	return nil
}

// stop rolls back the first written definitions of b and says why.
func (t *FS) stop(b *batch, written int, event string, why error) error {
	_, err := t.undo(b.paths, b.evs[:written], true)
	return &StoppedError{Written: written, Total: len(b.evs), Event: event, Err: why, Rollback: err}
}

// settle checks, once b is written, that each of its events holds b's
// probes only (perf, taking no lock, may have appended to one, or created
// one just before b appended to it) and that ctx has not ended, rolling b
// back if not; then it puts the kernel's rendering in b. A listing that
// fails now only costs the rendering.
func (t *FS) settle(ctx context.Context, b *batch) error {
	listed := map[Kind][]Event{}
	for kind, path := range b.paths {
		if l, err := t.list(kind, path); err == nil {
			listed[kind] = l
		}
	}
	ours := make(map[string]int, len(b.ids))
	for _, ev := range b.evs {
		ours[ev.Group+"/"+ev.Name]++
	}
	// Counted once: a scan of the listing per event is quadratic in a
	// batch of thousands.
	counts := map[Kind]map[string]int{}
	for kind, l := range listed {
		counts[kind] = map[string]int{}
		for _, e := range l {
			counts[kind][e.Group+"/"+e.Name]++
		}
	}
	for _, id := range b.ids {
		ev := b.evs[b.at[id]]
		c, ok := counts[ev.Kind]
		if n := c[id]; ok && n > ours[id] {
			return t.stop(b, len(b.evs), ev.PerfName(), fmt.Errorf("%w: %w: %s holds %d probes, %d of them this batch's: another tracer added to it at the same time",
				ErrContested, ErrEventExists, ev.PerfName(), n, ours[id]))
		}
	}
	if err := ctx.Err(); err != nil {
		return t.stop(b, len(b.evs), "", fmt.Errorf("%w: %w", ErrInterrupted, err))
	}
	t.rendered(b, listed)
	return nil
}

// rendered replaces the events of b with the kernel's rendering (offsets
// in full, arguments named), the n-th probe of an event for its n-th
// definition.
func (t *FS) rendered(b *batch, listing map[Kind][]Event) {
	for kind, listed := range listing {
		byID := make(map[string][]Event, len(b.ids))
		for _, l := range listed {
			byID[l.Group+"/"+l.Name] = append(byID[l.Group+"/"+l.Name], l)
		}
		seen := make(map[string]int, len(b.ids))
		for i, ev := range b.evs {
			if ev.Kind != kind {
				continue
			}
			id := ev.Group + "/" + ev.Name
			if n := seen[id]; n < len(byID[id]) {
				b.evs[i] = byID[id][n]
			}
			seen[id]++
		}
	}
}

// deleteCommand is the kernel's "-:GROUP/EVENT", which deletes every probe
// of that event.
func deleteCommand(e Event) []byte {
	return []byte("-:" + e.Group + "/" + e.Name + "\n")
}

// errorLog returns the entries of error_log, or nil if it can't be read
// (kernels before 5.2 have none).
func (t *FS) errorLog() []LogEntry {
	b, err := os.ReadFile(filepath.Join(t.root, "error_log"))
	if err != nil {
		return nil
	}
	return parseErrorLog(string(b))
}

// Delete deletes the probes of kind that match one of patterns, and returns
// their names as "GROUP:EVENT" in listing order. A pattern is
// [GROUP:]EVENT with perf's globs ('*', '?', character classes "[abc]",
// "[a-z]", "[!a]", '\' to escape), matched as perf probe -d does: a
// pattern without ':' matches the event in any group. See DeleteFunc for
// the rest. Errors wrap ErrNoMatch if nothing matched.
func (t *FS) Delete(kind Kind, patterns []string) ([]string, error) {
	deleted, err := t.DeleteFunc(kind, func(e Event) bool {
		for _, p := range patterns {
			if e.Matches(func(s string) bool { return lazymatch.Glob(s, p) }) {
				return true
			}
		}
		return false
	})
	if errors.Is(err, ErrNoMatch) {
		return nil, fmt.Errorf("%v events matching %q: %w", kind, patterns, ErrNoMatch)
	}
	return deleted, err
}

// DeleteFunc deletes every event of kind for which match returns true
// (each event once, even if the kernel lists several probes under its
// name) and returns their names as "GROUP:EVENT". An event that is enabled
// through its events/GROUP/EVENT/enable file is disabled first (the kernel
// refuses to delete an enabled event with EBUSY). It stops at the first
// failure and returns what it deleted until then. Errors wrap ErrNoMatch if
// match accepted nothing.
func (t *FS) DeleteFunc(kind Kind, match func(Event) bool) ([]string, error) {
	return t.DeleteFuncContext(context.Background(), kind, match)
}

// DeleteFuncContext is DeleteFunc with an end to the wait for the lock: if
// ctx ends first, nothing is deleted (a *LockWaitError). Once deleting
// has begun it goes on to the end.
func (t *FS) DeleteFuncContext(ctx context.Context, kind Kind, match func(Event) bool) ([]string, error) {
	path, err := t.eventsFile(kind)
	if err != nil {
		return nil, err
	}
	listed, unlock, err := t.lockedList(ctx, kind, path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var victims []Event
	seen := make(map[string]bool)
	for _, e := range listed {
		if id := e.PerfName(); !seen[id] && match(e) {
			seen[id] = true
			victims = append(victims, e)
		}
	}
	if len(victims) == 0 {
		return nil, fmt.Errorf("%v events: %w", kind, ErrNoMatch)
	}
	var deleted []string
	for _, e := range victims {
		if err := t.disable(e.Group, e.Name); err != nil {
			return deleted, err
		}
		if err := t.writeFile(path, appendFlag, deleteCommand(e)); err != nil {
			if errors.Is(err, syscall.EBUSY) {
				err = fmt.Errorf("%w (in use: by perf record or another tracer?)", err)
			}
			return deleted, fmt.Errorf("deleting %v %s: %w", kind, e.PerfName(), permission(err))
		}
		deleted = append(deleted, e.PerfName())
	}
	return deleted, nil
}

// enablePath returns events/GROUP/EVENT/enable, refusing names that could
// leave the events directory.
func (t *FS) enablePath(group, event string) (string, error) {
	if !isName(group, true) || !isName(event, false) {
		return "", fmt.Errorf("%w: %q/%q is not a valid event name", ErrNoEvent, group, event)
	}
	return filepath.Join(t.root, "events", group, event, "enable"), nil
}

// disable writes 0 to the event's enable file if it reads 1 ("1" or "1*",
// the kernel's soft-enabled mark). A missing enable file is not an error.
func (t *FS) disable(group, event string) error {
	path, err := t.enablePath(group, event)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return permission(err)
	}
	if len(b) == 0 || b[0] != '1' {
		return nil
	}
	if err := t.writeFile(path, replaceFlag, []byte("0\n")); err != nil {
		return fmt.Errorf("disabling %s:%s: %w", group, event, permission(err))
	}
	return nil
}

// Enable turns tracing of GROUP/EVENT on or off through its enable file.
// Errors wrap ErrNoEvent if there is no such event, or ErrPermission.
func (t *FS) Enable(group, event string, on bool) error {
	path, err := t.enablePath(group, event)
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %s:%s", ErrNoEvent, group, event)
		}
		return permission(err)
	}
	v := "0\n"
	if on {
		v = "1\n"
	}
	if err := t.writeFile(path, replaceFlag, []byte(v)); err != nil {
		return fmt.Errorf("enabling %s:%s: %w", group, event, permission(err))
	}
	return nil
}

// lockedList takes the lock that serializes dwprobe processes and reads the
// listing of kind under it; the caller runs unlock when done.
func (t *FS) lockedList(ctx context.Context, kind Kind, path string) ([]Event, func(), error) {
	unlock, err := t.lock(ctx)
	if err != nil {
		return nil, nil, err
	}
	listed, err := t.list(kind, path)
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return listed, unlock, nil
}

// tracepointsFree refuses a t: event of evs on a tracepoint that a listed
// t: event, or an earlier one of evs, already probes, where the kernel
// takes one event per tracepoint (it refuses the second with EEXIST and no
// error_log entry).
func (t *FS) tracepointsFree(evs, listed []Event) error {
	owner := map[string]string{}
	for _, e := range listed {
		owner[e.Target] = e.Group + "/" + e.Name
	}
	checked := false
	for i, ev := range evs {
		if ev.Kind != TProbe {
			continue
		}
		id := ev.Group + "/" + ev.Name
		by, ok := owner[ev.Target]
		if !ok || by == id {
			owner[ev.Target] = id
			continue
		}
		if !checked {
			if d := t.Dialect(); d.Has(SharedTracepoints) {
				return nil
			}
			checked = true
		}
		return &TracepointTakenError{Index: i, Group: ev.Group, Name: ev.Name, Tracepoint: ev.Target, By: by}
	}
	return nil
}
