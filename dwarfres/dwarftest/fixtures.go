package dwarftest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// fixtureBuild is one run of fixtures.sh for one checkout.
type fixtureBuild struct {
	once    sync.Once
	dir     string
	partial bool // a compiler was missing (exit 3): some fixtures are not built
	err     error
}

var (
	buildsMu sync.Mutex
	builds   = map[string]*fixtureBuild{}
)

// Fixtures builds the fixture binaries of the checkout whose module root is
// root (relative to the test's package) with its
// testdata/scripts/fixtures.sh, once per test binary (the script is
// idempotent and keeps its output between runs), and returns their
// directory, FixtureDir(root).
func Fixtures(t testing.TB, root string) string {
	t.Helper()
	b := fixtures(root)
	if b.err != nil {
		t.Fatalf("building fixtures: %v", b.err)
	}
	return b.dir
}

// Fixture returns the fixture binary name of the checkout whose module
// root is root, built by Fixtures. When it is missing because the script
// found a compiler missing (clang: only the gcc variants are built), it
// skips the test (fails it under make test); missing otherwise, it fails.
func Fixture(t testing.TB, root, name string) string {
	t.Helper()
	p := filepath.Join(Fixtures(t, root), name)
	if _, err := os.Stat(p); err != nil {
		if fixtures(root).partial {
			Skip(t, "%s not built (clang missing)", name)
		}
		t.Fatalf("fixture %s: %v", name, err)
	}
	return p
}

// fixtures runs fixtures.sh for root the first time it is asked.
func fixtures(root string) *fixtureBuild {
	buildsMu.Lock()
	b, ok := builds[root]
	if !ok {
		b = &fixtureBuild{dir: FixtureDir(root)}
		builds[root] = b
	}
	buildsMu.Unlock()
	b.once.Do(func() {
		script := filepath.Join(root, "testdata", "scripts", "fixtures.sh")
		out, err := exec.Command("bash", script, b.dir).CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 3 {
			b.partial = true
			err = nil
		}
		if err != nil {
			b.err = errors.New(string(out) + err.Error())
		}
	})
	return b
}
