package main

import (
	"os"
	"path/filepath"
	"testing"
)

// corpusDir is where testdata/scripts/corpus.sh caches the real kernels.
func corpusDir() string {
	if d := os.Getenv("DWPROBE_CORPUS"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "dwprobe")
}

// needCorpus returns the path of a corpus file, skipping the test when it
// is missing, except under make test (DWPROBE_REQUIRE_ALL=1) where a missing
// corpus is a failure: CI must not go green by skipping.
func needCorpus(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(corpusDir(), rel)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("DWPROBE_REQUIRE_ALL") == "1" {
			t.Fatalf("corpus file %s missing (run make corpus): %v", p, err)
		}
		t.Skipf("corpus file %s missing (run make corpus)", p)
	}
	return p
}
