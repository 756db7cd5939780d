package tracefs

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A journal is the record a batch leaves next to the lock while it is
// written: SIGKILL can't be caught, so a killed dwprobe can't roll its
// batch back itself. The next process that takes the lock finds the
// journal (its writer, which held the lock, is gone) and deletes what of
// the batch is in the kernel. The file is
//
//	LOCK.journal.PID[.N]
//
// holding a comment line, one "KIND<TAB>DEFINITION" line per definition
// of the batch, in order, written before the first of them, and then for
// each definition I written, a line before the write and one after:
//
//	writing<TAB>I<TAB>ID	its event's id before, "" if there is none
//	wrote<TAB>I<TAB>ID	its event's id after
//
// (the ids of events/GROUP/EVENT/id). Recovery deletes a probe only if
// its event still has the id recorded after the write. So a journal rolls
// back only what its own process wrote: an event of the same name that
// perf made before has another id, and a definition with no "writing"
// line was never written. The one definition a process killed in the
// middle of its write(2) did not record is left and reported, as is one
// written with no id to read: nothing in the kernel tells whether that
// write(2) happened before the kill, and perf may have made the same
// event (same name, same definition) since, which the kernel lists
// alike (and may give the id of one deleted before: ids are reused). The
// rest of its event, if the batch made it, is removed. No fsync:
// the journal only has to outlive its process, not the kernel (the
// probes go with a reboot, and /run with them).

// Recovery is a batch of a killed process, found in its journal and
// rolled back, or a journal that could not be read.
type Recovery struct {
	Path    string   // the journal
	PID     int      // the process that was writing the batch
	Total   int      // definitions in the batch
	Wrote   int      // definitions its writer recorded as written
	Removed []string // "GROUP:EVENT" of the events it had written, now deleted
	// Unverified are "GROUP:EVENT" of events in the kernel that the batch
	// may have written but its writer was killed before it recorded
	// their id: they may as well be another tracer's, so they are left.
	Unverified []string
	// Err is what could not be deleted, or why the journal could not be
	// read (wrapping ErrJournalUnsafe for a journal that is not a regular
	// file of this user's that only this user may read and write).
	Err error
	// Kept says the journal is left in place for the next process to try
	// again: not every line of it is accounted for.
	Kept bool
}

const journalInfix = ".journal."

// journal is the open journal of the batch being written.
type journal struct {
	path string
	f    *os.File
	ids  map[string]string // GROUP/EVENT to its id after its first write
}

// writeJournal records evs in a new journal of this process before the
// first definition is written. A journal of the same pid kept from a
// process of the past is not touched: the name gets a ".N".
func (t *FS) writeJournal(evs []Event) (*journal, error) {
	base := t.lockPath + journalInfix + strconv.Itoa(os.Getpid())
	var b strings.Builder
	fmt.Fprintf(&b, "# dwprobe pid %d is adding these %d definitions; if it is gone, the next dwprobe to take the lock deletes them\n", os.Getpid(), len(evs))
	for _, ev := range evs {
		b.WriteString(ev.Kind.String() + "\t" + ev.String() + "\n")
	}
	path := base
	var f *os.File
	var err error
	for n := 1; ; n++ {
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND|unix.O_NOFOLLOW, 0o600)
		if !errors.Is(err, os.ErrExist) || n > 100 {
			break
		}
		path = base + "." + strconv.Itoa(n)
	}
	if err != nil {
		return nil, fmt.Errorf("batch journal: %w", err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("batch journal: %w", err)
	}
	return &journal{path: path, f: f, ids: map[string]string{}}, nil
}

// writing records that definition i, ev, is about to be written. Its
// event's id before is "" for a new event (the batch has just seen it
// absent) and, for a probe appended to one of the batch, the id read
// after that one's first write: no read of tracefs per definition.
func (j *journal) writing(i int, ev Event) error {
	return j.record("writing", i, j.ids[ev.Group+"/"+ev.Name])
}

// wrote records that definition i, ev, was written, with its event's id,
// read through eventID once per event.
func (j *journal) wrote(i int, ev Event, eventID func(group, event string) string) error {
	key := ev.Group + "/" + ev.Name
	id, ok := j.ids[key]
	if !ok {
		id = eventID(ev.Group, ev.Name)
		j.ids[key] = id
	}
	return j.record("wrote", i, id)
}

func (j *journal) record(what string, i int, id string) error {
	if _, err := j.f.WriteString(what + "\t" + strconv.Itoa(i) + "\t" + id + "\n"); err != nil {
		return fmt.Errorf("batch journal: %w", err)
	}
	return nil
}

// remove closes and deletes the journal: its batch is done or undone.
func (j *journal) remove() {
	j.f.Close()
	os.Remove(j.path)
}

// eventID returns the kernel's id of GROUP/EVENT, from its id file (made
// with CONFIG_PERF_EVENTS) or else the "ID:" line of its format file, or
// "" if neither can be read.
func (t *FS) eventID(group, event string) string {
	dir := filepath.Join(t.root, "events", group, event)
	if b, err := os.ReadFile(filepath.Join(dir, "id")); err == nil {
		return strings.TrimSpace(string(b))
	}
	b, err := os.ReadFile(filepath.Join(dir, "format"))
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		if id, ok := strings.CutPrefix(l, "ID:"); ok {
			return strings.TrimSpace(id)
		}
	}
	return ""
}

// journalPID returns the pid in a journal's name after the infix,
// "PID" or "PID.N".
func journalPID(rest string) (int, bool) {
	p, n, hasN := strings.Cut(rest, ".")
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 {
		return 0, false
	}
	if _, err := strconv.Atoi(n); hasN && err != nil {
		return 0, false
	}
	return pid, true
}

// recoverJournals rolls back the batch of every journal next to the lock,
// which the caller holds, so their writers are gone; each journal is
// removed once every line of it is accounted for, and reported to
// Hooks.Recovered, as is every journal that is not safe to read.
func (t *FS) recoverJournals() {
	dir, base := filepath.Split(t.lockPath)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), base+journalInfix)
		if !ok {
			continue
		}
		pid, ok := journalPID(rest)
		if !ok {
			continue
		}
		path := filepath.Join(dir, e.Name())
		r := t.recoverJournal(path)
		r.Path, r.PID = path, pid
		if !r.Kept {
			os.Remove(path)
		}
		if t.hooks.Recovered != nil {
			t.hooks.Recovered(r)
		}
	}
}

// recoverJournal deletes what of the journal's batch its writer recorded
// writing and the kernel still lists under the same event id.
func (t *FS) recoverJournal(path string) Recovery {
	jr, err := readJournal(path)
	if err != nil {
		return Recovery{Err: err, Kept: true}
	}
	r := Recovery{Total: len(jr.evs), Wrote: len(jr.wrote)}
	paths := map[Kind]string{}
	var ours, doubt []Event
	for i, ev := range jr.evs {
		now := t.eventID(ev.Group, ev.Name)
		switch v := jr.verify(i, now); {
		case v == unverifiable:
			doubt = append(doubt, ev)
			continue
		case v != mine:
			continue
		}
		if _, ok := paths[ev.Kind]; !ok {
			p, err := t.eventsFile(ev.Kind)
			if err != nil {
				r.Err = errors.Join(r.Err, fmt.Errorf("%s: %w", ev.PerfName(), err))
				continue
			}
			paths[ev.Kind] = p
		}
		ours = append(ours, ev)
	}
	removed, err := t.undo(paths, ours, false)
	r.Removed, r.Err = removed, errors.Join(r.Err, err)
	for _, ev := range doubt {
		// Left in the kernel: what of it the batch made is gone with
		// the rest of its event when the probe in doubt was not there.
		if t.eventID(ev.Group, ev.Name) != "" {
			r.Unverified = appendOnce(r.Unverified, ev.PerfName())
		}
	}
	r.Kept = r.Err != nil
	return r
}

// A journal's verdict on one of its definitions.
const (
	notMine      = iota // not written, gone, or its event is another's now
	mine                // written by the journal's process, still there
	unverifiable        // maybe written, still there, with no id to check
)

// verify judges definition i of the journal, whose event has the id now
// ("" if there is none).
func (jr *journalRecords) verify(i int, now string) int {
	if now == "" {
		return notMine
	}
	if id, ok := jr.wrote[i]; ok {
		switch id {
		case "":
			return unverifiable
		case now:
			return mine
		}
		return notMine
	}
	// Killed during the write: the event may be this write's (new since
	// the "writing" line, or, a probe appended, still the one noted
	// there) or made by another tracer since, alike.
	before, ok := jr.writing[i]
	if !ok || before != "" && before != now {
		return notMine
	}
	return unverifiable
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// journalRecords is what a journal holds: its batch and the ids recorded
// before and after writing each definition.
type journalRecords struct {
	evs            []Event
	writing, wrote map[int]string
}

// readJournal opens a journal, which must be a regular file of this
// user's that nobody else may read or write, and parses it.
func readJournal(path string) (*journalRecords, error) {
	f, err := openJournal(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	jr := &journalRecords{writing: map[int]string{}, wrote: map[int]string{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		k, def, _ := strings.Cut(line, "\t")
		if rec := map[string]map[int]string{"writing": jr.writing, "wrote": jr.wrote}[k]; rec != nil {
			i, id, _ := strings.Cut(def, "\t")
			if at, err := strconv.Atoi(i); err == nil && at >= 0 && at < len(jr.evs) {
				rec[at] = id
				continue
			}
		}
		kind := map[string]Kind{"kprobe": KProbe, "uprobe": UProbe, "fprobe": FProbe, "tprobe": TProbe}[k]
		ev, err := parseDef(kind, def)
		if err != nil || kind == 0 {
			return nil, fmt.Errorf("batch journal %s line %d %q: %w", path, n, line, ErrBadListing)
		}
		jr.evs = append(jr.evs, ev)
	}
	return jr, sc.Err()
}

// openJournal opens path for reading without following a link or
// blocking on a FIFO, and checks what it is.
func openJournal(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENXIO) {
			return nil, fmt.Errorf("%w: %s is %s", ErrJournalUnsafe, path, unsafeWhy(path))
		}
		return nil, fmt.Errorf("batch journal: %s: %w", path, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("batch journal: %s: %w", path, err)
	}
	why := badOwner(st, unix.S_IFREG)
	if why == "" && st.Mode&0o077 != 0 {
		why = fmt.Sprintf("open to others (mode %#o, not 0600)", st.Mode&0o7777)
	}
	if why != "" {
		unix.Close(fd)
		return nil, fmt.Errorf("%w: %s is %s", ErrJournalUnsafe, path, why)
	}
	return os.NewFile(uintptr(fd), path), nil
}
