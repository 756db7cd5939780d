package tracefs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/tracefstest"
)

// TestAddedKeyOf pins which events the record keeps, and under what
// binary: uprobes whose target is PATH:OFFSET, a reference counter
// dropped; never kprobes.
func TestAddedKeyOf(t *testing.T) {
	for _, c := range []struct {
		kind   tracefs.Kind
		target string
		path   string // "" when not recorded
	}{
		{tracefs.UProbe, "/bin/app:0x0000000000001139", "/bin/app"},
		{tracefs.UProbe, "/bin/a:b:0x10(0x20)", "/bin/a:b"},
		{tracefs.UProbe, "/bin/app:017", "/bin/app"},
		{tracefs.UProbe, "/bin/app:08", ""},
		{tracefs.UProbe, "/bin/app:+1", ""},
		{tracefs.UProbe, "/bin/app:0x", ""},
		{tracefs.UProbe, "/bin/app", ""},
		{tracefs.UProbe, ":0x10", ""},
		{tracefs.KProbe, "vfs_read+4", ""},
	} {
		k, ok := tracefs.AddedKeyOf(tracefs.Event{Kind: c.kind, Group: "g", Name: "e", Target: c.target})
		if ok != (c.path != "") || ok && (k.Path != c.path || k.Event != "g/e") {
			t.Errorf("%q: %+v %v, want path %q", c.target, k, ok, c.path)
		}
	}
}

// TestRecordAdded pins the record beside the lock: a line per uprobe and
// binary, ChangeCheck's reports (grown, rebuilt, gone; each event once),
// and the records of deleted events dropped at the next add.
func TestRecordAdded(t *testing.T) {
	fsys, _ := tracefstest.New(t)
	app := filepath.Join(t.TempDir(), "app")
	if err := os.WriteFile(app, []byte("v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	id := "aaaa"
	reads := 0
	buildID := func(string) string { reads++; return id }
	ev := func(name string) tracefs.Event {
		return tracefs.Event{Kind: tracefs.UProbe, Type: 'p', Group: "g", Name: name, Target: app + ":0x10"}
	}
	added, err := fsys.Add([]tracefs.Event{ev("e"), ev("f")})
	if err != nil {
		t.Fatal(err)
	}
	if err := fsys.RecordAdded(added, buildID); err != nil {
		t.Fatal(err)
	}
	// Once per binary: a 10,000-line --apply on one program read it
	// 10,000 times.
	if reads != 1 {
		t.Errorf("the binary's build-id read %d times for 2 probes on it", reads)
	}
	rec, _ := os.ReadFile(fsys.AddedPath())
	if want := "g/e\t" + app + "\t2\taaaa\ng/f\t" + app + "\t2\taaaa\n"; string(rec) != want {
		t.Errorf("record:\n%s\nwant\n%s", rec, want)
	}
	check := func() (changes []tracefs.Change) {
		listed, err := fsys.List(tracefs.UProbe)
		if err != nil {
			t.Fatal(err)
		}
		cc := fsys.NewChangeCheck(buildID)
		for _, e := range append(listed, listed...) {
			if ch, ok := cc.Check(e); ok {
				changes = append(changes, ch)
			}
		}
		return changes
	}
	if ch := check(); len(ch) != 0 {
		t.Errorf("unchanged: %+v", ch)
	}
	os.WriteFile(app, []byte("v22"), 0o755)
	if ch := check(); len(ch) != 2 || ch[0].Was.Size != 2 || ch[0].Now.Size != 3 || ch[0].Path != app || ch[0].Gone {
		t.Errorf("grown: %+v", ch)
	}
	id = "bbbb"
	if ch := check(); len(ch) != 2 || ch[1].Was.BuildID != "aaaa" || ch[1].Now.BuildID != "bbbb" {
		t.Errorf("rebuilt: %+v", ch)
	}
	os.Remove(app)
	if ch := check(); len(ch) != 2 || !ch[0].Gone {
		t.Errorf("gone: %+v", ch)
	}
	if _, err := fsys.Delete(tracefs.UProbe, []string{"g:e"}); err != nil {
		t.Fatal(err)
	}
	if err := fsys.RecordAdded(nil, buildID); err != nil {
		t.Fatal(err)
	}
	recs, err := fsys.ReadAdded()
	if _, ok := recs[tracefs.AddedKey{Event: "g/e", Path: app}]; err != nil || ok || len(recs) != 1 {
		t.Errorf("after deleting g:e: %v %+v", err, recs)
	}
}

func TestTargetSplitters(t *testing.T) {
	for _, c := range []struct {
		in       string
		mod, sym string
		off      uint64
		ok       bool
	}{
		{"vfs_read+114", "", "vfs_read", 114, true},
		{"vfs_read", "", "vfs_read", 0, true},
		{"cuse:cuse_process_init_reply.cold+0", "cuse", "cuse_process_init_reply.cold", 0, true},
		{"vfs_read%return", "", "vfs_read", 0, true},
		{"_text+0x10", "", "_text", 16, true},
		{"0xffffffff81000000", "", "", 0, false},
		{"vfs_read+x", "", "", 0, false},
	} {
		mod, sym, off, ok := tracefs.KprobeTarget(c.in)
		if mod != c.mod || sym != c.sym || off != c.off || ok != c.ok {
			t.Errorf("KprobeTarget(%q) = %q %q %d %v", c.in, mod, sym, off, ok)
		}
	}
	for in, want := range map[string]uint64{"/usr/bin/python3.11:0x3423c(0x68326c)": 0x68326c, "/bin/app:0x1168": 0} {
		if got, ok := tracefs.UprobeRefCtr(in); got != want || ok != (want != 0) {
			t.Errorf("UprobeRefCtr(%q) = %#x, %v", in, got, ok)
		}
	}
}
