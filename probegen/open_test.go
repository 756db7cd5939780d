package probegen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen"
)

// TestOpenLazyPattern: a target Open made finds its own sources, so a
// lazy pattern resolves with the Resolver's default options, as
// dwprobe -D 'work;total+=*' resolves it (the source is where the
// debuginfo names it).
func TestOpenLazyPattern(t *testing.T) {
	tgt := openApp(t, "-O0")
	if tgt.Sources() == nil {
		t.Fatal("no Sources on a target Open made")
	}
	_, res, err := tgt.Resolver(probegen.ResolveOptions{}).Resolve("work;total+=*")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Probes) == 0 {
		t.Errorf("work;total+=* resolved to no point")
	}
}

// TestStreamOrder: Stream hands the results on in the order of the specs,
// failures included, whatever the number of workers; ResolveAll is the
// same list.
func TestStreamOrder(t *testing.T) {
	tgt := openApp(t, "-O0")
	specs := []string{"work", "nosuch", "main", "work%return", "work:2", "bad spec ::", "main:3"}
	for _, workers := range []int{1, 4} {
		r := tgt.Resolver(probegen.ResolveOptions{})
		r.Workers = workers
		var got []string
		err := r.Stream(func(yield func(string) bool) error {
			for _, s := range specs {
				if !yield(s) {
					break
				}
			}
			return nil
		}, func(sr probegen.SpecResult) error {
			got = append(got, sr.Spec)
			if (sr.Err == nil) == (sr.Resolution == nil) {
				t.Errorf("%d workers, %s: Err %v and Resolution %v", workers, sr.Spec, sr.Err, sr.Resolution)
			}
			return nil
		})
		if err != nil || strings.Join(got, "|") != strings.Join(specs, "|") {
			t.Errorf("%d workers: %q, %v; want %q", workers, got, err, specs)
		}
		all := r.ResolveAll(specs)
		for i, sr := range all {
			if sr.Spec != specs[i] {
				t.Errorf("ResolveAll[%d] is %q, want %q", i, sr.Spec, specs[i])
			}
		}
	}
}

// TestOpenDebuginfoPath: Open finds separate debuginfo in the directories
// of $DWPROBE_DEBUGINFO_PATH, as dwprobe does (issue 30: the library
// searched them only through a Locator of its own).
func TestOpenDebuginfoPath(t *testing.T) {
	split := dwarftest.Fixture(t, "..", "app-gcc-O2-splitdbg")
	t.Setenv("DWPROBE_DEBUGINFO_PATH", "")
	tgt, err := probegen.Open(probegen.OpenOptions{Binary: split})
	if err != nil {
		t.Fatal(err)
	}
	if tgt.Source == probegen.SourceDWARF {
		t.Fatalf("the split binary answers from DWARF without its debuginfo")
	}
	tgt.Close()
	t.Setenv("DWPROBE_DEBUGINFO_PATH", filepath.Join(filepath.Dir(split), "debug"))
	tgt, err = probegen.Open(probegen.OpenOptions{Binary: split})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	if tgt.Source != probegen.SourceDWARF {
		t.Errorf("with DWPROBE_DEBUGINFO_PATH: %v (%v), want DWARF", tgt.Source, tgt.Why)
	}
}

// TestOpenSymlinkExe: a binary opened through a symlink is named by its
// real path in its uprobes, as the kernel resolves it and dwprobe -x
// writes it (issue 30: the library wrote filepath.Abs of the link).
func TestOpenSymlinkExe(t *testing.T) {
	bin := dwarftest.Fixture(t, "..", "app-gcc-O2-dwarf5")
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "app")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	tgt, err := probegen.Open(probegen.OpenOptions{Binary: link})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	if tgt.Exe() != real {
		t.Errorf("Exe %q, want %q", tgt.Exe(), real)
	}
	_, res, err := tgt.Resolver(probegen.ResolveOptions{}).Resolve("main")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Probes[0].Definition().Target; !strings.HasPrefix(got, real+":") {
		t.Errorf("uprobe target %q, want it on %s", got, real)
	}
}
