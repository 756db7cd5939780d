package elfobj

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestReleasable: the pages given back share no page with a kept range
// (a section relocated in place), and every other page is given back.
func TestReleasable(t *testing.T) {
	const pg = 0x1000
	cases := []struct {
		name string
		size uint64
		keep [][2]uint64
		want [][2]uint64
	}{
		{"nothing kept", 0x5000, nil, [][2]uint64{{0, 0x5000}}},
		{"one range inside a page", 0x5000, [][2]uint64{{0x1100, 0x1200}}, [][2]uint64{{0, 0x1000}, {0x2000, 0x5000}}},
		{"a range across pages", 0x5000, [][2]uint64{{0x1ff0, 0x3010}}, [][2]uint64{{0, 0x1000}, {0x4000, 0x5000}}},
		{"page-aligned", 0x5000, [][2]uint64{{0x1000, 0x2000}}, [][2]uint64{{0, 0x1000}, {0x2000, 0x5000}}},
		{"unsorted and overlapping", 0x8000, [][2]uint64{{0x5000, 0x5100}, {0x1000, 0x3000}, {0x2f00, 0x3100}},
			[][2]uint64{{0, 0x1000}, {0x4000, 0x5000}, {0x6000, 0x8000}}},
		{"empty range", 0x3000, [][2]uint64{{0x1100, 0x1100}}, [][2]uint64{{0, 0x3000}}},
		{"kept to the end", 0x2800, [][2]uint64{{0x1800, 0x2800}}, [][2]uint64{{0, 0x1000}}},
		{"kept from the start", 0x3000, [][2]uint64{{0, 0x10}}, [][2]uint64{{0x1000, 0x3000}}},
		{"a tail not page-sized", 0x2800, nil, [][2]uint64{{0, 0x2800}}},
	}
	for _, c := range cases {
		if got := releasable(c.size, pg, c.keep); !slices.Equal(got, c.want) {
			t.Errorf("%s: %x, want %x", c.name, got, c.want)
		}
	}
}

// TestReleasePagesKeepsRelocated: a module's sections read the same after
// ReleasePages: the debug sections and ftrace table relocated in place in
// the private mapping of a .ko (given back, they read back unrelocated),
// and every section of a decompressed .ko.xz, an anonymous mapping (given
// back, it reads back as zeros).
func TestReleasePagesKeepsRelocated(t *testing.T) {
	for _, rel := range []string{
		filepath.Join("amd64", "dbg", "usr", "lib", "debug", "lib", "modules", "*", "kernel", "fs", "overlayfs", "overlay.ko"),
		filepath.Join("7.3", "amd64", "image", "usr", "lib", "modules", "*", "kernel", "fs", "overlayfs", "overlay.ko.xz"),
	} {
		m, _ := filepath.Glob(filepath.Join(dwarftest.CorpusDir(), rel))
		if len(m) != 1 {
			dwarftest.Skip(t, "corpus module %s missing (run make corpus)", rel)
		}
		o, err := OpenAny(m[0])
		if err != nil {
			t.Fatal(err)
		}
		before := map[string][]byte{}
		for _, name := range []string{".debug_info", ".debug_loclists", "__mcount_loc", ".text", ".modinfo"} {
			if b, err := o.Section(name); err != nil {
				t.Fatalf("%s: %s: %v", m[0], name, err)
			} else if b != nil {
				before[name] = bytes.Clone(b)
			}
		}
		if len(before) < 3 {
			t.Fatalf("%s: only %d of the sections read", m[0], len(before))
		}
		o.ReleasePages()
		for name, want := range before {
			if got, _ := o.Section(name); !bytes.Equal(got, want) {
				t.Errorf("%s: %s reads otherwise after ReleasePages", m[0], name)
			}
		}
		o.Close()
	}
}
