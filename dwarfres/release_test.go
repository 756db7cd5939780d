package dwarfres

import "testing"

// TestReleasePages: a query after ReleasePages answers as before it, the
// pages read again from the file.
func TestReleasePages(t *testing.T) {
	f, err := Open(needBin(t, "app-gcc-O2-dwarf5"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	q := Query{Function: exactName("item_score")}
	before := probesString(f.FindProbes(q))
	f.ReleasePages()
	if after := probesString(f.FindProbes(q)); after != before {
		t.Fatalf("after ReleasePages: %s, before: %s", after, before)
	}
}
