package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs"
)

// The SDT live tests add uprobes on markers with dwprobe -a, run the
// program and compare what the probes fetched with what it printed. The
// events' groups are perf's (sdt_PROVIDER), so each test deletes exactly
// the events it added; the binaries are private copies, so no other
// process hits the probes.

// sdtAdd adds specs on bin and deletes the events when the test ends;
// it returns dwprobe's stderr.
func sdtAdd(t *testing.T, fsys *tracefs.FS, bin string, specs ...string) string {
	t.Helper()
	dropOrphanSDT(t, fsys)
	args := []string{"-x", bin}
	for _, s := range specs {
		args = append(args, "-a", s)
	}
	out, errOut, err := dw(args...)
	if err != nil {
		t.Fatalf("dwprobe %q: %v\n%s", args, err, errOut)
	}
	var added []string
	for _, l := range strings.Split(errOut, "\n") {
		if f := strings.Fields(l); len(f) > 2 && strings.HasPrefix(l, "  sdt_") && f[1] == "(on" {
			added = append(added, f[0])
		}
	}
	if len(added) == 0 {
		t.Fatalf("dwprobe %q added nothing?\n%s%s", args, out, errOut)
	}
	t.Cleanup(func() {
		if _, err := fsys.Delete(tracefs.UProbe, added); err != nil && !errors.Is(err, tracefs.ErrNoMatch) {
			t.Errorf("cleanup of %v: %v", added, err)
		}
	})
	return errOut
}

// runCmd runs cmd, failing the test on error, and returns its stdout
// and pid.
func runCmd(t *testing.T, cmd *exec.Cmd) (string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd.Path, err, stderr.String())
	}
	return stdout.String(), cmd.Process.Pid
}

// TestSDTLiveFixture: the markers of the <sys/sdt.h> fixture at -O0
// (stack operands) and -O2 (registers, a global, a constant) read what
// the program prints, and the guarded marker fires only because the
// kernel raises its semaphore through the uprobe's (REF_CTR_OFFSET).
func TestSDTLiveFixture(t *testing.T) {
	fsys := needLive(t)
	for _, name := range []string{"sdt-gcc-O0", "sdt-gcc-O2"} {
		t.Run(name, func(t *testing.T) {
			bin := copyBinary(t, sdtFixture(t, name))
			// Without a probe nobody raises the semaphore.
			out, _ := runCmd(t, exec.Command(bin))
			if n := strings.Count(out, "semaphore=0"); n != 3 {
				t.Fatalf("unprobed run: %d semaphore=0 lines, want 3:\n%s", n, out)
			}
			sdtAdd(t, fsys, bin, "sdt_dwfix:*")
			in := newInstance(t, fsys, fmt.Sprintf("dwtest_%d_%s", os.Getpid(), strings.ReplaceAll(name, "-", "_")))
			in.enable(t, "sdt_dwfix", true)
			out, pid := runCmd(t, exec.Command(bin))
			p := sdtPrinted(out)
			got := map[string][]map[string]string{}
			for _, e := range in.events(t, pid) {
				got[e.event] = append(got[e.event], e.args)
			}
			if len(p["tick"]) != 3 || len(p["total"]) != 3 || len(p["guarded"]) != 3 {
				t.Fatalf("unexpected output:\n%s", out)
			}
			sdtCompare(t, "tick", got["tick"], p["tick"], "arg1", "i", "arg2", "neg", "arg3", "big")
			sdtCompare(t, "total", got["total"], p["total"], "arg1", "total", "arg2", "konst")
			sdtCompare(t, "guarded", got["guarded"], p["guarded"], "arg1", "i", "arg2", "big")
			for i, g := range p["guarded"] {
				if g["semaphore"] != "1" {
					t.Errorf("guarded line %d: semaphore=%s while probed, want 1 (raised by the kernel)", i, g["semaphore"])
				}
			}
		})
	}
}

// sdtPrinted reads "KIND: k=v ..." lines by kind.
func sdtPrinted(out string) map[string][]map[string]string {
	p := map[string][]map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		kind, rest, ok := strings.Cut(l, ": ")
		if !ok {
			continue
		}
		m := map[string]string{}
		for _, a := range traceArg.FindAllStringSubmatch(rest, -1) {
			m[a[1]] = a[2]
		}
		p[kind] = append(p[kind], m)
	}
	return p
}

// sdtCompare checks that each traced hit's args equal the printed
// values, pairs of (traced arg, printed key).
func sdtCompare(t *testing.T, event string, got, printed []map[string]string, pairs ...string) {
	t.Helper()
	if len(got) != len(printed) {
		t.Errorf("%s: %d hits, want %d: %v", event, len(got), len(printed), got)
		return
	}
	for i := range got {
		for j := 0; j+1 < len(pairs); j += 2 {
			if got[i][pairs[j]] != printed[i][pairs[j+1]] {
				t.Errorf("%s hit %d: traced %s=%s, printed %s=%s", event, i, pairs[j], got[i][pairs[j]], pairs[j+1], printed[i][pairs[j+1]])
			}
		}
	}
}

// TestSDTLivePython traces Debian's python3.11 through
// python:function__entry (behind a semaphore) while a script runs: the
// file and function names traced for the script's frames are the
// script's own, in its order, and python:line's traced line numbers
// are the script's.
func TestSDTLivePython(t *testing.T) {
	fsys := needLive(t)
	const py = "/usr/bin/python3.11"
	if _, err := os.Stat(py); err != nil {
		dwarftest.Skip(t, "%s missing (apt-get install python3.11)", py)
	}
	dir := t.TempDir()
	bin := dwarftest.CopyFile(t, py, filepath.Join(dir, "python3.11"), 0o755)
	script := filepath.Join(dir, "calls.py")
	src := `import sys
def alpha(n):
    print("call:", sys._getframe().f_code.co_name)
    return n + 1
def beta(n):
    print("call:", sys._getframe().f_code.co_name)
    return alpha(n) * 2
for i in range(2):
    beta(i)
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// CPython 3.11 inlines Python-to-Python calls and fires
	// function__entry for them only while its tracing path is on, which
	// python:line's semaphore turns on: both are enabled, as with perf.
	sdtAdd(t, fsys, bin, "%sdt_python:function__entry file=arg1:string func=arg2:string line=arg3", "%sdt_python:line file=arg1:string func=arg2:string lineno=arg3")
	in := newInstance(t, fsys, fmt.Sprintf("dwtest_%d_python", os.Getpid()))
	in.enable(t, "sdt_python", true)
	out, pid := runCmd(t, exec.Command(bin, "-S", script))
	var printed, traced []string
	for _, l := range strings.Split(out, "\n") {
		if f, ok := strings.CutPrefix(l, "call: "); ok {
			printed = append(printed, f)
		}
	}
	alphaLines := map[string]bool{}
	for _, e := range in.events(t, pid) {
		switch {
		case e.args["file"] != script:
		case e.event == "function__entry" && e.args["func"] != "<module>":
			traced = append(traced, e.args["func"])
		case e.event == "line" && e.args["func"] == "alpha":
			alphaLines[e.args["lineno"]] = true
		}
	}
	if len(alphaLines) != 2 || !alphaLines["3"] || !alphaLines["4"] {
		t.Errorf("python:line in alpha traced lines %v, want 3 and 4", alphaLines)
	}
	if want := "beta alpha beta alpha"; strings.Join(printed, " ") != want || strings.Join(traced, " ") != want {
		t.Errorf("printed %q, traced %q; want %q both", printed, traced, want)
	}
}

// TestSDTLiveThrow traces libstdcxx:throw in a private copy of
// libstdc++ while a g++ program throws: the object and type_info traced
// are the ones the program prints from its catch.
func TestSDTLiveThrow(t *testing.T) {
	fsys := needLive(t)
	const lib = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"
	real, err := filepath.EvalSymlinks(lib)
	if err != nil {
		dwarftest.Skip(t, "%s missing (apt-get install libstdc++6)", lib)
	}
	code := `#include <cstdio>
#include <typeinfo>
struct Oops { int code; };
int main() {
	for (int i = 0; i < 2; i++) {
		try {
			throw Oops{i};
		} catch (Oops &e) {
			std::printf("caught: obj=%p tinfo=%p code=%d\n", (void *)&e, (void *)&typeid(Oops), e.code);
		}
	}
}
`
	prog := dwarftest.Compile(t, "g++", "throw.cc", code, "-O1")
	dir := filepath.Dir(prog)
	libcopy := dwarftest.CopyFile(t, real, filepath.Join(dir, "libstdc++.so.6"), 0o755)
	sdtAdd(t, fsys, libcopy, "%sdt_libstdcxx:throw arg1:x64 arg2:x64")
	in := newInstance(t, fsys, fmt.Sprintf("dwtest_%d_throw", os.Getpid()))
	in.enable(t, "sdt_libstdcxx", true)
	cmd := exec.Command(prog)
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+dir)
	out, pid := runCmd(t, cmd)
	p := sdtPrinted(out)["caught"]
	var got []map[string]string
	for _, e := range in.events(t, pid) {
		if e.event == "throw" {
			got = append(got, e.args)
		}
	}
	if len(p) != 2 || len(got) != 2 {
		t.Fatalf("printed %v, traced %v; want 2 each", p, got)
	}
	for i := range p {
		for arg, key := range map[string]string{"arg1": "obj", "arg2": "tinfo"} {
			g, _ := strconv.ParseUint(strings.TrimPrefix(got[i][arg], "0x"), 16, 64)
			w, _ := strconv.ParseUint(strings.TrimPrefix(p[i][key], "0x"), 16, 64)
			if g != w || g == 0 {
				t.Errorf("throw %d: traced %s=%s, printed %s=%s", i, arg, got[i][arg], key, p[i][key])
			}
		}
	}
}

// dropOrphanSDT deletes the fixture's SDT events (group sdt_*) whose
// binary is gone: a test run killed before its cleanup leaves them, and
// the markers' group names are fixed, so every later run would find its
// events taken. An event on a binary that still exists is another run's.
func dropOrphanSDT(t *testing.T, fsys *tracefs.FS) {
	t.Helper()
	evs, err := fsys.List(tracefs.UProbe)
	if err != nil {
		return
	}
	for _, e := range evs {
		path, _, ok := strings.Cut(e.Target, ":")
		if !strings.HasPrefix(e.Group, "sdt_") || !ok || !strings.HasPrefix(path, os.TempDir()) {
			continue
		}
		if _, err := os.Stat(path); os.IsNotExist(err) {
			fsys.Delete(tracefs.UProbe, []string{e.Group + ":" + e.Name})
		}
	}
}
