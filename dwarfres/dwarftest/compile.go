package dwarftest

import (
	"fmt"
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
	prog, err := CompileIn(t.TempDir(), NeedTool(t, cc), src, code, flags...)
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// CompileIn is Compile in the directory dir, for an Example (which has no
// testing.TB to skip or fail with): the error says what went wrong.
func CompileIn(dir, cc, src, code string, flags ...string) (string, error) {
	file := filepath.Join(dir, src)
	if err := os.WriteFile(file, []byte(code), 0o644); err != nil {
		return "", err
	}
	prog := strings.TrimSuffix(file, filepath.Ext(file))
	args := append(append([]string(nil), flags...), "-o", prog, file)
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: %v\n%s", cc, err, out)
	}
	return prog, nil
}
