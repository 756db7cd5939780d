package probegen

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/listing"
	"github.com/dwprobe/dwprobe/probegen/sources"
)

// binarySpecs are the -D commands run on a fuzzed binary: every kind of
// point (function, line, return, inline, file line, lazy pattern,
// offset, address) with arguments that read members, arrays, bitfields,
// globals, $vars and $params, and so every reader a resolution calls.
var binarySpecs = []string{
	"walk n->name:string n->at.y n->vals[1] n->flags sum i limit counter",
	"walk:4 sum i n->next->at.x",
	"walk:5 i",
	"walk%return $retval",
	"weight $vars",
	"walk $params",
	"tiny.c:31 sum",
	"walk;sum*",
	"walk+4",
	"0x10",
	"_start",
}

// binaryPoints are the -V points, binaryRanges the -L ranges.
var (
	binaryPoints = []string{"walk", "walk:4", "weight", "tiny.c:33"}
	binaryRanges = []string{"walk", "weight:0-3", "tiny.c:20-40"}
)

// FuzzBinary runs the whole path from spec to definition on a fuzzed
// binary, as -D, -V, -L, -F and -l do: every call answers or refuses,
// never panics, and -D and -V fail exactly when they have no result.
// pick chooses which one of the -D, -V and -L commands runs (one per
// execution, so that a million executions fit in a test run). Seeds: tiny.c
// built by gcc and clang at -O0 and -O2 with DWARF 4 and 5
// (testdata/tiny) and as a relocatable object (a module), and each of them with empty line-program file tables
// (issue 11: the "available at line" hint indexed the table), with every
// pick.
func FuzzBinary(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/tiny/tiny-*-dwarf?")
	if len(seeds) == 0 {
		f.Fatal("no seeds in testdata/tiny (run testdata/tiny/build.sh)")
	}
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		bad, err := dwarftest.EmptyLineFiles(b)
		if err != nil {
			f.Fatalf("%s: %v", p, err)
		}
		for pick := range binaryCommands {
			f.Add(b, uint8(pick))
			f.Add(bad, uint8(pick))
		}
	}
	path := filepath.Join(f.TempDir(), "tiny")
	noSource := &sources.Sources{Root: f.TempDir()}
	f.Fuzz(func(t *testing.T, bin []byte, pick uint8) {
		if len(bin) > 1<<16 {
			return
		}
		if err := os.WriteFile(path, bin, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := dwarfres.Open(path)
		if err != nil {
			if d != nil {
				t.Fatalf("Open: a File with error %v", err)
			}
			return
		}
		defer d.Close()
		fuzzCommand(t, d, path, noSource, int(pick)%binaryCommands)
		fuzzFuncs(d)
	})
}

// binaryCommands is how many -D, -V and -L commands FuzzBinary picks from.
var binaryCommands = len(binarySpecs) + len(binaryPoints) + len(binaryRanges)

// fuzzCommand runs the n-th of the -D, -V and -L commands.
func fuzzCommand(t *testing.T, d *dwarfres.File, path string, src *sources.Sources, n int) {
	switch {
	case n < len(binarySpecs):
		fuzzDefinitions(t, d, path, binarySpecs[n])
	case n < len(binarySpecs)+len(binaryPoints):
		fuzzVars(t, d, binaryPoints[n-len(binarySpecs)])
	default:
		fuzzLines(t, d, binaryRanges[n-len(binarySpecs)-len(binaryPoints)], src)
	}
}

// fuzzLazyLines matches lines 30 to 35 of any file, in place of reading
// the source.
func fuzzLazyLines(string) func(file, compDir string) (map[int]bool, error) {
	return func(string, string) (map[int]bool, error) {
		return map[int]bool{30: true, 31: true, 32: true, 33: true, 34: true, 35: true}, nil
	}
}

// fuzzDefinitions is -D, then -l's mapping of each definition back to a
// source point.
func fuzzDefinitions(t *testing.T, d *dwarfres.File, path, raw string) {
	spec, err := grammar.ParseSpec(raw)
	if err != nil {
		t.Fatal(err)
	}
	exe := path
	if d.IsModule() { // kprobes on a module, as -m
		exe = ""
	}
	defs, _, err := Definitions(d, spec, exe, ResolveOptions{LazyLines: fuzzLazyLines})
	if (err == nil) != (len(defs) > 0) {
		t.Fatalf("-D %q: %d definitions, error %v", raw, len(defs), err)
	}
	m := d.NewPointMapper()
	for _, def := range defs {
		tp, err := listing.ParseTracePoint(def.Target, exe != "", def.Type == 'r')
		if err != nil {
			t.Fatalf("-D %q: %q does not parse back: %v", raw, def.String(), err)
		}
		tp.Describe(m)
	}
}

// fuzzVars is -V with --externs and --range.
func fuzzVars(t *testing.T, d *dwarfres.File, raw string) {
	spec, err := grammar.ParseSpec(raw)
	if err != nil {
		t.Fatal(err)
	}
	vl, err := AvailableVars(d, spec, ResolveOptions{User: true, LazyLines: fuzzLazyLines}, listing.VarOptions{Externs: true, Ranges: true})
	if (err == nil) != (len(vl) > 0) {
		t.Fatalf("-V %q: %d lists, error %v", raw, len(vl), err)
	}
}

// fuzzLines is -L without the source (src finds none): a listing of the
// probeable lines, or an error.
func fuzzLines(t *testing.T, d *dwarfres.File, raw string, src *sources.Sources) {
	l, err := ListLines(d, raw, src)
	if (err == nil) != (l != nil) || l != nil && (l.Found || len(l.Lines) == 0) {
		t.Fatalf("-L %q: %+v, %v", raw, l, err)
	}
}

// fuzzFuncs is -F with perf's default filter.
func fuzzFuncs(d *dwarfres.File) {
	flt, _ := lazymatch.ParseFilter("!_* & !*@plt")
	d.Symbols().Each(func(s dwarfres.Sym) { flt.Match(s.Name) })
}
