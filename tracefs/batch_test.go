package tracefs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// The tests of what cuts a batch short: a context that ends, another
// tracer that takes no lock, a lock held or planted, a killed process's
// journal.

// hooked wraps k's writes: before(n, data) runs before the n-th write
// (1-based) and after(n, data) after it.
func hooked(fsys *FS, k *fakeKernel, before, after func(n int, data string)) {
	n := 0
	fsys.writeFile = func(path string, flag int, data []byte) error {
		n++
		if before != nil {
			before(n, string(data))
		}
		err := k.write(path, flag, data)
		if after != nil {
			after(n, string(data))
		}
		return err
	}
}

var fourDefs = []string{"p:dw/a /bin/x:0x10", "p:dw/b /bin/x:0x20", "p:dw/a /bin/x:0x30", "p:dw/c /bin/x:0x40"}

// TestAddBatchInterrupted: a context that ends during the batch stops it
// and deletes what it wrote; nothing of it remains, nor its journal.
func TestAddBatchInterrupted(t *testing.T) {
	root := fakeTree(t, map[string]string{"uprobe_events": existing})
	fsys, k := newFake(t, root, true)
	ctx, cancel := context.WithCancel(context.Background())
	hooked(fsys, k, nil, func(n int, _ string) {
		if n == 3 {
			cancel()
		}
	})
	_, err := fsys.AddBatch(ctx, Batch{Events: parsed(t, UProbe, fourDefs...), Multi: true})
	var s *StoppedError
	if !errors.As(err, &s) || s.Written != 3 || s.Total != 4 || !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) || s.Rollback != nil {
		t.Fatalf("AddBatch cancelled after 3 writes: %v", err)
	}
	want := []string{fourDefs[0], fourDefs[1], fourDefs[2], "-:dw/b", "-:dw/a"}
	if cmds := checkWrites(t, k.takeCalls()); !reflect.DeepEqual(cmds, want) {
		t.Errorf("wrote %q, want %q", cmds, want)
	}
	if got := readFile(t, root, "uprobe_events"); got != existing {
		t.Errorf("uprobe_events after the rollback:\n%s", got)
	}
	noJournal(t, fsys)
}

func noJournal(t *testing.T, fsys *FS) {
	t.Helper()
	if m, _ := filepath.Glob(fsys.lockPath + journalInfix + "*"); len(m) != 0 {
		t.Errorf("journal left: %q", m)
	}
}

// TestAddBatchJournal: the journal lists the batch and that its first
// definition is being written before its first write, and is gone after
// the last.
func TestAddBatchJournal(t *testing.T) {
	root := fakeTree(t, nil)
	fsys, k := newFake(t, root, true)
	var journal string
	hooked(fsys, k, func(n int, _ string) {
		if n == 1 {
			journal = readFile(t, filepath.Dir(fsys.lockPath), filepath.Base(fsys.lockPath)+journalInfix+strconv.Itoa(os.Getpid()))
		}
	}, nil)
	if _, err := fsys.AddMulti(parsed(t, UProbe, fourDefs...)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(journal, "\n"), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], "# dwprobe pid ") || lines[1] != "uprobe\t"+fourDefs[0] || lines[4] != "uprobe\t"+fourDefs[3] || lines[5] != "writing\t0\t" {
		t.Errorf("journal at the first write:\n%s", journal)
	}
	noJournal(t, fsys)
}

// TestJournalRecovery: the journal of a killed process is found by the
// next lock taker, which deletes the events of that batch it finds,
// keeps everything else, and says so.
func TestJournalRecovery(t *testing.T) {
	root := fakeTree(t, map[string]string{
		"uprobe_events": "p:dw/a /bin/x:0x0000000000000010\np:other/x /bin/x:0x0000000000000010\np:dw/b /bin/x:0x0000000000000020\n" +
			// Somebody else's probe appended to dw/b after the kill.
			"p:dw/b /bin/x:0x0000000000000090\n",
		"events/dw/a/enable": "0\n", "events/dw/b/enable": "0\n", "events/other/x/enable": "0\n",
		"events/dw/a/id": "1001\n", "events/dw/b/id": "1002\n", "events/other/x/id": "1003\n",
	})
	fsys, k := newFake(t, root, true)
	journal := "# dwprobe pid 4242 is adding these 3 definitions\nuprobe\tp:dw/a /bin/x:0x10\nuprobe\tp:dw/b /bin/x:0x20\nuprobe\tp:dw/c /bin/x:0x30\n" +
		"wrote\t0\t1001\nwrote\t1\t1002\n"
	if err := os.WriteFile(fsys.lockPath+journalInfix+"4242", []byte(journal), 0o600); err != nil {
		t.Fatal(err)
	}
	var got []Recovery
	fsys.SetHooks(Hooks{Recovered: func(r Recovery) { got = append(got, r) }})
	if _, err := fsys.Add(parsed(t, UProbe, "p:dw/new /bin/x:0x50")); err != nil {
		t.Fatal(err)
	}
	if want := []Recovery{{Path: fsys.lockPath + journalInfix + "4242", PID: 4242, Total: 3, Wrote: 2, Removed: []string{"dw:b", "dw:a"}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Recovered %+v, want %+v", got, want)
	}
	want := []string{"-:dw/b /bin/x:0x0000000000000020", "-:dw/a", "p:dw/new /bin/x:0x50"}
	if cmds := checkWrites(t, k.takeCalls()); !reflect.DeepEqual(cmds, want) {
		t.Errorf("wrote %q, want %q", cmds, want)
	}
	if got, want := readFile(t, root, "uprobe_events"), "p:other/x /bin/x:0x0000000000000010\np:dw/b /bin/x:0x0000000000000090\np:dw/new /bin/x:0x50\n"; got != want {
		t.Errorf("uprobe_events:\n%s\nwant\n%s", got, want)
	}
	noJournal(t, fsys)
}

// TestAddBatchContested: another tracer that takes no lock creates an
// event of the batch between the check and its write, or appends to one
// after it: the batch is rolled back, the other's probes stay.
func TestAddBatchContested(t *testing.T) {
	perf := "p:dw/b /bin/x:0x0000000000000099\n"
	for _, c := range []struct {
		name    string
		at      int  // the write the other tracer's comes before or after
		before  bool // before it (after our check), or after it
		written int
		want    []string
	}{
		{"created before our check", 1, false, 1, []string{fourDefs[0], "-:dw/a"}},
		{"created between our check and our write", 2, true, 4, append(slices4(), "-:dw/c", "-:dw/b /bin/x:0x20", "-:dw/a")},
		{"appended after our write", 2, false, 4, append(slices4(), "-:dw/c", "-:dw/b /bin/x:0x20", "-:dw/a")},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := fakeTree(t, nil)
			fsys, k := newFake(t, root, true)
			other := func(n int, _ string) {
				if n == c.at {
					f, _ := os.OpenFile(filepath.Join(root, "uprobe_events"), os.O_APPEND|os.O_WRONLY, 0)
					f.WriteString(perf)
					f.Close()
					os.MkdirAll(filepath.Join(root, "events/dw/b"), 0o755)
				}
			}
			if c.before {
				hooked(fsys, k, other, nil)
			} else {
				hooked(fsys, k, nil, other)
			}
			_, err := fsys.AddMulti(parsed(t, UProbe, fourDefs...))
			var s *StoppedError
			if !errors.As(err, &s) || s.Written != c.written || s.Event != "dw:b" || !errors.Is(err, ErrContested) || !errors.Is(err, ErrEventExists) || s.Rollback != nil {
				t.Fatalf("AddMulti: %v", err)
			}
			if cmds := checkWrites(t, k.takeCalls()); !reflect.DeepEqual(cmds, c.want) {
				t.Errorf("wrote %q, want %q", cmds, c.want)
			}
			if got := readFile(t, root, "uprobe_events"); got != perf {
				t.Errorf("uprobe_events:\n%s\nwant the other tracer's probe only", got)
			}
		})
	}
}

func slices4() []string { return append([]string(nil), fourDefs...) }

// TestAddBatchBuild: Build names the batch under the lock from the
// listing of that moment; its error is returned as it is.
func TestAddBatchBuild(t *testing.T) {
	root := fakeTree(t, map[string]string{"uprobe_events": existing})
	fsys, k := newFake(t, root, true)
	var seen []string
	build := func(listed []Event) ([]Event, error) {
		for _, e := range listed {
			seen = append(seen, e.PerfName())
		}
		return parsed(t, UProbe, "p:dw/n"+strconv.Itoa(len(listed))+" /bin/x:0x10"), nil
	}
	if _, err := fsys.AddBatch(context.Background(), Batch{Kind: UProbe, Build: build}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"probe_app:work", "probe_app:work__return"}; !reflect.DeepEqual(seen, want) {
		t.Errorf("Build saw %q", seen)
	}
	if cmds := checkWrites(t, k.takeCalls()); len(cmds) != 1 || cmds[0] != "p:dw/n2 /bin/x:0x10" {
		t.Errorf("wrote %q", cmds)
	}
	mine := errors.New("mine")
	if _, err := fsys.AddBatch(context.Background(), Batch{Kind: UProbe, Build: func([]Event) ([]Event, error) { return nil, mine }}); err != mine {
		t.Errorf("Build's error came back as %v", err)
	}
}

// TestLockWait: a wait for the lock that another holds tells the hook
// who holds it after LockWaitNotice, and ends with the context, writing
// nothing.
func TestLockWait(t *testing.T) {
	root := fakeTree(t, nil)
	holder, _ := newFake(t, root, true)
	unlock, err := holder.lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	fsys, k := newFake(t, root, true)
	told := 0
	fsys.SetHooks(Hooks{LockWait: func(path string, pid int) {
		if path != fsys.lockPath || pid != os.Getpid() {
			t.Errorf("LockWait(%q, %d)", path, pid)
		}
		told++
	}})
	ctx, cancel := context.WithTimeout(context.Background(), LockWaitNotice+300*time.Millisecond)
	defer cancel()
	_, err = fsys.AddBatch(ctx, Batch{Events: parsed(t, UProbe, fourDefs[0])})
	var lw *LockWaitError
	if !errors.As(err, &lw) || lw.Holder != os.Getpid() || lw.Path != fsys.lockPath || !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("AddBatch while the lock is held: %v", err)
	}
	if told != 1 {
		t.Errorf("LockWait called %d times", told)
	}
	if calls := k.takeCalls(); len(calls) != 0 {
		t.Errorf("wrote %+v", calls)
	}
}

// TestLockUnsafe: whatever stands where the lock file should be but is
// not a regular file of this user's, in a directory nobody else may
// write, is refused at once: never followed, opened for a blocking read
// or waited on.
func TestLockUnsafe(t *testing.T) {
	for _, c := range []struct {
		name  string
		plant func(lock string) error
		root  bool // needs root (chown)
	}{
		{"symlink", func(l string) error { return os.Symlink(l+".target", l) }, false},
		{"directory", func(l string) error { return os.Mkdir(l, 0o700) }, false},
		{"FIFO", func(l string) error { return syscall.Mkfifo(l, 0o600) }, false},
		{"foreign file", func(l string) error {
			if err := os.WriteFile(l, nil, 0o600); err != nil {
				return err
			}
			return os.Chown(l, 65534, 65534)
		}, true},
		{"open directory", func(l string) error { return os.Chmod(filepath.Dir(l), 0o777) }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.root && os.Geteuid() != 0 {
				dwarftest.Skip(t, "needs root to give a file away")
			}
			root := fakeTree(t, nil)
			fsys, k := newFake(t, root, true)
			if err := c.plant(fsys.lockPath); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if _, err := fsys.AddBatch(ctx, Batch{Events: parsed(t, UProbe, fourDefs[0])}); !errors.Is(err, ErrLockUnsafe) {
				t.Errorf("Add: %v, want ErrLockUnsafe", err)
			} else {
				t.Log(err)
			}
			if _, err := os.Lstat(fsys.lockPath + ".target"); err == nil {
				t.Error("the symlink was followed")
			}
			if calls := k.takeCalls(); len(calls) != 0 {
				t.Errorf("wrote %+v", calls)
			}
		})
	}
}

// TestSameProbe: a listing line is matched to the definition written,
// whatever the kernel changed in printing it.
func TestSameProbe(t *testing.T) {
	for _, c := range []struct {
		kind        Kind
		listed, our string
		same        bool
	}{
		{UProbe, "p:g/e /bin/x:0x0000000000001139 x=%di:s32", "p:g/e /bin/x:0x1139 x=%di:s32", true},
		{UProbe, "p:g/e /bin/x:0x0000000000001139 arg1=%di", "p:g/e /bin/x:0x1139 %di", true},
		{UProbe, "p:g/e /bin/x:0x0000000000001139(0x10) x=%di", "p:g/e /bin/x:0x1139(0x0010) x=%di", true},
		{UProbe, "p:g/e /bin/x:0x0000000000001139", "p:g/e /bin/x:0x1138", false},
		{UProbe, "p:g/e /bin/x:0x0000000000001139 x=%di", "p:g/e /bin/x:0x1139 x=%si", false},
		{UProbe, "r:g/e /bin/x:0x0000000000001139", "p:g/e /bin/x:0x1139", false},
		{KProbe, "p:g/e vfs_read", "p:g/e vfs_read+0", true},
		{KProbe, "p:g/e vfs_read+114 f=+68(%bp):x32", "p:g/e vfs_read+0x72 f=+68(%bp):x32", true},
		{KProbe, "p:g/e vfs_read+114", "p:g/f vfs_read+114", false},
	} {
		l, ok := parseLine(c.kind, c.listed)
		o, err := parseDef(c.kind, c.our)
		if !ok || err != nil {
			t.Fatalf("%q, %q: %v %v", c.listed, c.our, ok, err)
		}
		if got := sameProbe(l, o); got != c.same {
			t.Errorf("sameProbe(%q, %q) = %v", c.listed, c.our, got)
		}
	}
}
