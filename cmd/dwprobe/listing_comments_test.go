package main

import (
	"errors"
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
