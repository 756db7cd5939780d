package safefs

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkOpenDir is the cost of walking to a cache four levels below a
// temporary directory and holding it open (each open of the index or
// debuginfod cache pays it once): README, "The debuginfo index".
func BenchmarkOpenDir(b *testing.B) {
	dir := filepath.Join(b.TempDir(), ".cache", "dwprobe", "index")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, err := OpenDir(dir, true, 0o755)
		if err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
}
