package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest/debuginfodtest"
)

// TestDebuginfodCorruptAbbrev (issue 34, finding 3): debuginfo of the
// right build-id whose .debug_abbrev does not decode
//   - served by a server, is refused before it is cached, the error
//     naming the cache path it was refused for, and asked again next run;
//   - found in the cache (another tool's, or an older dwprobe's), is
//     evicted and fetched again: Debian's debuginfod then serves the good
//     file and the answer is the whole program's; with no server having
//     it, the error names the cached file, which is gone.
//
// It stayed cached, and every later query failed with "malformed
// .debug_abbrev" naming no file, even against a good server.
func TestDebuginfodCorruptAbbrev(t *testing.T) {
	dir := t.TempDir()
	whole, app, debug := hiddenSourceApp(t, dir)
	noLocalDebuginfo(t)
	id := buildIDOf(t, app)
	good, err := os.ReadFile(debug)
	if err != nil {
		t.Fatal(err)
	}
	bad := dwarftest.Garble(t, good, ".debug_abbrev", 0x5a)
	q := []string{"-V", "util_checksum"}
	want, _, err := dw(append([]string{"-x", whole}, q...)...)
	if err != nil {
		t.Fatal(err)
	}
	want = strings.ReplaceAll(want, whole, app)

	t.Run("served", func(t *testing.T) {
		asked := 0
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked++
			w.Write(bad)
		}))
		defer s.Close()
		cache := t.TempDir()
		t.Setenv("DEBUGINFOD_CACHE_PATH", cache)
		cached := filepath.Join(cache, id, "debuginfo")
		for run := 1; run <= 2; run++ {
			_, _, err := dw(append([]string{"-x", app, "--debuginfod=" + s.URL}, q...)...)
			t.Logf("run %d: %v", run, err)
			if err == nil || exitCode(err) != exitInput || !strings.Contains(err.Error(), "not cached as "+cached) || !strings.Contains(err.Error(), ".debug_abbrev") {
				t.Errorf("run %d: %v (exit %d); want exit %d naming %s", run, err, exitCode(err), exitInput, cached)
			}
			if files := dirTree(t, cache); len(files) != 0 {
				t.Errorf("run %d: cached %q", run, files)
			}
		}
		if asked != 2 {
			t.Errorf("asked %d times in two runs, want 2", asked)
		}
	})

	plant := func(t *testing.T) (cache, cached string) {
		cache = t.TempDir()
		t.Setenv("DEBUGINFOD_CACHE_PATH", cache)
		cached = filepath.Join(cache, id, "debuginfo")
		os.MkdirAll(filepath.Dir(cached), 0o700)
		if err := os.WriteFile(cached, bad, 0o400); err != nil {
			t.Fatal(err)
		}
		return cache, cached
	}
	t.Run("cached, good server", func(t *testing.T) {
		srv := debuginfodtest.Start(t, debuginfodtest.Options{Dirs: []string{filepath.Join(dir, "srv")}, NoSources: true})
		_, cached := plant(t)
		got, errs, err := dw(append([]string{"-x", app, "--debuginfod=" + srv.URL}, q...)...)
		if err != nil || got != want {
			t.Errorf("got %q, %v (stderr %q); want %q", got, err, errs, want)
		}
		if b, _ := os.ReadFile(cached); string(b) != string(good) {
			t.Errorf("the cache holds %d bytes, want the good file's %d", len(b), len(good))
		}
	})
	t.Run("cached, no server has it", func(t *testing.T) {
		s := httptest.NewServer(http.NotFoundHandler())
		defer s.Close()
		_, cached := plant(t)
		_, _, err := dw(append([]string{"-x", app, "--debuginfod=" + s.URL}, q...)...)
		t.Logf("%v", err)
		if err == nil || exitCode(err) != exitInput || !strings.Contains(err.Error(), cached+": ") || !strings.Contains(err.Error(), "removed") {
			t.Errorf("%v (exit %d); want exit %d naming %s, removed", err, exitCode(err), exitInput, cached)
		}
		if _, err := os.Lstat(cached); err == nil {
			t.Errorf("%s kept", cached)
		}
	})
}

// dirTree lists the files under dir.
func dirTree(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestDebuginfodServersAtOnce (issue 34, finding 6): with a first server
// that never answers and Debian's debuginfod second, the answer comes
// from the second without waiting for DEBUGINFOD_TIMEOUT (here 10
// minutes), as elfutils asks every server at once; a file:// URL naming a
// directory laid out as a server's (DIR/buildid/ID/debuginfo) serves as
// elfutils' does. Servers used to be asked one after another, and
// file:// was refused.
func TestDebuginfodServersAtOnce(t *testing.T) {
	dir := t.TempDir()
	whole, app, debug := hiddenSourceApp(t, dir)
	noLocalDebuginfo(t)
	id := buildIDOf(t, app)
	q := []string{"-V", "util_checksum"}
	want, _, err := dw(append([]string{"-x", whole}, q...)...)
	if err != nil {
		t.Fatal(err)
	}
	want = strings.ReplaceAll(want, whole, app)
	t.Run("silent first", func(t *testing.T) {
		srv := debuginfodtest.Start(t, debuginfodtest.Options{Dirs: []string{filepath.Join(dir, "srv")}, NoSources: true})
		silent := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
		silent.Start()
		defer silent.Close()
		t.Setenv("DEBUGINFOD_CACHE_PATH", t.TempDir())
		t.Setenv("DEBUGINFOD_TIMEOUT", "600")
		t.Setenv("DEBUGINFOD_URLS", silent.URL+" "+srv.URL)
		got, errs, code := runBounded(t, 2*time.Minute, append([]string{"-x", app}, q...)...)
		if code != 0 || got != want {
			t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, got, errs, want)
		}
	})
	t.Run("file://", func(t *testing.T) {
		srvDir := t.TempDir()
		os.MkdirAll(filepath.Join(srvDir, "buildid", id), 0o755)
		dwarftest.PlaceFile(t, debug, filepath.Join(srvDir, "buildid", id, "debuginfo"))
		t.Setenv("DEBUGINFOD_CACHE_PATH", t.TempDir())
		t.Setenv("DEBUGINFOD_URLS", "file://"+srvDir)
		got, errs, err := dw(append([]string{"-x", app}, q...)...)
		if err != nil || got != want {
			t.Errorf("got %q, %v (stderr %q); want %q", got, err, errs, want)
		}
	})
}
