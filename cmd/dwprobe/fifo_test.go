package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// TestFIFOInputs: a named pipe at any path dwprobe reads is refused at
// once, in one line naming the path, instead of hanging until a writer
// comes (before: forever, deaf to SIGTERM). The index file is a cache,
// and only skipped with a note.
func TestFIFOInputs(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	fifo := func(t *testing.T, path string) string {
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.Remove(path)
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cases := []struct {
		name  string
		skip  bool // a place searched, not named: passed over, not waited on
		setup func(t *testing.T, dir string) (args []string, fifo string)
	}{
		{"-x", false, func(t *testing.T, dir string) ([]string, string) {
			p := fifo(t, filepath.Join(dir, "app"))
			return []string{"-x", p, "-D", "work"}, p
		}},
		{"-k", false, func(t *testing.T, dir string) ([]string, string) {
			p := fifo(t, filepath.Join(dir, "vmlinux"))
			return []string{"-k", p, "-D", "vfs_read"}, p
		}},
		{"-m", false, func(t *testing.T, dir string) ([]string, string) {
			p := fifo(t, filepath.Join(dir, "mod.ko"))
			return []string{"-m", p, "-D", "work"}, p
		}},
		{"--btf", false, func(t *testing.T, dir string) ([]string, string) {
			p := fifo(t, filepath.Join(dir, "vmlinux.btf"))
			return []string{"--btf", p, "-D", "vfs_read"}, p
		}},
		{"build-id tree", true, func(t *testing.T, dir string) ([]string, string) {
			split, bid, _ := dwarftest.SplitDebug(t, filepath.Dir(fixture(t, "app-gcc-O2-debuglink")))
			t.Setenv("PERF_BUILDID_DIR", dir)
			p := fifo(t, filepath.Join(dir, ".build-id", bid[:2], bid[2:], "debug"))
			return []string{"-x", split, "-D", "work"}, p
		}},
		{".dwp", false, func(t *testing.T, dir string) ([]string, string) {
			bin := dwarftest.CopyFile(t, filepath.Join(splitFixture(t), "dwp-gcc-dwarf5", "app"), filepath.Join(dir, "app"), 0o755)
			return []string{"-x", bin, "-L", "checksum"}, fifo(t, bin+".dwp")
		}},
		{"dwz common file", true, func(t *testing.T, dir string) ([]string, string) {
			dwarftest.NeedTool(t, "dwz")
			src := filepath.Join(filepath.Dir(app), "dwz-m", "app-gcc-O2-dwarf5")
			bin := dwarftest.CopyFile(t, src, filepath.Join(dir, "app"), 0o755)
			return []string{"-x", bin, "-V", "work"}, fifo(t, filepath.Join(dir, "common.debug"))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args, p := c.setup(t, t.TempDir())
			out, errs, code := runBounded(t, 20*time.Second, args...)
			if c.skip {
				return
			}
			if code != exitInput || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, p+": not a regular file (a named pipe)") {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 4 and one line naming the pipe", args, code, out, errs)
			}
		})
	}
	t.Run("index", func(t *testing.T) {
		t.Setenv("DWPROBE_INDEX_DIR", t.TempDir())
		out, _, code := runBounded(t, 60*time.Second, "-x", app, "--build-index")
		if code != 0 {
			t.Fatalf("--build-index: exit %d, %q", code, out)
		}
		path := strings.TrimSuffix(out, ": built\n")
		want, _, _ := runBounded(t, 20*time.Second, "-x", app, "--no-index", "-D", "work")
		fifo(t, path)
		got, errs, code := runBounded(t, 20*time.Second, "-x", app, "-D", "work")
		if code != 0 || got != want || !strings.Contains(errs, path+": not a regular file (a named pipe)") {
			t.Errorf("index a pipe: exit %d, stdout %q, stderr %q; want %q and a note naming the pipe", code, got, errs, want)
		}
	})
}

// runBounded is runBin with a deadline: past it, the process is killed
// and the test fails (a hang, not an answer).
func runBounded(t *testing.T, d time.Duration, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, dwprobeBin(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%q: still running after %v (stderr %q)", args, d, errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// TestIndexUntrustedNote: root does not use an index directory another
// user owns; one note says which and why, and answers are the scan's.
func TestIndexUntrustedNote(t *testing.T) {
	if os.Geteuid() != 0 {
		dwarftest.Skip(t, "needs root to give the directory to another user")
	}
	app := fixture(t, "app-gcc-O2-dwarf5")
	dir := filepath.Join(t.TempDir(), "index")
	t.Setenv("DWPROBE_INDEX_DIR", dir)
	if _, _, code := runBounded(t, time.Minute, "-x", app, "--build-index"); code != 0 {
		t.Fatal("--build-index failed")
	}
	os.Chown(dir, 65534, 65534)
	want, _, _ := runBounded(t, time.Minute, "-x", app, "--no-index", "-D", "work")
	got, errs, code := runBounded(t, time.Minute, "-x", app, "-D", "work")
	wantNote := "note: debuginfo index not used (" + dir + ": index cache not trusted: owned by uid 65534, not by uid 0 or root): scanning the debuginfo\n"
	if code != 0 || got != want || errs != wantNote {
		t.Errorf("exit %d, stdout %q, stderr %q; want %q and %q", code, got, errs, want, wantNote)
	}
}

// TestFaultExitCode: a mapped input truncated during the run is an input
// error (exit 4) naming the file.
func TestFaultExitCode(t *testing.T) {
	err := error(&elfobj.FaultError{Path: "/boot/vmlinux", Addr: 0x1000})
	if code := exitCode(err); code != exitInput || !strings.HasPrefix(err.Error(), "/boot/vmlinux: ") {
		t.Errorf("exit %d for %v, want %d", code, err, exitInput)
	}
}

// TestFIFOSpecFileNoWriter: a spec file (-D @FILE, -V @FILE, -a @FILE)
// or --apply FILE that is a FIFO nobody writes waits for a writer only
// until a signal: SIGTERM ends the run at once, non-zero, saying it was
// interrupted. The open used to block in open(2), deaf to SIGTERM and
// SIGINT (timeout -k 2 5 dwprobe -D @p: exit 137).
func TestFIFOSpecFileNoWriter(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	p := filepath.Join(t.TempDir(), "specs")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args    []string
		printed bool // a spec before the FIFO's has printed its definition
	}{
		{[]string{"-x", app, "-D", "@" + p}, false},
		{[]string{"-x", app, "-D", "work", "-D", "@" + p}, true},
		{[]string{"-x", app, "-V", "@" + p}, false},
		{[]string{"-x", app, "--diff", app, "-D", "@" + p}, false},
		{[]string{"-x", app, "-a", "@" + p}, false},
		{[]string{"--apply", p, "--dry-run"}, false},
	} {
		want := "dwprobe: interrupted: nothing was printed or saved\n"
		if c.printed {
			want = "dwprobe: interrupted: the output above is incomplete, and nothing was saved\n"
		}
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			code, out, errs, took, exited := signalRun(t, sig, 300*time.Millisecond, nil, c.args...)
			if exited || code == 0 || (out != "") != c.printed || took > 5*time.Second || errs != want {
				t.Errorf("%v to dwprobe %q waiting on a FIFO: exited before %v, exit %d after %v, stdout %q, stderr %q; want stderr %q",
					sig, c.args, exited, code, took, out, errs, want)
			}
		}
	}
}

// TestFIFOSpecFileWriter: a FIFO with a writer, one that comes late or
// the pipe of a process substitution (-D @<(cmd): /dev/fd/N), is read
// once to its end, as a file of the same lines is. -D @<(cmd) used to
// say "no probe specs": the file was read twice, once to check it.
func TestFIFOSpecFileWriter(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	dir := t.TempDir()
	regular := writeSpecs(t, "work\ncompute\n")
	want, _, code := runBounded(t, time.Minute, "-x", app, "-D", "@"+regular)
	if code != 0 || want == "" {
		t.Fatalf("-D @%s: exit %d, %q", regular, code, want)
	}
	def := strings.SplitN(want, "\n", 2)[0]
	late := func(p, text string) {
		go func() {
			time.Sleep(200 * time.Millisecond)
			os.WriteFile(p, []byte(text), 0o600) // blocks until the reader opens
		}()
	}
	t.Run("late writer", func(t *testing.T) {
		p := filepath.Join(dir, "late")
		syscall.Mkfifo(p, 0o600)
		late(p, "work\ncompute\n")
		if got, errs, code := runBounded(t, time.Minute, "-x", app, "-D", "@"+p); code != 0 || got != want {
			t.Errorf("-D @FIFO: exit %d, stdout %q, stderr %q; want %q", code, got, errs, want)
		}
	})
	t.Run("apply", func(t *testing.T) {
		p := filepath.Join(dir, "apply")
		syscall.Mkfifo(p, 0o600)
		late(p, def+"\n")
		if _, errs, code := runBounded(t, time.Minute, "--apply", p, "--dry-run"); code != 0 || !strings.Contains(errs, "1 definitions of "+p+" are valid") {
			t.Errorf("--apply FIFO --dry-run: exit %d, stderr %q", code, errs)
		}
	})
	t.Run("process substitution", func(t *testing.T) {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		pw.WriteString("work\ncompute\n")
		pw.Close()
		cmd := exec.Command(dwprobeBin(t), "-x", app, "-D", "@/dev/fd/3")
		cmd.ExtraFiles = []*os.File{pr}
		var errb bytes.Buffer
		cmd.Stderr = &errb
		got, err := cmd.Output()
		pr.Close()
		if err != nil || string(got) != want {
			t.Errorf("-D @/dev/fd/3 (a pipe): %v, stdout %q, stderr %q; want %q", err, got, errb.String(), want)
		}
	})
}
