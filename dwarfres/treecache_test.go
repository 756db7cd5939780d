package dwarfres

import (
	"fmt"
	"reflect"
	"testing"
)

// scopeAnswers is what the variables of item_score's parameter look like
// at every point of the probe: the answers a Scope gives.
func scopeAnswers(t *testing.T, f *File) []string {
	t.Helper()
	ps, err := f.FindProbes(Query{Function: exactName("item_score")})
	if err != nil || len(ps) < 2 {
		t.Fatalf("FindProbes(item_score) = %d probes, %v; want several", len(ps), err)
	}
	var out []string
	for _, p := range ps {
		v, ok := p.Scope.Lookup("it")
		if !ok {
			out = append(out, p.Scope.Func()+": no it")
			continue
		}
		loc, err := p.Scope.Location(v)
		out = append(out, fmt.Sprintf("%s: %s %+v %v %s", p.Scope.Func(), v.Name(), loc, err, p.Scope.PerfRanges(v)))
	}
	return out
}

// TestTreeCacheEvictsAndRedecodes: with a budget that holds one unit, the
// points of a probe in several units still answer as with every unit
// cached (each Scope decodes its unit again), and only one tree is kept.
func TestTreeCacheEvictsAndRedecodes(t *testing.T) {
	bin := needBin(t, "app-gcc-O2-dwarf5")
	all, err := Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	want := scopeAnswers(t, all)

	one, err := Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	one.trees.budget = 1
	got := scopeAnswers(t, one)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("with one unit cached:\n%q\nwant\n%q", got, want)
	}
	if n := one.trees.lru.Len(); n != 1 {
		t.Errorf("%d trees cached; want 1", n)
	}
	if one.trees.decodes <= all.trees.decodes {
		t.Errorf("%d decodes with one unit cached, %d with all: want more (units decoded again)", one.trees.decodes, all.trees.decodes)
	}
}

// TestTreeCacheShared: a second query over the same units (another spec of
// the run) decodes none of them again.
func TestTreeCacheShared(t *testing.T) {
	f, err := Open(needBin(t, "app-gcc-O2-dwarf5"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	scopeAnswers(t, f)
	n := f.trees.decodes
	if n == 0 {
		t.Fatal("nothing decoded")
	}
	scopeAnswers(t, f)
	if f.trees.decodes != n {
		t.Errorf("the same query again decoded %d units more; want 0", f.trees.decodes-n)
	}
}

// TestDeclaringUnitsNotDecoded: a function defined in one unit and called
// (so declared) in another decodes only the defining unit, though the
// reference scan names both.
func TestDeclaringUnitsNotDecoded(t *testing.T) {
	for _, v := range []string{"app-gcc-O2-dwarf5", "app-gcc-O0-dwarf4"} {
		f, err := Open(needBin(t, v))
		if err != nil {
			t.Fatal(err)
		}
		units, _ := f.unitsList()
		refs, _ := unitScan{f}.refScan(units, "util_checksum", f.index())
		ps, err := f.FindProbes(Query{Function: exactName("util_checksum")})
		if err != nil || len(ps) != 1 {
			t.Fatalf("%s: FindProbes(util_checksum) = %+v, %v; want one probe", v, ps, err)
		}
		if len(refs) < 2 || f.trees.decodes != 1 {
			t.Errorf("%s: %d units reference util_checksum, %d decoded; want several and 1", v, len(refs), f.trees.decodes)
		}
		f.Close()
	}
}
