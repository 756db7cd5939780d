package tracefs

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A journal is the record a batch leaves next to the lock while it is
// written: SIGKILL can't be caught, so a killed dwprobe can't roll its
// batch back itself. The next process that takes the lock finds the
// journal (its writer, which held the lock, is gone) and deletes what of
// the batch is in the kernel. The file is
//
//	LOCK.journal.PID
//
// holding a comment line and then one "KIND<TAB>DEFINITION" line per
// definition of the batch, in order.

// Recovery is a batch of a killed process, found in its journal and
// rolled back.
type Recovery struct {
	PID     int      // the process that was writing the batch
	Total   int      // definitions in the batch
	Removed []string // "GROUP:EVENT" of the events it had written, now deleted
	Err     error    // what could not be deleted, or why the journal could not be read
}

const journalInfix = ".journal."

// writeJournal records evs in this process's journal, synced before the
// first definition is written, and returns its removal.
func (t *FS) writeJournal(evs []Event) (remove func(), err error) {
	path := t.lockPath + journalInfix + strconv.Itoa(os.Getpid())
	var b strings.Builder
	fmt.Fprintf(&b, "# dwprobe pid %d is adding these %d definitions; if it is gone, the next dwprobe to take the lock deletes them\n", os.Getpid(), len(evs))
	for _, ev := range evs {
		b.WriteString(ev.Kind.String() + "\t" + ev.String() + "\n")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("batch journal: %w", err)
	}
	_, err = f.WriteString(b.String())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syncDir(filepath.Dir(path))
	}
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("batch journal: %w", err)
	}
	return func() { os.Remove(path) }, nil
}

// syncDir makes the journal's directory entry durable along with it.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// recoverJournals rolls back the batch of every journal next to the lock,
// which the caller holds, so their writers are gone; each journal is
// removed and reported to Hooks.Recovered.
func (t *FS) recoverJournals() {
	dir, base := filepath.Split(t.lockPath)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), base+journalInfix)
		pid, err := strconv.Atoi(rest)
		if !ok || err != nil || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		r := t.recoverJournal(path)
		r.PID = pid
		os.Remove(path)
		if t.hooks.Recovered != nil {
			t.hooks.Recovered(r)
		}
	}
}

// recoverJournal deletes what of the journal's batch the kernel lists.
func (t *FS) recoverJournal(path string) Recovery {
	evs, err := readJournal(path)
	if err != nil {
		return Recovery{Err: err}
	}
	paths := map[Kind]string{}
	for _, ev := range evs {
		if _, ok := paths[ev.Kind]; !ok {
			if paths[ev.Kind], err = t.eventsFile(ev.Kind); err != nil {
				return Recovery{Total: len(evs), Err: err}
			}
		}
	}
	removed, err := t.undo(paths, evs, false)
	return Recovery{Total: len(evs), Removed: removed, Err: err}
}

// readJournal parses a journal's definitions.
func readJournal(path string) ([]Event, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("batch journal: %w", err)
	}
	defer f.Close()
	var evs []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		k, def, _ := strings.Cut(line, "\t")
		kind := map[string]Kind{"kprobe": KProbe, "uprobe": UProbe, "fprobe": FProbe, "tprobe": TProbe}[k]
		ev, err := parseDef(kind, def)
		if err != nil || kind == 0 {
			return evs, fmt.Errorf("batch journal %s line %d %q: %w", path, n, line, ErrBadListing)
		}
		evs = append(evs, ev)
	}
	return evs, sc.Err()
}
