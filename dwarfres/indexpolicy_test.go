package dwarfres

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/internal/safefs"
)

// mustOpenDir opens dir with safefs, creating it.
func mustOpenDir(t testing.TB, dir string) *safefs.Dir {
	t.Helper()
	d, err := safefs.OpenDir(dir, true, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// TestMarkQueried: the first call creates the marker and reports it
// unseen, the second sees it; a link or a directory in its place marks
// nothing and is left as it was.
func TestMarkQueried(t *testing.T) {
	dir := t.TempDir()
	d := mustOpenDir(t, dir)
	sub := mustOpenDir(t, filepath.Join(dir, "sub"))
	for i, want := range []bool{false, true} {
		if seen, err := markQueried(sub, "x.idx.seen"); err != nil || seen != want {
			t.Errorf("call %d: %v, %v; want %v", i+1, seen, err, want)
		}
	}
	target := filepath.Join(dir, "target")
	os.WriteFile(target, nil, 0o644)
	link := filepath.Join(dir, "link.seen")
	os.Symlink(target, link)
	os.Mkdir(filepath.Join(dir, "dir.seen"), 0o755)
	for _, p := range []string{"link.seen", "dir.seen"} {
		if seen, err := markQueried(d, p); err != nil || seen {
			t.Errorf("%s: %v, %v; want unseen", p, seen, err)
		}
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link replaced: %v", err)
	}
}

// TestTidyIndexDirMarkers: a marker unused for evictAfter goes, a recent
// one stays.
func TestTidyIndexDirMarkers(t *testing.T) {
	dir := t.TempDir()
	old, recent := filepath.Join(dir, "a.idx.seen"), filepath.Join(dir, "b.idx.seen")
	now := time.Now()
	for _, p := range []string{old, recent} {
		os.WriteFile(p, nil, 0o644)
	}
	os.Chtimes(old, now.Add(-evictAfter-time.Hour), now.Add(-evictAfter-time.Hour))
	tidyIndexDir(mustOpenDir(t, dir), now, evictOld)
	if _, err := os.Lstat(old); err == nil {
		t.Error("old marker kept")
	}
	if _, err := os.Lstat(recent); err != nil {
		t.Errorf("recent marker: %v", err)
	}
}
