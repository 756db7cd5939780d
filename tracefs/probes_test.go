package tracefs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// existing is a uprobe_events somebody else filled, as the kernel prints it.
const existing = "p:probe_app/work /tmp/tfx/app:0x0000000000001139 x=%di:s32\n" +
	"r:probe_app/work__return /tmp/tfx/app:0x0000000000001139 r=$retval:u64\n"

// checkWrites checks that every write to a probe file was one
// newline-terminated command opened O_APPEND, and returns the commands.
func checkWrites(t *testing.T, calls []call) []string {
	t.Helper()
	var cmds []string
	for _, c := range calls {
		if !strings.HasSuffix(c.file, "_events") {
			cmds = append(cmds, c.file+" <- "+c.data)
			continue
		}
		if c.flag != appendFlag {
			t.Errorf("write to %s with flag %#x, want O_APPEND only", c.file, c.flag)
		}
		if strings.Count(c.data, "\n") != 1 || !strings.HasSuffix(c.data, "\n") {
			t.Errorf("write to %s of %q: not exactly one command", c.file, c.data)
		}
		cmds = append(cmds, strings.TrimSuffix(c.data, "\n"))
	}
	return cmds
}

func TestAddAppends(t *testing.T) {
	root := fakeTree(t, map[string]string{"uprobe_events": existing})
	fsys, k := newFake(t, root, false)
	defs := []string{
		"p:dw/one /tmp/tfx/app:0x1139 x=%di:s32",
		"r:dw/one__return  /tmp/tfx/app:0x1139  r=$retval:u64", // the kernel's spacing is written
	}
	evs, err := fsys.Add(parsed(t, UProbe, defs...))
	if err != nil {
		t.Fatal(err)
	}
	wantCmds := []string{defs[0], "r:dw/one__return /tmp/tfx/app:0x1139 r=$retval:u64"}
	if got := checkWrites(t, k.takeCalls()); !reflect.DeepEqual(got, wantCmds) {
		t.Errorf("writes %q, want %q", got, wantCmds)
	}
	if got, want := readFile(t, root, "uprobe_events"), existing+wantCmds[0]+"\n"+wantCmds[1]+"\n"; got != want {
		t.Errorf("uprobe_events:\n%s\nwant\n%s", got, want)
	}
	want := []Event{
		{Kind: UProbe, Type: 'p', Group: "dw", Name: "one", Target: "/tmp/tfx/app:0x1139", Args: []Arg{{Name: "x", Fetch: "%di", Type: "s32"}}, Raw: wantCmds[0]},
		{Kind: UProbe, Type: 'r', Group: "dw", Name: "one__return", Target: "/tmp/tfx/app:0x1139", Args: []Arg{{Name: "r", Fetch: "$retval", Type: "u64"}}, Raw: wantCmds[1]},
	}
	if !reflect.DeepEqual(evs, want) {
		t.Errorf("Add returned\n%+v\nwant\n%+v", evs, want)
	}
	if evs, err := fsys.Add(nil); evs != nil || err != nil {
		t.Errorf("empty batch: %v, %v", evs, err)
	}
	if len(k.takeCalls()) != 0 {
		t.Error("empty batch wrote")
	}
}

func TestAddRollback(t *testing.T) {
	root := fakeTree(t, map[string]string{"uprobe_events": existing, "error_log": realErrorLog})
	fsys, k := newFake(t, root, false)
	k.rejectNth, k.rejectAt, k.reason = 3, "%nosuchreg", "Invalid register name"
	defs := []string{
		"p:dw/a /tmp/tfx/app:0x1139",
		"p:dw/b /tmp/tfx/app:0x1139",
		"p:dw/c   /tmp/tfx/app:0x1139 y=%nosuchreg",
		"p:dw/d /tmp/tfx/app:0x1139",
	}
	evs, err := fsys.Add(parsed(t, UProbe, defs...))
	var werr *WriteError
	if !errors.As(err, &werr) {
		t.Fatalf("Add = %v, %v; want a *WriteError", evs, err)
	}
	if evs != nil {
		t.Errorf("Add returned events %v with an error", evs)
	}
	if werr.Kind != UProbe || werr.Index != 2 || werr.Errno != syscall.EINVAL || werr.Def != defs[2] || !errors.Is(err, syscall.EINVAL) || !errors.Is(err, ErrRejected) {
		t.Errorf("WriteError %+v", werr)
	}
	if werr.Log == nil || werr.Log.Reason != "Invalid register name" || werr.Log.Command != "p:dw/c /tmp/tfx/app:0x1139 y=%nosuchreg" {
		t.Fatalf("WriteError.Log %+v", werr.Log)
	}
	if werr.Pos != strings.Index(defs[2], "%nosuchreg") {
		t.Errorf("WriteError.Pos %d, want %d (%%nosuchreg in the definition as given)", werr.Pos, strings.Index(defs[2], "%nosuchreg"))
	}
	if werr.Rollback != nil {
		t.Errorf("rollback: %v", werr.Rollback)
	}
	if err.Error() != `uprobe definition 2 "p:dw/c   /tmp/tfx/app:0x1139 y=%nosuchreg": invalid argument: Invalid register name (at byte 31)` {
		t.Errorf("message %q", err)
	}

	wantCmds := []string{defs[0], defs[1], "p:dw/c /tmp/tfx/app:0x1139 y=%nosuchreg", "-:dw/b", "-:dw/a"}
	if got := checkWrites(t, k.takeCalls()); !reflect.DeepEqual(got, wantCmds) {
		t.Errorf("writes\n%q\nwant\n%q", got, wantCmds)
	}
	// Everything was appended: the rejected line never reached the file.
	want := existing + defs[0] + "\n" + defs[1] + "\n-:dw/b\n-:dw/a\n"
	if got := readFile(t, root, "uprobe_events"); got != want {
		t.Errorf("uprobe_events:\n%s\nwant\n%s", got, want)
	}
	if !strings.HasPrefix(readFile(t, root, "error_log"), realErrorLog) {
		t.Error("error_log was cleared")
	}
}

func TestAddRollbackModel(t *testing.T) {
	root := fakeTree(t, map[string]string{"uprobe_events": existing})
	fsys, k := newFake(t, root, true)
	k.rejectNth, k.rejectAt, k.reason = 2, "x=", "Invalid fetch argument"
	_, err := fsys.Add(parsed(t, UProbe, "p:dw/a /bin/x:0x10", "p:dw/b /bin/x:0x10 x=%bad"))
	if !errors.Is(err, ErrRejected) {
		t.Fatalf("Add: %v", err)
	}
	if got := readFile(t, root, "uprobe_events"); got != existing {
		t.Errorf("uprobe_events after rollback:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(root, "events/dw")); err == nil {
		if ents, _ := os.ReadDir(filepath.Join(root, "events/dw")); len(ents) != 0 {
			t.Errorf("events left behind: %v", ents)
		}
	}
}

func TestAddRollbackFails(t *testing.T) {
	root := fakeTree(t, nil)
	fsys, k := newFake(t, root, true)
	k.rejectNth, k.reason = 2, "Invalid fetch argument"
	inner := fsys.writeFile
	fsys.writeFile = func(path string, flag int, data []byte) error {
		if strings.HasPrefix(string(data), "-:") {
			return syscall.EBUSY
		}
		return inner(path, flag, data)
	}
	_, err := fsys.Add(parsed(t, UProbe, "p:dw/a /bin/x:0x10", "p:dw/b /bin/x:0x10"))
	var werr *WriteError
	if !errors.As(err, &werr) || werr.Rollback == nil || !errors.Is(err, syscall.EBUSY) || !strings.Contains(err.Error(), "rollback failed") {
		t.Errorf("Add = %v, want a WriteError with a failed rollback", err)
	}
}

func TestAddRefusesBeforeWriting(t *testing.T) {
	root := fakeTree(t, map[string]string{
		"uprobe_events":                    existing,
		"events/sched/sched_switch/enable": "0\n",
	})
	fsys, k := newFake(t, root, false)
	ten := make([]string, 10)
	for i := range ten {
		ten[i] = fmt.Sprintf("p:dw/e%d /bin/x:0x%x", i, 16*i)
	}
	withBad := func(i int, def string) []string {
		d := append([]string(nil), ten...)
		d[i] = def
		return d
	}
	for _, c := range []struct {
		name string
		defs []string
		want error
	}{
		{"newline in a name", []string{"p:dw/a\nb /bin/x:0x10"}, ErrBadDefinition},
		{"one bad of ten", withBad(7, "p:dw/e7 /bin/x:0x10 x=%di #"), ErrBadDefinition},
		{"last bad of ten", withBad(9, "-:dw/e9"), ErrBadDefinition},
		{"taken", withBad(4, "p:probe_app/work /bin/x:0x10"), ErrEventExists},
		{"taken by a tracepoint", withBad(0, "p:sched/sched_switch /bin/x:0x10"), ErrEventExists},
		{"twice in the batch", withBad(8, "p:dw/e2 /bin/x:0x20"), ErrEventExists},
	} {
		_, err := fsys.Add(parsed(t, UProbe, c.defs...))
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
		if calls := k.takeCalls(); len(calls) != 0 {
			t.Errorf("%s: wrote %+v", c.name, calls)
		}
	}
	if got := readFile(t, root, "uprobe_events"); got != existing {
		t.Errorf("uprobe_events changed:\n%s", got)
	}
	if ok, err := fsys.exists(UProbe, "probe_app", "work"); !ok || err != nil {
		t.Errorf("Exists(probe_app/work) = %v, %v", ok, err)
	}
	if ok, err := fsys.exists(UProbe, "sched", "sched_switch"); !ok || err != nil {
		t.Errorf("Exists(sched/sched_switch) = %v, %v", ok, err)
	}
	if ok, err := fsys.exists(UProbe, "dw", "e1"); ok || err != nil {
		t.Errorf("Exists(dw/e1) = %v, %v", ok, err)
	}
	if _, err := fsys.exists(UProbe, "..", "x"); !errors.Is(err, ErrBadDefinition) {
		t.Errorf("Exists(../x): %v", err)
	}
}

func TestAddConcurrent(t *testing.T) {
	// Separate FS values with their own lock file descriptors, as separate
	// processes would have: exactly one of them gets the name.
	root := fakeTree(t, nil)
	_, k := newFake(t, root, true)
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		fsys, err := Open(root)
		if err != nil {
			t.Fatal(err)
		}
		fsys.writeFile = k.write
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = fsys.Add(parsed(t, UProbe, "p:dw/same /bin/x:0x10", fmt.Sprintf("p:dw/own%d /bin/x:0x10", i)))
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, ErrEventExists):
			t.Errorf("Add: %v", err)
		}
	}
	if ok != 1 {
		t.Errorf("%d processes added dw/same, want 1", ok)
	}
	if got := strings.Count(readFile(t, root, "uprobe_events"), "p:dw/same "); got != 1 {
		t.Errorf("dw/same listed %d times", got)
	}
}

// deleteTree is a modelled tracefs with uprobes in three groups.
func deleteTree(t *testing.T) (string, *FS, *fakeKernel) {
	var lines []string
	files := map[string]string{}
	for _, id := range []string{"probe/vfs_read", "probe/vfs_write", "other/vfs_read", "probe/a1", "probe/b1", "probe/c1", "probe_app/work"} {
		lines = append(lines, "p:"+id+" /bin/x:0x0000000000000010")
		files["events/"+id+"/enable"] = "0\n"
	}
	// A second probe of the same event (the kernel lists both).
	lines = append(lines, "p:probe/a1 /bin/x:0x0000000000000020")
	files["uprobe_events"] = strings.Join(lines, "\n") + "\n"
	root := fakeTree(t, files)
	fsys, k := newFake(t, root, true)
	return root, fsys, k
}

func TestDelete(t *testing.T) {
	for _, c := range []struct {
		patterns []string
		want     []string
	}{
		{[]string{"vfs_read"}, []string{"probe:vfs_read", "other:vfs_read"}},
		{[]string{"probe:vfs_read"}, []string{"probe:vfs_read"}},
		{[]string{"*:vfs_read"}, []string{"probe:vfs_read", "other:vfs_read"}},
		{[]string{"probe:[ab]1"}, []string{"probe:a1", "probe:b1"}},
		{[]string{"[!a-b]1"}, []string{"probe:c1"}},
		{[]string{"probe:vfs_?????"}, []string{"probe:vfs_write"}},
		{[]string{"other:*", "probe_app:*"}, []string{"other:vfs_read", "probe_app:work"}},
		{[]string{"probe*"}, []string{"probe:vfs_read", "probe:vfs_write", "probe:a1", "probe:b1", "probe:c1", "probe_app:work"}},
		{[]string{"*"}, []string{"probe:vfs_read", "probe:vfs_write", "other:vfs_read", "probe:a1", "probe:b1", "probe:c1", "probe_app:work"}},
	} {
		root, fsys, k := deleteTree(t)
		got, err := fsys.Delete(UProbe, c.patterns)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Delete(%q) = %q, %v; want %q", c.patterns, got, err, c.want)
			continue
		}
		var wantCmds []string
		for _, name := range c.want {
			wantCmds = append(wantCmds, "-:"+strings.Replace(name, ":", "/", 1))
		}
		if cmds := checkWrites(t, k.takeCalls()); !reflect.DeepEqual(cmds, wantCmds) {
			t.Errorf("Delete(%q) wrote %q, want %q", c.patterns, cmds, wantCmds)
		}
		left, err := fsys.List(UProbe)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range left {
			for _, name := range c.want {
				if e.PerfName() == name {
					t.Errorf("Delete(%q): %s still listed", c.patterns, name)
				}
			}
		}
		if _, err := os.Stat(filepath.Join(root, "events/probe/a1")); (err == nil) == strings.Contains(strings.Join(c.want, " "), "probe:a1") {
			t.Errorf("Delete(%q): events/probe/a1 exists = %v", c.patterns, err == nil)
		}
	}

	_, fsys, k := deleteTree(t)
	for _, patterns := range [][]string{{"nosuch"}, {"probe:vfs_re"}, {"other:vfs_write"}, nil} {
		if got, err := fsys.Delete(UProbe, patterns); !errors.Is(err, ErrNoMatch) || got != nil {
			t.Errorf("Delete(%q) = %q, %v; want ErrNoMatch", patterns, got, err)
		}
	}
	if calls := k.takeCalls(); len(calls) != 0 {
		t.Errorf("no-match deletes wrote %+v", calls)
	}
}

func TestDeleteDisablesFirst(t *testing.T) {
	root, fsys, k := deleteTree(t)
	if err := os.WriteFile(filepath.Join(root, "events/probe/b1/enable"), []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := fsys.Delete(UProbe, []string{"probe:[abc]1"})
	if err != nil || !reflect.DeepEqual(got, []string{"probe:a1", "probe:b1", "probe:c1"}) {
		t.Fatalf("Delete = %q, %v", got, err)
	}
	calls := k.takeCalls()
	want := []string{"-:probe/a1", "events/probe/b1/enable <- 0\n", "-:probe/b1", "-:probe/c1"}
	if cmds := checkWrites(t, calls); !reflect.DeepEqual(cmds, want) {
		t.Errorf("writes %q, want %q", cmds, want)
	}
	if calls[1].flag != replaceFlag {
		t.Errorf("enable written with flag %#x", calls[1].flag)
	}
}

func TestDeleteStopsAtFailure(t *testing.T) {
	_, fsys, k := deleteTree(t)
	inner := fsys.writeFile
	fsys.writeFile = func(path string, flag int, data []byte) error {
		if string(data) == "-:probe/b1\n" {
			return syscall.EBUSY
		}
		return inner(path, flag, data)
	}
	got, err := fsys.Delete(UProbe, []string{"probe:?1"})
	if !errors.Is(err, syscall.EBUSY) || !reflect.DeepEqual(got, []string{"probe:a1"}) || !strings.Contains(err.Error(), "in use") {
		t.Errorf("Delete = %q, %v", got, err)
	}
	k.takeCalls()
}

func TestEnable(t *testing.T) {
	root, fsys, k := deleteTree(t)
	if err := fsys.Enable("probe", "vfs_read", true); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, root, "events/probe/vfs_read/enable"); got != "1\n" {
		t.Errorf("enable = %q", got)
	}
	if err := fsys.Enable("probe", "vfs_read", false); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, root, "events/probe/vfs_read/enable"); got != "0\n" {
		t.Errorf("enable = %q", got)
	}
	for _, c := range [][2]string{{"probe", "nosuch"}, {"..", "x"}, {"probe", "../../../README"}, {"", "x"}} {
		if err := fsys.Enable(c[0], c[1], true); !errors.Is(err, ErrNoEvent) {
			t.Errorf("Enable(%q, %q): %v, want ErrNoEvent", c[0], c[1], err)
		}
	}
	calls := k.takeCalls()
	if len(calls) != 2 || calls[0].flag != replaceFlag {
		t.Errorf("writes %+v", calls)
	}
}

func TestKinds(t *testing.T) {
	root := fakeTree(t, nil)
	if err := os.Remove(filepath.Join(root, "kprobe_events")); err != nil {
		t.Fatal(err)
	}
	fsys, k := newFake(t, root, false)
	if _, err := fsys.List(KProbe); !errors.Is(err, ErrNotSupported) || !strings.Contains(err.Error(), "CONFIG_KPROBE_EVENTS") {
		t.Errorf("List(KProbe) without kprobe_events: %v", err)
	}
	if _, err := fsys.Add(parsed(t, KProbe, "p:g/e f")); !errors.Is(err, ErrNotSupported) {
		t.Errorf("Add(KProbe) without kprobe_events: %v", err)
	}
	if _, err := fsys.Delete(Kind(0), []string{"*"}); !errors.Is(err, ErrNotSupported) {
		t.Errorf("Delete(Kind(0)): %v", err)
	}
	if evs, err := fsys.List(UProbe); evs != nil || err != nil {
		t.Errorf("empty uprobe_events: %v, %v", evs, err)
	}
	if len(k.takeCalls()) != 0 {
		t.Error("wrote")
	}
	if KProbe.String() != "kprobe" || UProbe.String() != "uprobe" || Kind(9).String() != "Kind(9)" {
		t.Error("Kind.String")
	}
}

func TestOpen(t *testing.T) {
	root := fakeTree(t, nil)
	fsys, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if fsys.Root() != root || fsys.lockPath != filepath.Join(root, ".dwprobe.lock") {
		t.Errorf("Open: root %q, lock %q", fsys.Root(), fsys.lockPath)
	}
	if _, err := Open(t.TempDir()); !errors.Is(err, ErrNotMounted) {
		t.Errorf("Open(dir without README): %v", err)
	}
}

func TestSysWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"a\n", "b\n"} {
		if err := sysWrite(path, appendFlag, []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if got := readFile(t, filepath.Dir(path), "f"); got != "old\na\nb\n" {
		t.Errorf("after appends: %q", got)
	}
	if err := sysWrite(path, replaceFlag, []byte("1\n")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Dir(path), "f"); got != "1\n" {
		t.Errorf("after replace: %q", got)
	}
	if err := sysWrite(filepath.Join(t.TempDir(), "missing"), appendFlag, nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
