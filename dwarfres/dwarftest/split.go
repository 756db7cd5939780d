package dwarftest

import (
	"os/exec"
	"strings"
	"testing"
)

// SplitFixtures runs testdata/scripts/splitfixtures.sh (at script) into dir
// and returns dir; it skips (fails under make test) when the script reports
// a missing tool (exit 3).
func SplitFixtures(t testing.TB, script, dir string) string {
	t.Helper()
	out, err := exec.Command("bash", script, dir).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
		Skip(t, "split DWARF fixtures: %s", strings.TrimSpace(string(out)))
	}
	if err != nil {
		t.Fatalf("split fixtures: %v\n%s", err, out)
	}
	return dir
}
