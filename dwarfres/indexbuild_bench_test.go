package dwarfres

import (
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// BenchmarkIndexBuild builds the 6.12 amd64 vmlinux's index from a fresh
// open each time, without saving it: the cost a query pays that builds
// one (its encoding included). For profiles: go test -run '^$' -bench IndexBuild -benchtime 1x
// -cpuprofile cpu.out ./dwarfres && go tool pprof -top dwarfres.test cpu.out
func BenchmarkIndexBuild(b *testing.B) {
	bin := dwarftest.NeedCorpus(b, "6.12/amd64/vmlinux")
	for range b.N {
		f, err := Open(bin)
		if err != nil {
			b.Fatal(err)
		}
		x := indexer{f}
		key, _, err := x.indexKey()
		if err != nil {
			b.Fatal(err)
		}
		ix, err := x.buildIndex(nil)
		if err != nil {
			b.Fatal(err)
		}
		encodeIndex(ix, key)
		f.Close()
	}
}
