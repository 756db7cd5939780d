package dwarfres

import (
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// BenchmarkLineWalks is the line code's cost, as the CLI runs it warm on
// the 6.1 amd64 vmlinux: a fresh File each time, its units chosen through
// the index (built before the timing), then -L --detail of a function and
// of a source range, -D FUNC:RLN, -D SRC:LINE and a lazy pattern. Each
// unit's walk (lineWalk) is built once per File; its allocations guard
// against the walks' state being rebuilt per query.
func BenchmarkLineWalks(b *testing.B) {
	path := dwarftest.NeedCorpus(b, "amd64/vmlinux")
	dir := b.TempDir()
	f, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, r := EnsureIndex(f, IndexOptions{Dir: dir}); !r.Used {
		b.Fatalf("index: %+v", r)
	}
	f.Close()
	lazy := func(string, string) (map[int]bool, error) { return map[int]bool{455: true, 460: true, 470: true}, nil }
	b.ReportAllocs()
	for b.Loop() {
		f, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		f.UseIndex(IndexOptions{Dir: dir})
		n := 0
		for _, q := range []LineQuery{
			{Function: "vfs_read", End: 1 << 30, Points: true},
			{Function: "kernel_clone", End: 1 << 30, Points: true},
			{File: "fs/read_write.c", Start: 440, End: 520, Points: true},
		} {
			lr, err := f.FindLineRange(q)
			if err != nil || lr == nil {
				b.Fatalf("%+v: %v", q, err)
			}
			n += len(lr.Lines)
		}
		for _, q := range []Query{
			{Function: exactName("vfs_read"), Line: 30, HasLine: true},
			{Function: exactName("kernel_clone"), Line: 51, HasLine: true},
			{File: "fs/read_write.c", Line: 470, HasLine: true},
			{Function: exactName("vfs_read"), LazyLines: lazy},
		} {
			q.MaxProbes = 128
			ps, err := f.FindProbes(q)
			if err != nil {
				b.Fatalf("%+v: %v", q, err)
			}
			n += len(ps)
		}
		if n == 0 {
			b.Fatal("no lines")
		}
		f.Close()
	}
}
