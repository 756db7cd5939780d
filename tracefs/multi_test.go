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

// TestAddBothKinds: kprobes and uprobes of one batch are written in order
// to their own files, and a refused uprobe deletes the kprobes written
// before it too, last first.
func TestAddBothKinds(t *testing.T) {
	root := fakeTree(t, nil)
	fsys, k := newFake(t, root, true)
	k.rejectNth, k.reason = 4, "Invalid fetch argument"
	evs := append(parsed(t, KProbe, "p:dwk/a vfs_read+0"), parsed(t, UProbe, "p:dwu/a /bin/x:0x10")...)
	evs = append(evs, parsed(t, KProbe, "p:dwk/b vfs_write+0")...)
	evs = append(evs, parsed(t, UProbe, "p:dwu/b /bin/x:0x20")...)
	_, err := fsys.Add(evs)
	var werr *WriteError
	if !errors.As(err, &werr) || werr.Index != 3 || werr.Kind != UProbe || werr.Rollback != nil {
		t.Fatalf("Add = %v, want the 4th (a uprobe) refused and rolled back", err)
	}
	var got []string
	for _, c := range k.takeCalls() {
		got = append(got, c.file+": "+strings.TrimSuffix(c.data, "\n"))
	}
	want := []string{"kprobe_events: p:dwk/a vfs_read+0", "uprobe_events: p:dwu/a /bin/x:0x10",
		"kprobe_events: p:dwk/b vfs_write+0", "uprobe_events: p:dwu/b /bin/x:0x20",
		"kprobe_events: -:dwk/b", "uprobe_events: -:dwu/a", "kprobe_events: -:dwk/a"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("writes\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if readFile(t, root, "kprobe_events")+readFile(t, root, "uprobe_events") != "" {
		t.Error("probes left after the rollback")
	}
	// One name for a kprobe and a uprobe is refused before writing.
	_, err = fsys.AddMulti(append(parsed(t, KProbe, "p:dw/x f"), parsed(t, UProbe, "p:dw/x /bin/x:0x10")...))
	if !errors.Is(err, ErrEventExists) || len(k.takeCalls()) != 0 {
		t.Errorf("one name for two kinds: %v", err)
	}
}

func TestParseDynamic(t *testing.T) {
	for def, want := range map[string]Kind{
		"p:g/e vfs_read+0":             KProbe,
		"p:g/e ext4:ext4_sync_fs":      KProbe,
		"p:g/e /bin/x:0x10":            UProbe,
		"r:g/e /a:b/c:0x10 %ax":        UProbe,
		"p:g/e 0xffffffff81000000 %di": KProbe,
	} {
		if ev, err := ParseDynamic(def); err != nil || ev.Kind != want {
			t.Errorf("ParseDynamic(%q) = %v, %v; want a %v", def, ev.Kind, err, want)
		}
	}
}
