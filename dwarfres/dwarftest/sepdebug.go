package dwarftest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// PlaceFile copies src to dst, executable, making dst's directory: tests
// lay binaries and their separate debuginfo out where a tool looks for
// them.
func PlaceFile(t testing.TB, src, dst string) {
	t.Helper()
	CopyFile(t, src, dst, 0o755)
}

// SplitDebug returns the app-gcc-O2-splitdbg fixture of the fixture
// directory dir, its build-id and its debuginfo file under dir/debug.
func SplitDebug(t testing.TB, dir string) (bin, buildID, debug string) {
	t.Helper()
	bin = filepath.Join(dir, "app-gcc-O2-splitdbg")
	id, err := os.ReadFile(bin + ".build-id")
	if err != nil {
		t.Fatal(err)
	}
	buildID = strings.TrimSpace(string(id))
	return bin, buildID, filepath.Join(dir, "debug", ".build-id", buildID[:2], buildID[2:]+".debug")
}
