package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestDebuginfodCorruptEvicted: a download of the right build-id whose
// DWARF does not decode is an error naming the cached file, exit 4, and
// the file leaves the cache, so the next run asks the server again; it
// was kept for good, the error naming only the program.
func TestDebuginfodCorruptEvicted(t *testing.T) {
	split, id, debug := dwarftest.SplitDebug(t, filepath.Dir(fixture(t, "app-gcc-O2-dwarf5")))
	noLocalDebuginfo(t)
	b, err := os.ReadFile(debug)
	if err != nil {
		t.Fatal(err)
	}
	bad := dwarftest.Garble(t, b, ".debug_info", 0x3c)
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
		_, _, err := dw("-x", split, "--debuginfod="+s.URL, "-V", "work")
		if err == nil || exitCode(err) != exitInput || !strings.Contains(err.Error(), cached) {
			t.Errorf("run %d: %v (exit %d); want exit %d naming %s", run, err, exitCode(err), exitInput, cached)
		}
		if _, err := os.Stat(cached); err == nil {
			t.Errorf("run %d: the corrupt download stays cached at %s", run, cached)
		}
	}
	if asked != 2 {
		t.Errorf("the server was asked %d times in two runs; want each run to ask again", asked)
	}
}
