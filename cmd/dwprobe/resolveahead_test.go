package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestSpecFileConcurrent: a spec file resolved on several goroutines
// prints what one goroutine prints, byte for byte: definitions, failures
// and notes in spec order, the same status. make race runs it with the
// race detector, over the File's shared caches.
func TestSpecFileConcurrent(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	var specs []string
	for _, e := range readSpecs(t, filepath.Join("..", "..", "testdata", "conformance", "specs.txt")) {
		if e.kind == "D" && !strings.Contains(e.spec, "\t") {
			specs = append(specs, e.spec)
		}
	}
	if raceEnabled {
		specs = specs[:240]
	}
	file := filepath.Join(t.TempDir(), "specs.txt")
	if err := os.WriteFile(file, []byte(strings.Join(specs, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runWith := func(workers int) (string, string, string) {
		defer func(w func() int) { specWorkers = w }(specWorkers)
		specWorkers = func() int { return workers }
		out, errOut, err := dw("-k", vml, "-D", "@"+file)
		return out, errOut, errText(err)
	}
	out1, err1, st1 := runWith(1)
	outN, errN, stN := runWith(4)
	if outN != out1 || errN != err1 || stN != st1 {
		t.Errorf("4 workers differ from 1:\nstdout same: %v\nstderr same: %v\nstatus %q, want %q", outN == out1, errN == err1, stN, st1)
	}
	if strings.Count(out1, "\n") < len(specs)/2 {
		t.Errorf("only %d definitions for %d specs", strings.Count(out1, "\n"), len(specs))
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
