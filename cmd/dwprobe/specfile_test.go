package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/tracefs"
)

// writeSpecs writes a spec file in a test's directory.
func writeSpecs(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "specs.txt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// defsOf is what -D prints for specs, one run each.
func defsOf(t *testing.T, app string, specs ...string) string {
	t.Helper()
	var all string
	for _, s := range specs {
		out, _, err := dw("-x", app, "-D", s)
		if err != nil {
			t.Fatalf("-D %q: %v", s, err)
		}
		all += out
	}
	return all
}

// TestSpecFileDefinitions: every spec of a file is tried, in order with
// the plain specs around it; the failures are FILE:LINE:COL lines (the
// column counting the blanks before the spec); the good ones are
// printed; the status is the first failure's.
func TestSpecFileDefinitions(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	file := writeSpecs(t, "# probes of the app\n\nwork:7 p->name:string\r\n  \twork+\n\nnosuch_fn\n   # indented comment\n g1:e1=compute c   \n")
	out, errOut, err := dw("-x", app, "-D", "compute%return", "-D", "@"+file, "-D", "item_score")
	if want := defsOf(t, app, "compute%return", "work:7 p->name:string", "g1:e1=compute c", "item_score"); out != want {
		t.Errorf("stdout\n%s\nwant\n%s", out, want)
	}
	wantErr := file + ":4:9: offset missing after '+'\n" +
		file + ":6:1: probe point 'nosuch_fn' not found\n"
	if errOut != wantErr {
		t.Errorf("stderr\n%s\nwant\n%s", errOut, wantErr)
	}
	if err == nil || err.Error() != "2 of 6 probes failed" || exitCode(err) != exitUnresolved {
		t.Errorf("error %v (exit %d), want 2 of 6 failed, exit %d", err, exitCode(err), exitUnresolved)
	}

	// -V takes a file the same way; a spec with arguments is refused
	// at its first argument.
	file = writeSpecs(t, "work\nwork p\n")
	out, errOut, err = dw("-x", app, "-V", "@"+file)
	if !strings.HasPrefix(out, "Available variables at work\n") || strings.Count(out, "Available") != 1 ||
		errOut != file+":2:6: -V takes a probe point, not arguments\n" || exitCode(err) != exitUnresolved {
		t.Errorf("-V @FILE: %v\n%s%s", err, out, errOut)
	}
}

// TestPlainSpecsStopAtFirst: without a spec file, -D keeps perf's
// behaviour: the first failure is the error, and nothing is printed.
func TestPlainSpecsStopAtFirst(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	out, errOut, err := dw("-x", app, "-D", "work", "-D", "nosuch_fn", "-D", "work+")
	if out != "" || errOut != "" || err == nil || !strings.Contains(err.Error(), "nosuch_fn") {
		t.Errorf("stdout %q, stderr %q, error %v", out, errOut, err)
	}
}

// TestSpecFileInput: a spec file that cannot be read is one error, exit
// 4, before any spec is tried; @- is stdin.
func TestSpecFileInput(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	dir := t.TempDir()
	long := writeSpecs(t, "work\n"+strings.Repeat("x", 70000)+"\n")
	empty := writeSpecs(t, "# nothing\n\n")
	for _, c := range []struct{ arg, want string }{
		{"@" + filepath.Join(dir, "nosuch"), "no such file"},
		{"@" + long, long + ":2: line too long"},
		{"@" + empty, "no probe specs"},
		{"@" + dir, "is a directory"},
	} {
		out, errOut, err := dw("-x", app, "-D", "work", "-D", c.arg)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") ||
			exitCode(err) != exitInput || out != "" || errOut != "" {
			t.Errorf("-D %s: error %v (exit %d), stdout %q, stderr %q", c.arg, err, exitCode(err), out, errOut)
		}
	}

	old := stdin
	stdin = strings.NewReader("work\n\ncompute\n")
	defer func() { stdin = old }()
	out, _, err := dw("-x", app, "-D", "@-")
	if want := defsOf(t, app, "work", "compute"); err != nil || out != want {
		t.Errorf("-D @-: %v\n%s\nwant\n%s", err, out, want)
	}
	stdin = strings.NewReader("work+\n")
	_, errOut, _ := dw("-x", app, "-D", "@-")
	if errOut != "<stdin>:1:6: offset missing after '+'\n" {
		t.Errorf("-D @- stderr %q", errOut)
	}
}

// TestSpecFileExitClass: a keep-going run exits with the class of its
// first failure, whatever the others.
func TestSpecFileExitClass(t *testing.T) {
	unresolved := fmt.Errorf("probe: %w", dwarfres.ErrNotFound)
	input := &fs.PathError{Op: "open", Path: "x.c", Err: fs.ErrNotExist}
	for _, c := range []struct {
		first error
		want  int
	}{
		{unresolved, exitUnresolved},
		{input, exitInput},
		{errors.New("other"), exitFailure},
	} {
		err := &specsError{failed: 2, total: 3, first: c.first}
		if got := exitCode(err); got != c.want {
			t.Errorf("first failure %v: exit %d, want %d", c.first, got, c.want)
		}
	}
}

// TestSpecFileAdd: -a @FILE is all or nothing: a spec that does not
// resolve writes nothing; a definition the kernel refuses rolls back the
// whole file's batch.
func TestSpecFileAdd(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	_, k := fakeTracefs(t)
	file := writeSpecs(t, "work:7 p->name:string\nitem_score\nnosuch_fn\ncompute c\n")
	_, errOut, err := dw("-x", app, "-a", "@"+file)
	if err == nil || err.Error() != "1 of 4 probes failed; nothing was added" || exitCode(err) != exitUnresolved ||
		errOut != file+":3:1: probe point 'nosuch_fn' not found\n" {
		t.Errorf("error %v (exit %d), stderr %q", err, exitCode(err), errOut)
	}
	if w := k.Writes(); len(w) != 0 {
		t.Errorf("a file with a failing spec wrote %q", w)
	}

	file = writeSpecs(t, "work:7 p->name:string\nitem_score\ncompute c\n")
	k.Reject = func(kind tracefs.Kind, cmd string) (string, int) {
		if strings.Contains(cmd, " c=") {
			return "Invalid fetch argument", strings.Index(cmd, " c=") + 1
		}
		return "", 0
	}
	_, _, err = dw("-x", app, "-a", "@"+file)
	if err == nil || !strings.Contains(err.Error(), "definition 8 of 8: the kernel refused") || exitCode(err) != exitKernel {
		t.Errorf("refused batch: %v (exit %d)", err, exitCode(err))
	}
	if got := k.File("uprobe_events"); got != "" {
		t.Errorf("uprobe_events after the refusal:\n%s", got)
	}

	k.Reject = nil
	k.Writes()
	if _, _, err := dw("-q", "-x", app, "-a", "@"+file); err != nil {
		t.Fatal(err)
	}
	if got := len(eventWrites(k, "uprobe_events")); got != 8 {
		t.Errorf("%d definitions written, want 8", got)
	}

	// Positional @FILEs are files each, the probes of both one batch.
	exe, _ := filepath.EvalSymlinks(app)
	more := writeSpecs(t, "g2:w=work\n")
	out, _, err := dw("-q", "-n", exe, "@"+more, "@"+writeSpecs(t, "g3:c=compute\n"))
	if err != nil || !strings.HasPrefix(out, "p:g2/w ") || !strings.Contains(out, "\np:g3/c ") {
		t.Errorf("positional @FILEs: %v\n%s", err, out)
	}
}

// TestE2ESpecFileBootconfig: --bootconfig -D @FILE prints the kprobes of
// the specs that resolved, and fails with the first failure's status.
func TestE2ESpecFileBootconfig(t *testing.T) {
	file := writeSpecs(t, "vfs_read\nnosuch_function_x\nvfs_write\n")
	out, errOut, err := runKernel(t, "amd64", "--bootconfig", "-D", "@"+file)
	if !strings.Contains(out, "vfs_read") || !strings.Contains(out, "vfs_write") || exitCode(err) != exitUnresolved ||
		!strings.HasPrefix(errOut, file+":2:1: probe point 'nosuch_function_x' not found") {
		t.Errorf("error %v\nstdout\n%s\nstderr\n%s", err, out, errOut)
	}
}

// cancelOnWrite is a stdout that ends a context at its first write.
type cancelOnWrite struct {
	strings.Builder
	cancel func()
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	w.cancel()
	return w.Builder.Write(p)
}

// TestSpecFileStreams: -D @FILE prints each spec's definitions as it
// resolves (and --json its object), so a signal after the first spec
// leaves that spec's output, a non-zero exit and a line saying how far
// the run got; it used to print nothing and "context canceled".
func TestSpecFileStreams(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	file := writeSpecs(t, "\uFEFFwork\nnosuch_fn\ncompute%return\nitem_score\n")
	for _, json := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		out := &cancelOnWrite{cancel: cancel}
		var errb strings.Builder
		args := []string{"-x", app, "-D", "@" + file}
		if json {
			args = append(args, "--json")
		}
		err := run(ctx, args, out, &errb)
		cancel()
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if err == nil || exitCode(err) == exitOK || len(lines) != 1 || !strings.Contains(lines[0], "work") ||
			!strings.Contains(err.Error(), "interrupted after 1 specs (0 of them failed)") {
			t.Errorf("json %v: %v (exit %d), stdout\n%s\nstderr\n%s", json, err, exitCode(err), out.String(), errb.String())
		}
	}
}
