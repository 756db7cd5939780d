package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestNoDebuginfo: a program with a symbol table and no debuginfo
// anywhere is probed from its symbols as perf 6.1 does (perf's answers on
// app_nodbg: work -> app_nodbg:0x1470, work+4 -> 0x1474, work%return ->
// r: 0x1470, raw fetchargs kept), with the same definitions as the build
// with DWARF for what a symbol table answers, and a note; FUNC+OFFS mid-
// instruction is refused (perf writes it); what needs debuginfo is one
// line with exit 4 naming where it was looked for.
func TestNoDebuginfo(t *testing.T) {
	t.Setenv("PERF_BUILDID_DIR", t.TempDir())
	t.Setenv("DWPROBE_DEBUGINFO_PATH", "")
	dir := t.TempDir()
	nodbg, whole := filepath.Join(dir, "nodbg/app"), filepath.Join(dir, "whole/app")
	dwarftest.PlaceFile(t, fixture(t, "app_nodbg"), nodbg)
	dwarftest.PlaceFile(t, fixture(t, "app-gcc-O2-dwarf5"), whole)
	for _, q := range [][]string{
		{"-D", "work"}, {"-D", "work+4"}, {"-D", "work%return"}, {"-D", "work%return $retval"},
		{"-D", "work %di +8(%sp) $comm"}, {"-D", "w*k"}, {"-D", "main"}, {"-F"}, {"-F", "*sum*"},
	} {
		got, stderr, err := dw(append([]string{"-x", nodbg}, q...)...)
		if err != nil {
			t.Errorf("%v: %v", q, err)
			continue
		}
		want, _, err := dw(append([]string{"-x", whole}, q...)...)
		if err != nil {
			t.Fatalf("%v with DWARF: %v", q, err)
		}
		if strings.ReplaceAll(got, nodbg, "APP") != strings.ReplaceAll(want, whole, "APP") {
			t.Errorf("%v: without debuginfo\n%s\nwith DWARF\n%s", q, got, want)
		}
		if q[0] == "-D" && !strings.Contains(stderr, "note: "+nodbg+" has no debuginfo: probed from its symbol table") {
			t.Errorf("%v: no note on stderr: %q", q, stderr)
		}
	}
	if out, _, _ := dw("-x", nodbg, "-D", "work"); !strings.HasSuffix(out, "app:0x1470\n") {
		t.Errorf("-D work = %q; perf 6.1 writes app_nodbg:0x1470", out)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-D", "work:3"}, exitInput, "a source line (work:3) needs debuginfo"},
		{[]string{"-D", "work p"}, exitInput, `argument "p"`},
		{[]string{"-D", "work $vars"}, exitInput, `argument "$vars"`},
		{[]string{"-D", "work@app_util.c"}, exitInput, "a source file (app_util.c)"},
		{[]string{"-D", "app_util.c:60"}, exitInput, "a source line"},
		{[]string{"-D", "work;sum*"}, exitInput, "a lazy pattern"},
		{[]string{"-L", "work"}, exitInput, "listing source lines"},
		{[]string{"-V", "work"}, exitInput, "listing variables"},
		{[]string{"-D", "work+3"}, exitUnresolved, "middle of an instruction"},
	} {
		_, _, err := dw(append([]string{"-x", nodbg}, c.args...)...)
		if err == nil || exitCode(err) != c.code {
			t.Errorf("%v: %v (exit %d); want exit %d", c.args, err, exitCode(err), c.code)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") || !strings.Contains(msg, c.want) {
			t.Errorf("%v: %q; want one line with %q", c.args, msg, c.want)
		}
		if c.code == exitInput && !strings.Contains(msg, "; tried ") {
			t.Errorf("%v: %q does not say where debuginfo was looked for", c.args, msg)
		}
	}
	// Stripped of its symbol table too: nothing to probe from.
	_, _, err := dw("-x", fixture(t, "app-gcc-O2-stripped"), "-D", "work")
	if err == nil || exitCode(err) != exitInput || !strings.Contains(err.Error(), "no DWARF debuginfo") {
		t.Errorf("strip --strip-all: %v; want the debuginfo not found", err)
	}
}

// TestNoDebuginfoLive adds a uprobe with a raw fetcharg to the program
// without debuginfo (work's struct item * in %di; id at +8), runs it and
// checks the ids it traced against those it printed.
func TestNoDebuginfoLive(t *testing.T) {
	fsys := needLive(t)
	t.Setenv("PERF_BUILDID_DIR", t.TempDir())
	want, err := os.ReadFile("../../testdata/fixtures/app.expected")
	if err != nil {
		t.Fatal(err)
	}
	app := copyBinary(t, fixture(t, "app_nodbg"))
	g := liveGroup(t, fsys, "nodbg")
	in := newInstance(t, fsys, g)
	if _, stderr, err := dw("-x", app, "-a", g+":w=work id=+8(%di):s32 comm=$comm"); err != nil {
		t.Fatalf("-a: %v\n%s", err, stderr)
	}
	in.enable(t, g, true)
	pid := runPrinting(t, app, want)
	p := parsePrinted(string(want))
	evs := in.events(t, pid)
	if len(evs) != len(p.work) || len(evs) == 0 {
		t.Fatalf("%d hits, want %d: %v", len(evs), len(p.work), evs)
	}
	for i, e := range evs {
		if e.args["id"] != p.work[i]["id"] || e.args["comm"] != "app" {
			t.Errorf("hit %d: traced %v, printed %v", i, e.args, p.work[i])
		}
	}
}

// TestNoDebuginfoVmlinux: the corpus vmlinux without its DWARF (and with
// its .BTF renamed away, so only the symbol table answers) gives perf
// 6.1's definitions, recorded from perf probe -k on the same file.
func TestNoDebuginfoVmlinux(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	objcopy := dwarftest.NeedTool(t, "objcopy")
	t.Setenv("PERF_BUILDID_DIR", t.TempDir())
	t.Setenv("DWPROBE_DEBUGINFO_PATH", "")
	bare := filepath.Join(t.TempDir(), "vmlinux")
	if out, err := exec.Command(objcopy, "--strip-debug", "--rename-section", ".BTF=.BTF.gone", vml, bare).CombinedOutput(); err != nil {
		t.Fatalf("objcopy: %v\n%s", err, out)
	}
	for spec, want := range map[string]string{
		"vfs_read":           "p:probe/vfs_read _text+3460176\n",
		"vfs_read%return":    "r:probe/vfs_read__return vfs_read+0\n",
		"vfs_read %di $comm": "p:probe/vfs_read _text+3460176 %di $comm\n",
	} {
		out, stderr, err := dw("-k", bare, "-D", spec)
		if err != nil || out != want || !strings.Contains(stderr, "has no debuginfo") {
			t.Errorf("-D %q = %q, %v (stderr %q); perf 6.1 writes %q", spec, out, err, stderr, want)
		}
	}
	for _, spec := range []string{"vfs_read:3", "vfs_read file"} {
		_, _, err := dw("-k", bare, "-D", spec)
		if err == nil || exitCode(err) != exitInput || !strings.Contains(err.Error(), "needs debuginfo") {
			t.Errorf("-D %q: %v; want exit 4, debuginfo needed", spec, err)
		}
	}
}
