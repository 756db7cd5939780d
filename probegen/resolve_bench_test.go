package probegen

import (
	"os"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen/grammar"
)

// BenchmarkDefinitionsManyPoints resolves a function inlined into most of
// the kernel (kmalloc: 1,810 points on the Debian 6.1 amd64 vmlinux), the
// case where every point's unit is decoded; its allocations guard against
// decoded units being kept alive across units.
func BenchmarkDefinitionsManyPoints(b *testing.B) {
	f, err := dwarfres.Open(dwarftest.NeedCorpus(b, "amd64/vmlinux"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	spec, err := grammar.ParseSpec("kmalloc")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		defs, _, err := Definitions(f, spec, "", ResolveOptions{MaxProbes: 100000})
		if err != nil || len(defs) < 1000 {
			b.Fatalf("%d definitions, %v", len(defs), err)
		}
	}
}

// BenchmarkDefinitionsManySpecs resolves, in one process, the -D specs of
// the conformance suite that perf accepts (less the deliberate
// differences): the decoding of the units they share is done once.
func BenchmarkDefinitionsManySpecs(b *testing.B) {
	f, err := dwarfres.Open(dwarftest.NeedCorpus(b, "amd64/vmlinux"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	specs := acceptedSpecs(b, "../testdata/conformance/golden/perf-amd64.txt", "../testdata/conformance/allow.txt")
	b.ReportAllocs()
	for b.Loop() {
		failed := 0
		for _, s := range specs {
			spec, err := grammar.ParseSpec(s)
			if err == nil {
				_, _, err = Definitions(f, spec, "", ResolveOptions{MaxProbes: 128})
			}
			if err != nil {
				failed++
			}
		}
		b.ReportMetric(float64(failed), "failed")
	}
}

// acceptedSpecs lists the D specs of a perf golden file that perf
// accepted (exit 0), less those an allow list names.
func acceptedSpecs(b *testing.B, golden, allow string) []string {
	skip := map[string]bool{}
	al, err := os.ReadFile(allow)
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(al), "\n") {
		if f := strings.Split(l, "\t"); len(f) >= 2 && f[0] == "D" {
			skip[f[1]] = true
		}
	}
	g, err := os.ReadFile(golden)
	if err != nil {
		b.Fatal(err)
	}
	var out []string
	lines := strings.Split(string(g), "\n")
	for i, l := range lines {
		if s, ok := strings.CutPrefix(l, "=== D\t"); ok && i+1 < len(lines) && lines[i+1] == "exit 0" && !skip[s] {
			out = append(out, s)
		}
	}
	return out
}

// BenchmarkDefinitionsManyPointsIndexed is BenchmarkDefinitionsManyPoints
// as the CLI runs it warm, on each reference kernel: a fresh File each
// time, its units chosen through the index (built before the timing).
func BenchmarkDefinitionsManyPointsIndexed(b *testing.B) {
	for _, c := range []struct{ vmlinux, fn string }{
		{"amd64/vmlinux", "kmalloc"},
		{"arm64/vmlinux", "kmalloc"},
		{"6.12/amd64/vmlinux", "kmalloc_noprof"},
		{"6.12/arm64/vmlinux", "kmalloc_noprof"},
	} {
		b.Run(strings.ReplaceAll(c.vmlinux, "/", "_"), func(b *testing.B) {
			path := dwarftest.NeedCorpus(b, c.vmlinux)
			dir := b.TempDir()
			spec, err := grammar.ParseSpec(c.fn)
			if err != nil {
				b.Fatal(err)
			}
			f, err := dwarfres.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			if _, r := dwarfres.EnsureIndex(f, dwarfres.IndexOptions{Dir: dir}); !r.Used {
				b.Fatalf("index: %+v", r)
			}
			f.Close()
			b.ReportAllocs()
			for b.Loop() {
				f, err := dwarfres.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				f.UseIndex(dwarfres.IndexOptions{Dir: dir})
				defs, _, err := Definitions(f, spec, "", ResolveOptions{MaxProbes: 100000})
				if err != nil || len(defs) < 1000 {
					b.Fatalf("%d definitions, %v", len(defs), err)
				}
				f.Close()
			}
		})
	}
}
