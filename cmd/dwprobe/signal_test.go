package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// signalRun starts dwprobe with args and env, sends sig after delay, and
// returns its exit status, output and how long it took to end after the
// signal; exited is set when it was done before the signal, which proves
// nothing.
func signalRun(t *testing.T, sig syscall.Signal, delay time.Duration, env []string, args ...string) (code int, stdout, stderr string, took time.Duration, exited bool) {
	t.Helper()
	cmd := exec.Command(dwprobeBin(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return exitOf(t, err), out.String(), errb.String(), 0, true
	case <-time.After(delay):
	}
	cmd.Process.Signal(sig)
	sent := time.Now()
	select {
	case err := <-done:
		return exitOf(t, err), out.String(), errb.String(), time.Since(sent), false
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("dwprobe %q still running 30 s after %v:\n%s", args, sig, errb.String())
	}
	return
}

func exitOf(t *testing.T, err error) int {
	t.Helper()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// leftInCache lists the index files and temporaries under the cache dir
// (not the locks, nor the markers of queried binaries).
func leftInCache(t *testing.T, cache string) []string {
	t.Helper()
	var left []string
	filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".lock") && !strings.HasSuffix(p, ".seen") {
			left = append(left, p)
		}
		return nil
	})
	return left
}

// TestSignalIndexBuild: SIGTERM, SIGINT or SIGHUP during the index build
// of a vmlinux (--build-index, or the build a second -D starts: the
// first scans) ends it
// within about a second, non-zero, printing nothing and leaving no index
// or temporary. --build-index went on for 5.7 s and said "built"; a -D
// printed its definition.
func TestSignalIndexBuild(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	cases := []struct {
		sig  syscall.Signal
		args []string
	}{
		{syscall.SIGTERM, []string{"-k", vml, "--build-index"}},
		{syscall.SIGINT, []string{"-k", vml, "--build-index"}},
		{syscall.SIGHUP, []string{"-k", vml, "-D", "vfs_read"}},
		{syscall.SIGTERM, []string{"-k", vml, "-D", "vfs_read"}},
	}
	for _, c := range cases {
		cache := t.TempDir()
		if c.args[2] == "-D" { // the first query only marks the binary
			cmd := exec.Command(dwprobeBin(t), c.args...)
			cmd.Env = append(os.Environ(), "DWPROBE_INDEX_DIR="+cache)
			if err := cmd.Run(); err != nil {
				t.Fatal(err)
			}
		}
		code, out, errs, took, exited := signalRun(t, c.sig, 300*time.Millisecond, []string{"DWPROBE_INDEX_DIR=" + cache}, c.args...)
		if exited {
			t.Errorf("dwprobe %q was done within 0.3 s: nothing to interrupt", c.args)
			continue
		}
		t.Logf("%v: %q ended %v after the signal, exit %d", c.sig, c.args, took.Round(time.Millisecond), code)
		left := leftInCache(t, cache)
		// Speed is not the point; ending at all, and soon, is: the build
		// takes over 5 s.
		if code == 0 || out != "" || len(left) > 0 || took > 5*time.Second || !strings.Contains(errs, "dwprobe: interrupted") {
			t.Errorf("%v during dwprobe %q: exit %d after %v, stdout %q, left %q, stderr:\n%s", c.sig, c.args, code, took, out, left, errs)
		}
	}
}

// TestSignalStdinSpecs: a signal while @- waits for stdin (a terminal,
// an idle pipe) ends the run; the read used to block it for good.
func TestSignalStdinSpecs(t *testing.T) {
	app := fixture(t, "app-gcc-O0-dwarf5")
	cmd := exec.Command(dwprobeBin(t), "-x", app, "-D", "@-")
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	cmd.Stdin = pr
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		if code := exitOf(t, err); code == 0 || !strings.Contains(errb.String(), "interrupted") {
			t.Errorf("SIGTERM while reading @-: exit %d, %s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Errorf("SIGTERM while reading @- from an idle pipe: still running after 10 s")
	}
}

// TestSignalDebuginfodDownload: SIGTERM during a debuginfod download (a
// server sending at a fair pace, for long) ends it: non-zero, nothing
// cached, no temporary left. The download used to go on to its end.
func TestSignalDebuginfodDownload(t *testing.T) {
	split, _, _ := dwarftest.SplitDebug(t, filepath.Dir(fixture(t, "app-gcc-O2-dwarf5")))
	noLocalDebuginfo(t)
	chunk := make([]byte, 64<<10)
	copy(chunk, "\x7fELF\x02\x01\x01") // an ELF's start: not refused on its first bytes
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(1<<30))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(20 * time.Millisecond) // 3 MB/s: no timeout, 5 minutes for the whole
		}
	}))
	defer s.Close()
	cache := t.TempDir()
	code, out, errs, took, exited := signalRun(t, syscall.SIGTERM, 500*time.Millisecond,
		[]string{"DEBUGINFOD_CACHE_PATH=" + cache, "DEBUGINFOD_URLS=" + s.URL}, "-x", split, "-V", "work")
	if exited {
		t.Fatalf("dwprobe was done before the signal: exit %d, %s", code, errs)
	}
	t.Logf("ended %v after the signal, exit %d: %s", took.Round(time.Millisecond), code, errs)
	if files := leftInCache(t, cache); code == 0 || out != "" || len(files) > 0 || took > 5*time.Second || !strings.Contains(errs, "dwprobe: interrupted") {
		t.Errorf("SIGTERM during a download: exit %d after %v, stdout %q, cache %q, stderr:\n%s", code, took, out, files, errs)
	}
}
