package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// dwprobeBin builds the command once per test binary.
func dwprobeBin(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "dwprobe-e2e")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "dwprobe")
		out, err := exec.Command("bash", "../../testdata/scripts/build.sh", binPath).CombinedOutput()
		if err != nil {
			binErr = &buildError{string(out)}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

type buildError struct{ out string }

func (e *buildError) Error() string { return "go build: " + e.out }

// runBin runs dwprobe and returns stdout, stderr and the exit code.
func runBin(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(dwprobeBin(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// fixture returns a built fixture binary (dwarftest.Fixture).
func fixture(t *testing.T, name string) string {
	t.Helper()
	return dwarftest.Fixture(t, "../..", name)
}

// corrupt copies src to dir with section sec garbled (dwarftest.Garble).
func corrupt(t *testing.T, src, dir, sec string, fill byte) string {
	t.Helper()
	garble := func(b []byte) ([]byte, error) { return dwarftest.Garble(t, b, sec, fill), nil }
	return dwarftest.CopyEdited(t, src, filepath.Join(dir, strings.TrimPrefix(sec, ".")+"-garbage"), 0o644, garble)
}

// TestHostileInputs: each bad input gets one clear error line and a
// non-zero exit, never a panic.
func TestHostileInputs(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("this is not an ELF file at all, just words\n"), 0o644)
	whole, _ := os.ReadFile(app)
	trunc := filepath.Join(dir, "truncated")
	os.WriteFile(trunc, whole[:len(whole)/2], 0o644)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	cases := []struct {
		name, file, want string
		args             []string
	}{
		{"directory", dir, "not a regular file (a directory)", []string{"-D", "work"}},
		{"text file", text, "not an ELF file", []string{"-D", "work"}},
		{"empty file", empty, "not an ELF file", []string{"-D", "work"}},
		{"truncated", trunc, "", []string{"-D", "work"}},
		{"stripped", fixture(t, "app-gcc-O2-stripped"), "no DWARF debuginfo", []string{"-D", "work"}},
		{"garbage debug_info", corrupt(t, app, dir, ".debug_info", 0x5a), "", []string{"-D", "work"}},
		{"garbage debug_info, line", corrupt(t, app, dir, ".debug_info", 0x13), "", []string{"-D", "work:2"}},
		{"garbage debug_abbrev", corrupt(t, app, dir, ".debug_abbrev", 0xa5), "", []string{"-D", "compute"}},
		{"garbage debug_line", corrupt(t, app, dir, ".debug_line", 0x77), "", []string{"-D", "work:2"}},
		{"garbage debug_line -L", corrupt(t, app, dir, ".debug_line", 0x31), "", []string{"-L", "work"}},
		{"missing file", filepath.Join(dir, "nope"), "no such file", []string{"-D", "work"}},
		{"bad spec", app, "column", []string{"-D", "work+"}},
		{"bad line range", app, "column", []string{"-L", "work:x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errs, code := runBin(t, append([]string{"-x", c.file}, c.args...)...)
			if code == 0 {
				// Garbage may still decode into something; it must
				// then at least be a clean answer.
				if strings.Contains(errs, "panic") {
					t.Fatalf("exit 0 with a panic: %s", errs)
				}
				return
			}
			if strings.Contains(errs, "goroutine") || strings.Contains(errs, "panic") {
				t.Fatalf("stack trace on stderr:\n%s", errs)
			}
			if n := strings.Count(strings.TrimSpace(errs), "\n"); n != 0 {
				t.Errorf("want one error line, got %d:\n%s", n+1, errs)
			}
			if !strings.HasPrefix(errs, "dwprobe: ") {
				t.Errorf("error does not start with dwprobe: %q", errs)
			}
			if c.want != "" && !strings.Contains(errs, c.want) {
				t.Errorf("error %q does not mention %q", errs, c.want)
			}
			if out != "" {
				t.Errorf("stdout not empty: %q", out)
			}
		})
	}
}

// TestSeparateDebuginfo: a binary stripped of DWARF is resolved through the
// .debug file found by its build-id, with the same answers as the unstripped
// build of the same source.
func TestSeparateDebuginfo(t *testing.T) {
	split := fixture(t, "app-gcc-O2-splitdbg")
	whole := fixture(t, "app-gcc-O2-dwarf5")
	offsets := func(out string) []string {
		var o []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			o = append(o, l[strings.LastIndexByte(l, ':')+1:])
		}
		return o
	}
	want, _, code := runBin(t, "-x", whole, "-D", "item_score")
	if code != 0 {
		t.Fatalf("unstripped build failed")
	}
	cmd := exec.Command(dwprobeBin(t), "-x", split, "-D", "item_score")
	cmd.Env = append(os.Environ(), "DWPROBE_DEBUGINFO_PATH="+filepath.Join(filepath.Dir(split), "debug"))
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("splitdbg: %v", err)
	}
	if g, w := offsets(string(got)), offsets(want); strings.Join(g, " ") != strings.Join(w, " ") || len(g) != 6 {
		t.Errorf("split debuginfo gives %v, the unstripped build %v", g, w)
	}
	_, errs, code := runBin(t, "-x", split, "-V", "item_score") // -D answers from the symbol table
	if code == 0 || !strings.Contains(errs, ".build-id/") {
		t.Errorf("without the debug file: exit %d, %q; want an error naming the paths tried", code, errs)
	}
}

// runKernel runs dwprobe in-process against the corpus vmlinux of arch.
func runKernel(t *testing.T, arch string, args ...string) (string, string, error) {
	t.Helper()
	vml := dwarftest.NeedCorpus(t, arch+"/vmlinux")
	var out, errb bytes.Buffer
	err := run(context.Background(), append([]string{"-k", vml}, args...), &out, &errb)
	return out.String(), errb.String(), err
}

// TestE2EFuncLineZero: line 0 of a function is its entry (perf tests
// pp->line's value), probed at every instance, inlined or not; it used to
// be refused as a line sharing its address with another. The counts are
// perf 6.1's on the amd64 vmlinux.
func TestE2EFuncLineZero(t *testing.T) {
	cases := []struct {
		fn, args string
		n        int
	}{
		{"getname_flags", " fn=filename:ustring", 12},
		{"set_nameidata", "", 4},
		{"fdget_pos", "", 15},
		{"file_accessed", " file", 15},
		{"vfs_read", "", 1},
	}
	for _, c := range cases {
		t.Run(c.fn, func(t *testing.T) {
			zero, _, err := runKernel(t, "amd64", "-D", c.fn+":0"+c.args)
			if err != nil {
				t.Fatal(err)
			}
			entry, _, err := runKernel(t, "amd64", "-D", c.fn+c.args)
			if err != nil {
				t.Fatal(err)
			}
			if zero != entry {
				t.Errorf("%s:0 differs from %s:\n%s\nvs\n%s", c.fn, c.fn, zero, entry)
			}
			if n := strings.Count(zero, "\n"); n != c.n {
				t.Errorf("%s:0: %d points, perf has %d:\n%s", c.fn, n, c.n, zero)
			}
		})
	}
}

// TestE2ESymbolCoveringPoint: a point is named by the symbol covering its
// address, as perf's offline post-processing does. On arm64 the EFI stub's
// own vsnprintf (drivers/firmware/efi/libstub/vsprintf.c, symbol
// __efistub_vsnprintf in init text) used to be written vsnprintf+0, a
// second probe on the real vsnprintf; start_kernel's DWARF entry is 8
// bytes past its symbol (patchable-function-entry NOPs), so +0 named
// another address. Each note names the copy it is about.
func TestE2ESymbolCoveringPoint(t *testing.T) {
	out, errs, err := runKernel(t, "arm64", "-D", "vsnprintf")
	if err != nil {
		t.Fatal(err)
	}
	if want := "p:probe/vsnprintf vsnprintf+0\np:probe/vsnprintf __efistub_vsnprintf+0\n"; out != want {
		t.Errorf("-D vsnprintf:\n%s\nwant (perf's):\n%s", out, want)
	}
	for _, want := range []string{
		"note: vsnprintf (lib/vsprintf.c:2735) is notrace (no ftrace call site: declared so in its source, or its file is built without ftrace) at vsnprintf+0 (0xffff800008b972f0)",
		"note: __efistub_vsnprintf+0 (vsnprintf of drivers/firmware/efi/libstub/vsprintf.c) at 0xffff8000093f41a4 is init text",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if n := strings.Count(errs, "notrace"); n != 1 {
		t.Errorf("%d notrace notes, want 1 (the real vsnprintf's):\n%s", n, errs)
	}
	out, _, err = runKernel(t, "arm64", "-D", "start_kernel")
	if err != nil {
		t.Fatal(err)
	}
	if want := "p:probe/start_kernel start_kernel+8\n"; out != want {
		t.Errorf("-D start_kernel: %q, want perf's %q", out, want)
	}
}

// TestE2EVarsUnreadable: -V names on stderr, with the reason, each variable
// it leaves out because a probe cannot read its location (perf lists
// noblock and iph from their first operation alone); stdout is unchanged.
func TestE2EVarsUnreadable(t *testing.T) {
	cases := []struct{ spec, name, note string }{
		{"tcp_sendmsg_locked:42", "noblock", "note: at tcp_sendmsg_locked+156, in scope but not readable by a probe: noblock (unsupported location expression: DW_OP_and)"},
		{"ip_rcv_core:76", "iph", "note: at ip_rcv_core+409, in scope but not readable by a probe: iph (unsupported location expression: DW_OP_and)"},
	}
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			out, errs, err := runKernel(t, "amd64", "-V", c.spec)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out, "\t"+c.name+"\n") {
				t.Errorf("stdout lists %s:\n%s", c.name, out)
			}
			if !strings.Contains(errs, c.note+"\n") {
				t.Errorf("stderr lacks %q:\n%s", c.note, errs)
			}
		})
	}
}
