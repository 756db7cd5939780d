package elfsym

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
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

// TestNamedTable: once Lookup and Named have built their table, they
// answer as the scan does (versioned names of libc included), and Named
// stays out of a table with mangled names.
func TestNamedTable(t *testing.T) {
	for _, c := range []struct {
		path    string
		mangled bool
	}{
		{"../../probegen/testdata/tiny/tiny-gcc-O0-dwarf5", false},
		{"/lib/x86_64-linux-gnu/libc.so.6", false},
		{"/usr/lib/x86_64-linux-gnu/libstdc++.so.6", true},
	} {
		o, err := elfobj.Open(c.path)
		if err != nil {
			t.Logf("%s: %v", c.path, err)
			continue
		}
		st := Load(o)
		scan := map[string][]Sym{}
		plain := map[string][]Sym{"no such symbol": nil}
		st.Each(func(s Sym) {
			scan[s.Name] = append(scan[s.Name], s)
			n, _, _ := strings.Cut(s.Name, "@")
			plain[n] = append(plain[n], s)
		})
		for range nameScans + 1 {
			st.Lookup("main")
		}
		if !st.named.built {
			t.Fatalf("%s: %d lookups and no table", c.path, nameScans+1)
		}
		for n, want := range scan {
			if got := st.Lookup(n); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: Lookup(%q) = %v with the table, %v by scan", c.path, n, got, want)
			}
		}
		for n, want := range plain {
			got, ok := st.Named(n)
			if ok == c.mangled || ok && !reflect.DeepEqual(got, want) {
				t.Errorf("%s: Named(%q) = %v, %v; by scan %v", c.path, n, got, ok, want)
			}
		}
		o.Close()
	}
}

// TestMappingSymbol pins the kernel's is_mapping_symbol: arm64 6.12's
// $d at empty_fops.0's address named the global @$d+0, which kallsyms
// never lists.
func TestMappingSymbol(t *testing.T) {
	for n, want := range map[string]bool{
		"$d": true, "$x": true, "$d.12": true, ".Ltmp3": true, "L0": true,
		"empty_fops.0": false, "jiffies": false, "L1_cache": false, "": false, "d$": false,
	} {
		if got := isMappingSymbol([]byte(n)); got != want {
			t.Errorf("isMappingSymbol(%q) = %v, want %v", n, got, want)
		}
	}
}

// TestCountAhead: the counts CountAhead finds in one scan are Count's,
// from the table's map and from an index's record, for names that are
// unique, repeated, one byte long or absent.
func TestCountAhead(t *testing.T) {
	t.Run("tiny", func(t *testing.T) { countAhead(t, "../../probegen/testdata/tiny/tiny-gcc-O0-dwarf5", 1) })
	// Every 50th name of the vmlinux, where many are not unique.
	t.Run("vmlinux", func(t *testing.T) { countAhead(t, dwarftest.NeedCorpus(t, "amd64/vmlinux"), 50) })
}

func countAhead(t *testing.T, path string, step int) {
	o, err := elfobj.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	ref := Load(o)
	all := map[string]int{}
	for _, off := range ref.names {
		all[string(elfobj.StrAt(ref.strtab, off))]++
	}
	want := map[string]int{"no such symbol": 0, "x": all["x"], "m": all["m"]}
	repeated := 0
	for i, off := range ref.names {
		if n := string(elfobj.StrAt(ref.strtab, off)); i%step == 0 {
			want[n] = all[n]
			if all[n] > 1 {
				repeated++
			}
		}
	}
	if step > 1 && repeated == 0 {
		t.Fatal("no name of the sample is repeated")
	}
	var names []string
	for n := range want {
		names = append(names, n)
	}
	rec, ok := Decode(o, Encode(o, Load(o)))
	if !ok {
		t.Fatal("the record does not decode")
	}
	for what, st := range map[string]*Symtab{"map": Load(o), "record": rec} {
		st.CountAhead(names)
		if len(st.known.m) != len(names) {
			t.Errorf("%s: %d names counted ahead, want %d", what, len(st.known.m), len(names))
		}
		for n, c := range want {
			if got := st.Count(n); got != c {
				t.Errorf("%s: Count(%q) = %d after CountAhead, %d by scan", what, n, got, c)
			}
		}
	}
}

// TestEachTextName: EachTextName's names are those of Each's symbols,
// as many times each, from the table alone.
func TestEachTextName(t *testing.T) {
	o, err := elfobj.Open(dwarftest.NeedCorpus(t, "amd64/vmlinux"))
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	var want, got []string
	Load(o).Each(func(s Sym) { want = append(want, s.Name) })
	EachTextName(o, func(n string) { got = append(got, strings.Clone(n)) })
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) || len(got) < 10000 {
		t.Errorf("EachTextName gave %d names, Each %d (or they differ)", len(got), len(want))
	}
}
