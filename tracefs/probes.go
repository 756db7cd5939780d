package tracefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// Exists reports whether Add(kind, …) would refuse GROUP/EVENT with
// ErrEventExists: the name is in kind's listing, or events/GROUP/EVENT
// exists (kprobes, uprobes, tracepoints and every other trace event share
// that namespace). The answer can be stale by the time Add runs; Add
// checks again under its lock.
func (t *FS) Exists(kind Kind, group, event string) (bool, error) {
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

// Add writes the probe definitions defs to kind's file and returns them as
// the kernel lists them afterwards, in the order of defs.
//
// Every definition is checked first (ParseDefinition) and refused as a
// whole batch if one fails (ErrBadDefinition) or if a GROUP/EVENT is taken
// or named twice (ErrEventExists); nothing is written then. The check of
// the names and the writes happen under the exclusive lock, so concurrent
// dwprobe processes cannot take the same name. Each definition is one
// write(2) to the file opened O_WRONLY|O_APPEND: the file is never
// truncated, which would delete every probe of the kind.
//
// If the kernel refuses definition i, Add deletes definitions 0..i-1 again
// (last first, with "-:GROUP/EVENT") and returns a *WriteError with the
// kernel's error_log entry for definition i. error_log is not cleared: it
// is shared by every tracing user, so the entry is found by comparing the
// log before and after the batch.
func (t *FS) Add(kind Kind, defs []string) ([]Event, error) {
	return t.add(kind, defs, false)
}

// AddMulti is Add for events with several probes: definitions of the
// batch that name the same GROUP/EVENT make one event, the first creating
// it and the others appended to it, as the kernel does since Linux 5.6
// (MultiProbe). The GROUP/EVENT must still be new to the kernel, so an
// event of somebody else's is never extended, and the rollback of a
// refused batch deletes each event once.
func (t *FS) AddMulti(kind Kind, defs []string) ([]Event, error) {
	return t.add(kind, defs, true)
}

// MultiProbe reports whether the kernel appends a probe written under an
// existing GROUP/EVENT to that event instead of refusing it: its README
// says "Create/append" (Linux 5.6 and later), which is how perf probe
// decides. It is false if the README can't be read.
func (t *FS) MultiProbe() bool {
	b, err := os.ReadFile(filepath.Join(t.root, "README"))
	return err == nil && strings.Contains(string(b), "Create/append/")
}

func (t *FS) add(kind Kind, defs []string, multi bool) ([]Event, error) {
	path, err := t.eventsFile(kind)
	if err != nil {
		return nil, err
	}
	evs := make([]Event, len(defs))
	at := make(map[string]int, len(defs))
	var ids []string // distinct GROUP/EVENT, in order of first use
	for i, def := range defs {
		ev, err := ParseDefinition(kind, def)
		if err != nil {
			return nil, fmt.Errorf("%v definition %d: %w", kind, i, err)
		}
		id := ev.Group + "/" + ev.Name
		if j, ok := at[id]; ok && !multi {
			return nil, fmt.Errorf("%v definitions %d and %d are both %s: %w", kind, j, i, id, ErrEventExists)
		} else if !ok {
			at[id] = i
			ids = append(ids, id)
		}
		evs[i] = ev
	}
	if len(evs) == 0 {
		return nil, nil
	}

	listed, unlock, err := t.lockedList(kind, path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	for _, id := range ids {
		ev := evs[at[id]]
		if t.taken(listed, ev.Group, ev.Name) {
			return nil, &ExistsError{Kind: kind, Index: at[id], Group: ev.Group, Name: ev.Name}
		}
	}
	before := t.errorLog()
	for i, ev := range evs {
		f, _ := fields(ev.Raw)
		if err := t.write(path, appendFlag, []byte(strings.Join(f, " ")+"\n")); err != nil {
			werr := &WriteError{Kind: kind, Index: i, Def: ev.Raw, Err: err, Pos: -1}
			errors.As(err, &werr.Errno)
			if e := findLogEntry(before, t.errorLog(), ev.Raw); e != nil {
				werr.Log, werr.Pos = e, mapPos(ev.Raw, e.Pos)
			}
			// Delete every event the batch created, including the one
			// this definition would have been appended to.
			var made []Event
			for _, id := range ids {
				if j := at[id]; j < i {
					made = append(made, evs[j])
				}
			}
			werr.Rollback = t.rollback(path, made)
			return nil, werr
		}
	}

	// Return the kernel's rendering (offsets in full, arguments named),
	// the n-th probe of an event for its n-th definition. The probes are
	// in; a listing that fails now only costs that.
	if listed, err := t.list(kind, path); err == nil {
		seen := make(map[string]int, len(ids))
		for i, ev := range evs {
			id := ev.Group + "/" + ev.Name
			n := seen[id]
			seen[id]++
			for _, l := range listed {
				if l.Group == ev.Group && l.Name == ev.Name {
					if n == 0 {
						evs[i] = l
						break
					}
					n--
				}
			}
		}
	}
	return evs, nil
}

// deleteCommand is the kernel's "-:GROUP/EVENT", which deletes every probe
// of that event.
func deleteCommand(e Event) []byte {
	return []byte("-:" + e.Group + "/" + e.Name + "\n")
}

// rollback deletes evs, last first, and reports what it could not delete.
func (t *FS) rollback(path string, evs []Event) error {
	var errs []error
	for i := len(evs) - 1; i >= 0; i-- {
		if err := t.write(path, appendFlag, deleteCommand(evs[i])); err != nil {
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
		if err := t.write(path, appendFlag, deleteCommand(e)); err != nil {
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
	if err := t.write(path, replaceFlag, []byte("0\n")); err != nil {
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
	if err := t.write(path, replaceFlag, []byte(v)); err != nil {
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
