package dwarftest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
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

// CorpusRelease is the kernel release of the corpus's kernel at dir
// ("amd64", "6.12/arm64"): its -dbg package's, which names the module
// directories ("6.1.0-57-cloud-amd64"). It moves with Debian's kernel
// updates, so tests name it through here, never as a constant.
func CorpusRelease(t testing.TB, dir string) string {
	t.Helper()
	b, err := os.ReadFile(NeedCorpus(t, filepath.Join(dir, "version")))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// FixtureDir is where the checkout whose module root is root (relative to
// the test's package) builds its fixtures: a directory per source tree
// under the corpus directory (the binaries record their source paths), so
// that two checkouts sharing one corpus never rebuild each other's
// fixtures under running tests.
func FixtureDir(root string) string {
	src, err := filepath.Abs(filepath.Join(root, "testdata", "fixtures"))
	if err != nil {
		src = root
	}
	sum := sha256.Sum256([]byte(src))
	return filepath.Join(CorpusDir(), "fixtures", hex.EncodeToString(sum[:4]))
}
