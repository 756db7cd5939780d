package dwarftest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Compile writes code to the source file src ("app.c", "throw.cc") in a
// new temporary directory and builds it there with the compiler cc ("gcc",
// "g++") and flags into the program named src without its extension,
// whose path it returns. Without cc the test skips (fails under make
// test); a build error fails it.
func Compile(t testing.TB, cc, src, code string, flags ...string) string {
	t.Helper()
	path := NeedTool(t, cc)
	dir := t.TempDir()
	file := filepath.Join(dir, src)
	if err := os.WriteFile(file, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := strings.TrimSuffix(file, filepath.Ext(file))
	args := append(append([]string(nil), flags...), "-o", prog, file)
	if out, err := exec.Command(path, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, out)
	}
	return prog
}
