package dwarfres

import (
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestScanTablesAgree: the tables built for probes with many points answer
// funcSymbolAt and hasFtraceSite as the scans of a query's first points
// do, on the real vmlinux of both machines (arm64's ftrace sites are the
// addends of relocations, amd64's the table itself): at each function
// symbol's start, middle and end, and at addresses between symbols.
func TestScanTablesAgree(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			f, err := Open(dwarftest.NeedCorpus(t, arch+"/vmlinux"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			start, stop, ok := f.ftraceTable()
			if !ok {
				t.Fatal("no ftrace table")
			}
			syms := f.sortedFuncSyms()
			sites := f.sortedFtraceSites(start, stop)
			if len(syms.syms) < 10000 || len(sites) < 10000 {
				t.Fatalf("%d function symbols, %d ftrace sites", len(syms.syms), len(sites))
			}
			checked, notrace := 0, 0
			for i := 0; i < len(syms.syms); i += 401 { // each scan reads the whole table
				s := syms.syms[i]
				for _, a := range []uint64{s.value, s.value + s.size/2, s.value + s.size - 1, s.value + s.size} {
					wb, wf := f.scanFuncSyms(a)
					gb, gf := syms.at(a)
					if wb != gb || wf != gf {
						t.Fatalf("funcSymbolAt(%#x): scan %+v %v, table %+v %v", a, wb, wf, gb, gf)
					}
				}
				wf, wk := f.scanFtraceSites(start, stop, s.value, s.value+s.size)
				gf, gk := ftraceSiteIn(sites, s.value, s.value+s.size)
				if wf != gf || wk != gk {
					t.Fatalf("hasFtraceSite(%#x-%#x): scan %v %v, table %v %v", s.value, s.value+s.size, wf, wk, gf, gk)
				}
				checked++
				if !wf {
					notrace++
				}
			}
			t.Logf("%d functions checked, %d of them without an ftrace site", checked, notrace)
		})
	}
}

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
