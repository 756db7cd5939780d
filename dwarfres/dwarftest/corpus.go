package dwarftest

import (
	"os"
	"path/filepath"
	"testing"
)

// CorpusDir is where testdata/scripts/corpus.sh caches the real Debian
// kernels, their source and busybox: $DWPROBE_CORPUS, else
// ~/.cache/dwprobe-corpus. It is not ~/.cache/dwprobe, which is dwprobe's
// own cache (its indexes): the corpus is test data and may move.
func CorpusDir() string {
	if d := os.Getenv("DWPROBE_CORPUS"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "dwprobe-corpus")
}

// NeedCorpus returns the path of the corpus file rel ("amd64/vmlinux",
// "linux"), or skips the test (fails it under make test) when it is
// missing.
func NeedCorpus(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(CorpusDir(), rel)
	if _, err := os.Stat(p); err != nil {
		Skip(t, "corpus file %s missing (run make corpus)", p)
	}
	return p
}
