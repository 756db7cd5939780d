package tracefs

import (
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
			return "", fmt.Errorf("%w: %s has no %s (the kernel is built without CONFIG_%s_EVENTS)",
				ErrNotSupported, t.root, name, strings.ToUpper(kind.String()))
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
// kernel lists them afterwards, in the order of evs.
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
	return t.add(evs, false)
}

// AddMulti is Add for events with several probes: events of the batch
// that name the same GROUP/EVENT (and kind) make one event, the first
// creating it and the others appended to it, as the kernel does since
// Linux 5.6 (MultiProbe). The GROUP/EVENT must still be new to the
// kernel, so an event of somebody else's is never extended, and the
// rollback of a refused batch deletes each event once.
func (t *FS) AddMulti(evs []Event) ([]Event, error) {
	return t.add(evs, true)
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

func (t *FS) add(evs []Event, multi bool) ([]Event, error) {
	b, err := t.check(evs, multi)
	if err != nil || len(evs) == 0 {
		return nil, err
	}
	unlock, err := t.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	listed := map[Kind][]Event{}
	for kind, path := range b.paths {
		if listed[kind], err = t.list(kind, path); err != nil {
			return nil, err
		}
	}
	for _, id := range b.ids {
		ev := b.evs[b.at[id]]
		if t.taken(listed[ev.Kind], ev.Group, ev.Name) {
			return nil, &ExistsError{Kind: ev.Kind, Index: b.at[id], Group: ev.Group, Name: ev.Name}
		}
	}
	if err := t.writeBatch(b); err != nil {
		return nil, err
	}
	t.rendered(b)
	return b.evs, nil
}

// writeBatch writes the events of b in order, and on a refusal rolls back what
// the batch created.
func (t *FS) writeBatch(b *batch) error {
	before := t.errorLog()
	for i, ev := range b.evs {
		if err := t.writeFile(b.paths[ev.Kind], appendFlag, []byte(ev.String()+"\n")); err != nil {
			def := ev.text()
			werr := &WriteError{Kind: ev.Kind, Index: i, Def: def, Err: err, Pos: -1}
			errors.As(err, &werr.Errno)
			if e := findLogEntry(before, t.errorLog(), def); e != nil {
				werr.Log, werr.Pos = e, mapPos(def, e.Pos)
			}
			// Delete every event the batch created, including the one
			// this definition would have been appended to.
			var made []Event
			for _, id := range b.ids {
				if j := b.at[id]; j < i {
					made = append(made, b.evs[j])
				}
			}
			werr.Rollback = t.rollback(b.paths, made)
			return werr
		}
	}
	return nil
}

// rendered replaces the events of b with the kernel's rendering (offsets
// in full, arguments named), the n-th probe of an event for its n-th
// definition. The probes are in; a listing that fails now only costs that.
func (t *FS) rendered(b *batch) {
	for kind, path := range b.paths {
		listed, err := t.list(kind, path)
		if err != nil {
			continue
		}
		seen := make(map[string]int, len(b.ids))
		for i, ev := range b.evs {
			if ev.Kind != kind {
				continue
			}
			id := ev.Group + "/" + ev.Name
			n := seen[id]
			seen[id]++
			for _, l := range listed {
				if l.Group == ev.Group && l.Name == ev.Name {
					if n == 0 {
						b.evs[i] = l
						break
					}
					n--
				}
			}
		}
	}
}

// deleteCommand is the kernel's "-:GROUP/EVENT", which deletes every probe
// of that event.
func deleteCommand(e Event) []byte {
	return []byte("-:" + e.Group + "/" + e.Name + "\n")
}

// rollback deletes evs, last first, each through its kind's file in
// paths, and reports what it could not delete.
func (t *FS) rollback(paths map[Kind]string, evs []Event) error {
	var errs []error
	for i := len(evs) - 1; i >= 0; i-- {
		if err := t.writeFile(paths[evs[i].Kind], appendFlag, deleteCommand(evs[i])); err != nil {
			errs = append(errs, fmt.Errorf("deleting %s: %w", evs[i].PerfName(), err))
		}
	}
	return errors.Join(errs...)
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
	path, err := t.eventsFile(kind)
	if err != nil {
		return nil, err
	}
	listed, unlock, err := t.lockedList(kind, path)
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
func (t *FS) lockedList(kind Kind, path string) ([]Event, func(), error) {
	unlock, err := t.lock()
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
