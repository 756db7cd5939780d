package dwarftest

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// RequireAll tells whether the tests run under make test
// (DWPROBE_REQUIRE_ALL=1), where a test that cannot run is a failure: CI
// must not go green by skipping.
func RequireAll() bool {
	return os.Getenv("DWPROBE_REQUIRE_ALL") == "1"
}

// Skip skips the test, saying why it cannot run (the corpus, root, a tool
// missing), except under make test, where it fails the test with the same
// reason.
func Skip(t testing.TB, format string, args ...any) {
	t.Helper()
	reason := fmt.Sprintf(format, args...)
	if RequireAll() {
		t.Fatalf("can't run: %s (DWPROBE_REQUIRE_ALL=1)", reason)
	}
	t.Skip(reason)
}

// NeedTool returns the path of the program name, or skips the test (fails
// it under make test) when it is not installed.
func NeedTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Skip(t, "%s not installed (run make deps)", name)
	}
	return p
}
