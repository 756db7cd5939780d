package probegen_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/answer"
)

// TestStreamModuleSameAsAlone: a kernel module's specs resolved in a batch
// (Stream, one worker and several) answer as each resolved alone. The
// batch gives back the mapped pages it read every releaseEvery specs, and
// gave back those of the module's debug sections too, which are relocated
// in place in the private mapping: the specs after read them unrelocated
// (a DW_AT_location of 0: "malformed .debug_loclists at offset 0x1",
// "offset 0 is outside ovl_lookup"), how many depending on which the
// workers had read before. overlay.ko's 51 conformance specs pass the
// first release.
func TestStreamModuleSameAsAlone(t *testing.T) {
	ko := dwarftest.NeedCorpus(t, filepath.Join("amd64", "dbg", "usr", "lib", "debug", "lib", "modules",
		dwarftest.CorpusRelease(t, "amd64"), "kernel", "fs", "overlayfs", "overlay.ko"))
	src := dwarftest.NeedCorpus(t, "linux")
	specs := moduleSpecs(t, filepath.Join("..", "testdata", "conformance", "modules", "specs-amd64.txt"), "fs/overlayfs/overlay.ko")
	if len(specs) <= 32 {
		t.Fatalf("%d overlay.ko specs; the test needs more than a release's 32", len(specs))
	}
	open := func() *probegen.Target {
		tgt, err := probegen.Open(probegen.OpenOptions{Module: ko, Source: src})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tgt.Close() })
		return tgt
	}
	alone := map[string]string{}
	tgt := open()
	for _, s := range specs {
		r := tgt.Resolver(probegen.ResolveOptions{})
		_, res, err := r.Resolve(s)
		alone[s] = answerOf(res, err)
	}
	for _, workers := range []int{1, 4} {
		r := open().Resolver(probegen.ResolveOptions{})
		r.Workers = workers
		for _, sr := range r.ResolveAll(specs) {
			var err error
			if sr.Err != nil {
				err = sr.Err
			}
			if got := answerOf(sr.Resolution, err); got != alone[sr.Spec] {
				t.Errorf("%d workers, %s:\n got %s\nwant %s (alone)", workers, sr.Spec, got, alone[sr.Spec])
			}
		}
	}
}

// answerOf is what a resolution's comparison reads: its error, or its
// definitions.
func answerOf(res *answer.Resolution, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprint(res.Definitions())
}

// moduleSpecs are the specs of the conformance list path that resolve
// (D and S lines) against module rel.
func moduleSpecs(t *testing.T, path, rel string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) == 3 && (fs[0] == "D" || fs[0] == "S") && fs[2] == "-m "+rel {
			out = append(out, fs[1])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
