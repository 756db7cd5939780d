package dwarfres

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestMarkQueried: the first call creates the marker and reports it
// unseen, the second sees it; a link or a directory in its place marks
// nothing and is left as it was.
func TestMarkQueried(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "x.idx.seen")
	for i, want := range []bool{false, true} {
		if seen, err := markQueried(path); err != nil || seen != want {
			t.Errorf("call %d: %v, %v; want %v", i+1, seen, err, want)
		}
	}
	target := filepath.Join(dir, "target")
	os.WriteFile(target, nil, 0o644)
	link := filepath.Join(dir, "link.seen")
	os.Symlink(target, link)
	os.Mkdir(filepath.Join(dir, "dir.seen"), 0o755)
	for _, p := range []string{link, filepath.Join(dir, "dir.seen")} {
		if seen, err := markQueried(p); err != nil || seen {
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
	tidyIndexDir(dir, now)
	if _, err := os.Lstat(old); err == nil {
		t.Error("old marker kept")
	}
	if _, err := os.Lstat(recent); err != nil {
		t.Errorf("recent marker: %v", err)
	}
}
