package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/tracefs"
)

// TestListingComments: on a kernel that lists '#' lines after each probe
// (Linux 7.3's fetch-program dump), -a, -l, -d and the batch's checks
// read the listing as they do without them: the same -l, the same names
// taken, and -d leaves no comment behind.
func TestListingComments(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	session := func(comments bool) (list string, listing string) {
		_, k := fakeTracefs(t)
		k.Comments = comments
		args := []string{"-q", "-x", app}
		for _, s := range appSpecs {
			args = append(args, "-a", s)
		}
		if _, errOut, err := dw(args...); err != nil {
			t.Fatalf("comments %v: -a: %v\n%s", comments, err, errOut)
		}
		if comments && !strings.Contains(k.File("uprobe_events"), "\n#") {
			t.Fatalf("the model listed no comment:\n%s", k.File("uprobe_events"))
		}
		// A name the listing holds is taken, comments or not.
		if _, _, err := dw("-q", "-x", app, "-a", "g1:e1=work"); !errors.Is(err, tracefs.ErrEventExists) {
			t.Errorf("comments %v: adding g1:e1 again: %v, want ErrEventExists", comments, err)
		}
		out, errOut, err := dw("-l")
		if err != nil {
			t.Fatalf("comments %v: -l: %v\n%s", comments, err, errOut)
		}
		if _, errOut, err := dw("-q", "-d", "probe_app:item_score"); err != nil {
			t.Fatalf("comments %v: -d: %v\n%s", comments, err, errOut)
		}
		return out, k.File("uprobe_events")
	}
	plain, plainLeft := session(false)
	with, withLeft := session(true)
	if with != plain || plain == "" {
		t.Errorf("-l with comments:\n%s\nwithout:\n%s", with, plain)
	}
	var kept []string
	for _, l := range strings.Split(withLeft, "\n") {
		if !tracefs.ListingComment(l) && l != "" {
			kept = append(kept, l)
		}
	}
	if strings.Join(kept, "\n")+"\n" != plainLeft || strings.Contains(withLeft, "item_score") {
		t.Errorf("after -d, with comments:\n%s\nwithout:\n%s", withLeft, plainLeft)
	}
}

// TestListingCommentsJournalApply: with '#' lines in the listing (Linux
// 7.3 built with CONFIG_PROBE_EVENTS_DUMP_FETCHARG, which Debian's 7.3 is
// not, so no booted guest prints them: TestQEMUForms73 checks that), the
// batch's check of what it wrote (--apply) and the recovery of a killed
// batch's journal read the listing as without them: the batch succeeds,
// the recovery removes exactly what the journal recorded and leaves
// perf's event, and no '#' line outlives its probe.
func TestListingCommentsJournalApply(t *testing.T) {
	fsys, k := fakeTracefs(t)
	k.Comments = true
	if _, errOut, err := dw("--apply", writeTemp(t, "p:probe_true/main /bin/true:0x10\np:dw/a /bin/true:0x20 x=%ax\np:dw/b /bin/true:0x30 y=+8(%sp):u32\n")); err != nil {
		t.Fatalf("--apply with '#' lines: %v\n%s", err, errOut)
	}
	if l := k.File("uprobe_events"); strings.Count(l, "\n#") < 3 {
		t.Fatalf("the model listed too few '#' lines:\n%s", l)
	}
	id := func(ev string) string {
		b, _ := os.ReadFile(filepath.Join(k.Root, "events", ev, "id"))
		return strings.TrimSpace(string(b))
	}
	plantJournal(t, fsys.LockPath(), "# killed\nuprobe\tp:probe_true/main /bin/true:0x10\nuprobe\tp:dw/a /bin/true:0x20 x=%ax\nuprobe\tp:dw/b /bin/true:0x30 y=+8(%sp):u32\n"+
		"wrote\t0\t999999\nwrote\t1\t"+id("dw/a")+"\nwrote\t2\t"+id("dw/b")+"\n")
	_, errOut, _ := dw("-d", "nosuch")
	if !strings.Contains(errOut, "removed what it had added: dw:b dw:a\n") {
		t.Errorf("the recovery said:\n%s\nwant dw:b and dw:a removed", errOut)
	}
	out, lerr, err := dw("-l")
	if err != nil {
		t.Fatalf("-l: %v\n%s", err, lerr)
	}
	if strings.Contains(out, "#") || !strings.Contains(out, "probe_true:main") || strings.Contains(out, "dw:a") {
		t.Errorf("-l after the recovery:\n%s", out)
	}
	left := k.File("uprobe_events")
	var defs []string
	for _, l := range strings.Split(strings.TrimSpace(left), "\n") {
		if !tracefs.ListingComment(l) {
			defs = append(defs, l)
		}
	}
	if len(defs) != 1 || !strings.HasPrefix(defs[0], "p:probe_true/main ") || strings.Contains(left, "dw/a") || strings.Contains(left, "dw/b") {
		t.Errorf("uprobe_events after the recovery:\n%s", left)
	}
}
