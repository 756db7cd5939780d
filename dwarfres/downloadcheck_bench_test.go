package dwarfres

import (
	"os"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// BenchmarkCheckDownload is what checking a download costs before it is
// cached (the unit headers and every abbreviation table), and checking a
// cached debuginfod file before it is used (checkFetched), on the 6.1
// amd64 vmlinux: README, "debuginfod".
func BenchmarkCheckDownload(b *testing.B) {
	vml := dwarftest.NeedCorpus(b, "amd64/vmlinux")
	b.Run("download", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			fh, err := os.Open(vml)
			if err != nil {
				b.Fatal(err)
			}
			if err := CheckDownload(fh); err != nil {
				b.Fatal(err)
			}
			fh.Close()
		}
	})
	b.Run("cached", func(b *testing.B) {
		l := NewLocator()
		for i := 0; i < b.N; i++ {
			if err := l.checkFetched(vml); err != nil {
				b.Fatal(err)
			}
		}
	})
}
