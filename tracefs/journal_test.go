package tracefs

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// recoverWith plants journal as the journal of pid 4242 next to fsys's
// lock, takes the lock with an Add of an unrelated probe and returns what
// recovery reported.
func recoverWith(t *testing.T, fsys *FS, journal string) []Recovery {
	t.Helper()
	if err := os.WriteFile(fsys.lockPath+journalInfix+"4242", []byte(journal), 0o600); err != nil {
		t.Fatal(err)
	}
	return takeLock(t, fsys)
}

// takeLock adds an unrelated probe and returns what recovery reported.
func takeLock(t *testing.T, fsys *FS) []Recovery {
	t.Helper()
	var got []Recovery
	fsys.SetHooks(Hooks{Recovered: func(r Recovery) { got = append(got, r) }})
	if _, err := fsys.Add(parsed(t, UProbe, "p:dw/new /bin/x:0x50")); err != nil {
		t.Fatal(err)
	}
	fsys.SetHooks(Hooks{})
	if _, err := fsys.Delete(UProbe, []string{"dw:new"}); err != nil {
		t.Fatal(err)
	}
	return got
}

const perfEvent = "p:probe_x/main /bin/x:0x0000000000000010\n"

// TestJournalPlantedPerfEvent: a journal naming an event perf made (the
// README says dwprobe leaves those alone) deletes nothing: not when it
// records another id for it, not when it records none (a definition its
// writer recorded writing with no id to check is left and reported).
func TestJournalPlantedPerfEvent(t *testing.T) {
	for _, c := range []struct {
		name       string
		wrote      string
		unverified []string
	}{
		{"recorded with another id", "wrote\t0\t1234\n", nil},
		{"recorded with no id", "wrote\t0\t\n", []string{"probe_x:main"}},
		{"not recorded", "", nil},
		{"recorded as written to the event of another id", "writing\t0\t1234\n", nil},
		// Killed in the write(2) that would have made the event (the
		// last line "writing"), which did not happen; perf made it since,
		// with the same name and definition. It used to be deleted.
		{"killed in its write, perf made the same event since", "writing\t0\t\n", []string{"probe_x:main"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := fakeTree(t, map[string]string{"uprobe_events": perfEvent,
				"events/probe_x/main/enable": "0\n", "events/probe_x/main/id": "1500\n"})
			fsys, _ := newFake(t, root, true)
			got := recoverWith(t, fsys, "# planted\nuprobe\tp:probe_x/main /bin/x:0x10\n"+c.wrote)
			if len(got) != 1 || len(got[0].Removed) != 0 || !reflect.DeepEqual(got[0].Unverified, c.unverified) || got[0].Err != nil {
				t.Errorf("Recovered %+v, want nothing removed, %q unverified", got, c.unverified)
			}
			if l := readFile(t, root, "uprobe_events"); l != perfEvent {
				t.Errorf("perf's probe deleted; uprobe_events:\n%s", l)
			}
			noJournal(t, fsys)
		})
	}
}

// TestJournalOwnBatch: the journal a batch writes records each event's id
// after its write, so recovering it removes exactly what was written.
func TestJournalOwnBatch(t *testing.T) {
	root := fakeTree(t, map[string]string{"uprobe_events": perfEvent,
		"events/probe_x/main/enable": "0\n", "events/probe_x/main/id": "1500\n"})
	fsys, k := newFake(t, root, true)
	var journal string
	hooked(fsys, k, nil, func(n int, _ string) {
		if n == 3 {
			b, err := os.ReadFile(fsys.lockPath + journalInfix + strconv.Itoa(os.Getpid()))
			if err != nil {
				t.Fatal(err)
			}
			journal = string(b)
		}
	})
	if _, err := fsys.AddMulti(parsed(t, UProbe, fourDefs...)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(journal, "writing\t0\t\nwrote\t0\t2001\nwriting\t1\t\nwrote\t1\t2002\nwriting\t2\t2001\n") {
		t.Fatalf("journal at the third write:\n%s", journal)
	}
	fsys.writeFile = k.write
	// As if killed in the middle of the fourth write: dw/c, absent
	// before it and there now, may be the batch's or made by perf since
	// (TestJournalPlantedPerfEvent): it is left and reported.
	got := recoverWith(t, fsys, journal+"wrote\t2\t2001\nwriting\t3\t\n")
	want := []Recovery{{Path: fsys.lockPath + journalInfix + "4242", PID: 4242, Total: 4, Wrote: 3, Removed: []string{"dw:b", "dw:a"}, Unverified: []string{"dw:c"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Recovered %+v\nwant %+v", got, want)
	}
	if l := readFile(t, root, "uprobe_events"); !strings.HasPrefix(l, perfEvent) || strings.Count(l, "dw/") != 1 || !strings.Contains(l, "p:dw/c ") {
		t.Errorf("uprobe_events after recovery:\n%s", l)
	}
}

// TestJournalKilledInAppend: killed in the write(2) that appends a probe
// to an event the batch made, the event's other probes are the batch's
// and go; the appended one, if the kernel lists it, may be another
// tracer's since and is left and reported (with its event); if it is
// not there, the whole event goes.
func TestJournalKilledInAppend(t *testing.T) {
	journal := "# killed\nuprobe\tp:dw/a /bin/x:0x10\nuprobe\tp:dw/a /bin/x:0x30\n" +
		"writing\t0\t\nwrote\t0\t2001\nwriting\t1\t2001\n"
	for _, c := range []struct {
		name, listed string
		removed      []string
		unverified   []string
		left         string
	}{
		{"appended", "p:dw/a /bin/x:0x0000000000000010\np:dw/a /bin/x:0x0000000000000030\n", []string{"dw:a"}, []string{"dw:a"}, "p:dw/a /bin/x:0x0000000000000030\n"},
		{"not appended", "p:dw/a /bin/x:0x0000000000000010\n", []string{"dw:a"}, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := fakeTree(t, map[string]string{"uprobe_events": c.listed,
				"events/dw/a/enable": "0\n", "events/dw/a/id": "2001\n"})
			fsys, _ := newFake(t, root, true)
			got := recoverWith(t, fsys, journal)
			if len(got) != 1 || !reflect.DeepEqual(got[0].Removed, c.removed) || !reflect.DeepEqual(got[0].Unverified, c.unverified) || got[0].Err != nil {
				t.Errorf("Recovered %+v, want %q removed, %q unverified", got, c.removed, c.unverified)
			}
			if l := readFile(t, root, "uprobe_events"); l != c.left {
				t.Errorf("uprobe_events after recovery:\n%s\nwant\n%s", l, c.left)
			}
		})
	}
}

// TestJournalNoKprobeEvents: a journal holding a kprobe and uprobes,
// recovered on a kernel without kprobe_events, removes the uprobes; a
// kprobe event it can't remove is reported and the journal kept until
// it can, while one that is gone is accounted for.
func TestJournalNoKprobeEvents(t *testing.T) {
	journal := "# killed\nkprobe\tp:dwk/a vfs_read\nuprobe\tp:dw/a /bin/x:0x10\nuprobe\tp:dw/b /bin/x:0x20\n" +
		"wrote\t0\t900\nwrote\t1\t901\nwrote\t2\t902\n"
	files := map[string]string{
		"uprobe_events":      "p:dw/a /bin/x:0x0000000000000010\np:dw/b /bin/x:0x0000000000000020\n",
		"events/dw/a/id":     "901\n",
		"events/dw/b/id":     "902\n",
		"events/dw/a/enable": "0\n", "events/dw/b/enable": "0\n",
	}
	t.Run("kprobe gone", func(t *testing.T) {
		root := fakeTree(t, files)
		os.Remove(filepath.Join(root, "kprobe_events"))
		fsys, _ := newFake(t, root, true)
		got := recoverWith(t, fsys, journal)
		if len(got) != 1 || !reflect.DeepEqual(got[0].Removed, []string{"dw:b", "dw:a"}) || got[0].Err != nil || got[0].Kept {
			t.Errorf("Recovered %+v, want dw:b dw:a removed, nothing left", got)
		}
		if l := readFile(t, root, "uprobe_events"); l != "" {
			t.Errorf("uprobe_events after recovery:\n%s", l)
		}
		noJournal(t, fsys)
	})
	t.Run("kprobe listed but not removable", func(t *testing.T) {
		f := map[string]string{"events/dwk/a/id": "900\n"}
		for k, v := range files {
			f[k] = v
		}
		root := fakeTree(t, f)
		os.Remove(filepath.Join(root, "kprobe_events"))
		fsys, _ := newFake(t, root, true)
		got := recoverWith(t, fsys, journal)
		if len(got) != 1 || !reflect.DeepEqual(got[0].Removed, []string{"dw:b", "dw:a"}) || !errors.Is(got[0].Err, ErrNotSupported) || !got[0].Kept {
			t.Fatalf("Recovered %+v, want dw:b dw:a removed, dwk:a not, the journal kept", got)
		}
		if _, err := os.Stat(got[0].Path); err != nil {
			t.Errorf("journal not kept: %v", err)
		}
		// Tried again by the next lock taker, and kept again.
		if again := takeLock(t, fsys); len(again) != 1 || len(again[0].Removed) != 0 || !again[0].Kept {
			t.Errorf("second recovery %+v", again)
		}
	})
}

// TestJournalUnsafe: a journal that is a link, a directory, a FIFO or a
// file others may read is not read, not removed, and reported each time.
func TestJournalUnsafe(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(path string) error
		why  string
	}{
		{"symlink", func(p string) error { return os.Symlink("/etc/passwd", p) }, "symbolic link"},
		{"directory", func(p string) error { return os.Mkdir(p, 0o700) }, "directory"},
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o600) }, "FIFO"},
		{"mode 0644", func(p string) error { return os.WriteFile(p, []byte("# x\n"), 0o644) }, "mode 0644"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := fakeTree(t, nil)
			fsys, _ := newFake(t, root, true)
			path := fsys.lockPath + journalInfix + "4242"
			if err := c.make(path); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, 0o644); err != nil && c.name == "mode 0644" {
				t.Fatal(err)
			}
			for range 2 {
				got := takeLock(t, fsys)
				if len(got) != 1 || !errors.Is(got[0].Err, ErrJournalUnsafe) || !strings.Contains(got[0].Err.Error(), c.why) || !got[0].Kept {
					t.Fatalf("Recovered %+v, want it reported as unsafe (%s)", got, c.why)
				}
			}
			if _, err := os.Lstat(path); err != nil {
				t.Errorf("unsafe journal removed: %v", err)
			}
		})
	}
}

// TestJournalPIDReused: a journal kept from a process of the past with
// this process's pid is not overwritten by this process's batch.
func TestJournalPIDReused(t *testing.T) {
	root := fakeTree(t, nil)
	fsys, _ := newFake(t, root, true)
	old := fsys.lockPath + journalInfix + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(old, []byte("# old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := fsys.writeJournal(parsed(t, UProbe, fourDefs[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer j.remove()
	if j.path != old+".1" {
		t.Errorf("journal at %s, want %s.1", j.path, old)
	}
	if b, _ := os.ReadFile(old); string(b) != "# old\n" {
		t.Errorf("old journal overwritten: %q", b)
	}
}
