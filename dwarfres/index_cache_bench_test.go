package dwarfres

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// BenchmarkIndexLoadCache is what loading an index already built costs
// in the cache's part: the directory walked once and held open (checked
// as safefs's rule says), its stale temporaries looked for, the file
// opened and read relative to it, on the 6.1 amd64 vmlinux (an 8 MB
// index in a directory of a few files): README, "The debuginfo index".
func BenchmarkIndexLoadCache(b *testing.B) {
	vml := dwarftest.NeedCorpus(b, "amd64/vmlinux")
	dir := filepath.Join(b.TempDir(), ".cache", "dwprobe", "index")
	f, err := Open(vml)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, r := EnsureIndex(f, IndexOptions{Dir: dir}); !r.Built {
		b.Fatalf("build: %+v", r)
	}
	_, name, _ := indexer{f}.indexKey()
	b.ResetTimer()
	for range b.N {
		d, err := openIndexDir(dir)
		if err != nil {
			b.Fatal(err)
		}
		tidyIndexDir(d, time.Now(), tempsOnly)
		if _, err := loadIndex(d, name); err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
}
