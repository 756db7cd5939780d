package tracefs

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestAddMulti: the probes of one event are written in order and read
// back one listing line each; names that exist already are still refused.
func TestAddMulti(t *testing.T) {
	root := fakeTree(t, map[string]string{"uprobe_events": existing})
	fsys, k := newFake(t, root, true)
	defs := []string{"p:dw/a /bin/x:0x10", "p:dw/b /bin/x:0x20", "p:dw/a /bin/x:0x30"}
	evs, err := fsys.AddMulti(parsed(t, UProbe, defs...))
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, e := range evs {
		targets = append(targets, e.PerfName()+" "+e.Target)
	}
	if want := []string{"dw:a /bin/x:0x10", "dw:b /bin/x:0x20", "dw:a /bin/x:0x30"}; !reflect.DeepEqual(targets, want) {
		t.Errorf("AddMulti returned %q, want %q", targets, want)
	}
	if cmds := checkWrites(t, k.takeCalls()); !reflect.DeepEqual(cmds, defs) {
		t.Errorf("wrote %q, want %q", cmds, defs)
	}
	// dw/a exists now: a batch may not extend it.
	if _, err := fsys.AddMulti(parsed(t, UProbe, "p:dw/c /bin/x:0x10", "p:dw/a /bin/x:0x40")); !errors.Is(err, ErrEventExists) {
		t.Errorf("AddMulti onto an existing event: %v, want ErrEventExists", err)
	}
	if _, err := fsys.Add(parsed(t, UProbe, "p:dw/d /bin/x:0x10", "p:dw/d /bin/x:0x20")); !errors.Is(err, ErrEventExists) {
		t.Errorf("Add with a repeated name: %v, want ErrEventExists", err)
	}
	if calls := k.takeCalls(); len(calls) != 0 {
		t.Errorf("refused batches wrote %+v", calls)
	}
}

// TestAddMultiRollback: a refused second probe of an event deletes every
// event of the batch once, that one included.
func TestAddMultiRollback(t *testing.T) {
	root := fakeTree(t, map[string]string{"uprobe_events": existing})
	fsys, k := newFake(t, root, true)
	k.rejectNth, k.rejectAt, k.reason = 3, "x=", "Argument type or name is different"
	_, err := fsys.AddMulti(parsed(t, UProbe, "p:dw/a /bin/x:0x10 x=%di", "p:dw/b /bin/x:0x20", "p:dw/a /bin/x:0x30 x=%si:u8", "p:dw/c /bin/x:0x40"))
	var werr *WriteError
	if !errors.As(err, &werr) || werr.Index != 2 || werr.Rollback != nil || werr.Log == nil || werr.Log.Reason != "Argument type or name is different" {
		t.Fatalf("AddMulti = %v", err)
	}
	want := []string{"p:dw/a /bin/x:0x10 x=%di", "p:dw/b /bin/x:0x20", "p:dw/a /bin/x:0x30 x=%si:u8", "-:dw/b", "-:dw/a"}
	if cmds := checkWrites(t, k.takeCalls()); !reflect.DeepEqual(cmds, want) {
		t.Errorf("wrote %q, want %q", cmds, want)
	}
	if got := readFile(t, root, "uprobe_events"); got != existing {
		t.Errorf("uprobe_events after rollback:\n%s", got)
	}
}

func TestMultiProbe(t *testing.T) {
	for readme, want := range map[string]bool{
		"  uprobe_events\t\t- Create/append/remove/show the userspace dynamic events\n": true,
		"  uprobe_events\t\t- Add/remove/show the userspace dynamic events\n":           false,
	} {
		root := fakeTree(t, map[string]string{"README": readme})
		fsys, err := Open(root)
		if err != nil {
			t.Fatal(err)
		}
		if got := fsys.MultiProbe(); got != want {
			t.Errorf("MultiProbe with README %q = %v", readme, got)
		}
		if err := os.Remove(filepath.Join(root, "README")); err != nil {
			t.Fatal(err)
		}
		if fsys.MultiProbe() {
			t.Error("MultiProbe without README")
		}
	}
}

// TestOpenWith: every write goes through the given function.
func TestOpenWith(t *testing.T) {
	root := fakeTree(t, nil)
	var got []string
	fsys, err := OpenWith(root, func(path string, flag int, data []byte) error {
		got = append(got, filepath.Base(path)+": "+strings.TrimSuffix(string(data), "\n"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fsys.Add(parsed(t, KProbe, "p:g/e vfs_read")); err != nil {
		t.Fatal(err)
	}
	if want := []string{"kprobe_events: p:g/e vfs_read"}; !reflect.DeepEqual(got, want) {
		t.Errorf("writes %q, want %q", got, want)
	}
	if readFile(t, root, "kprobe_events") != "" {
		t.Error("OpenWith wrote to the file itself")
	}
	if _, err := OpenWith(t.TempDir(), nil); !errors.Is(err, ErrNotMounted) {
		t.Errorf("OpenWith(dir without README): %v", err)
	}
}
