package elfsym

import (
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// TestCountTable: once Count has built its table, it answers as the scan
// does, for every name.
func TestCountTable(t *testing.T) {
	o, err := elfobj.Open("../../probegen/testdata/tiny/tiny-gcc-O0-dwarf5")
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	st := Load(o)
	want := map[string]int{"no such symbol": 0}
	for _, off := range st.names {
		want[string(elfobj.StrAt(st.strtab, off))]++
	}
	for range countScans + 1 {
		st.Count("main")
	}
	if !st.counts.built {
		t.Fatalf("%d lookups and no table", countScans+1)
	}
	for n, c := range want {
		if got := st.Count(n); got != c {
			t.Errorf("Count(%q) = %d with the table, %d by scan", n, got, c)
		}
	}
}
