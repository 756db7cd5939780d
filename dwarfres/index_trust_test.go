package dwarfres

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// nobody is the uid tests give files another user owns.
const nobody = 65534

// needRoot skips a test that chowns files.
func needRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		dwarftest.Skip(t, "needs root to give files to another user")
	}
}

// TestIndexUntrustedDir: an index directory another user owns or can
// write is neither read nor written: one note, the scan's answers, and
// the file planted there is left alone.
func TestIndexUntrustedDir(t *testing.T) {
	needRoot(t)
	bin := needBin(t, "app-gcc-O2-dwarf5")
	for _, c := range []struct {
		name  string
		spoil func(dir string) error
	}{
		{"owned by nobody", func(dir string) error { return os.Chown(dir, nobody, nobody) }},
		{"world-writable", func(dir string) error { return os.Chmod(dir, 0o777) }},
		{"parent owned by nobody", func(dir string) error { return os.Chown(filepath.Dir(dir), nobody, nobody) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "index")
			f, _ := openPair(t, bin)
			if _, r := EnsureIndex(f, IndexOptions{Dir: dir}); !r.Built {
				t.Fatalf("build: %+v", r)
			}
			if err := c.spoil(dir); err != nil {
				t.Fatal(err)
			}
			plain, g := openPair(t, bin)
			var notes []IndexReport
			g.UseIndex(IndexOptions{Dir: dir, Note: func(r IndexReport) { notes = append(notes, r) }})
			q := Query{Function: exactName("work")}
			if a, b := probesString(plain.FindProbes(q)), probesString(g.FindProbes(q)); a != b {
				t.Errorf("work: scan %s, with the directory %s", a, b)
			}
			if len(notes) != 1 || notes[0].Used || !errors.Is(notes[0].Err, ErrIndexUntrusted) {
				t.Errorf("notes %+v, want one: not used, not trusted", notes)
			}
		})
	}
}

// TestIndexLockSymlink: a symbolic link planted at the lock's path does
// not make the builder create the file it points to; an index file that
// is a link is not read.
func TestIndexLockSymlink(t *testing.T) {
	bin := needBin(t, "app-gcc-O2-dwarf5")
	dir := t.TempDir()
	f, _ := openPair(t, bin)
	_, name, err := indexer{f}.indexKey()
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "created-by-dwprobe")
	if err := os.Symlink(target, filepath.Join(dir, name+".lock")); err != nil {
		t.Fatal(err)
	}
	_, r := EnsureIndex(f, IndexOptions{Dir: dir})
	if _, err := os.Lstat(target); err == nil {
		t.Errorf("the lock's link made %s", target)
	}
	if r.Used || !errors.Is(r.Err, ErrIndexUntrusted) || !strings.Contains(r.Err.Error(), "symbolic link") {
		t.Errorf("report %+v, want not used: the lock is a link", r)
	}
}

// TestIndexFileChangedWhileUsed: an index truncated or rewritten in place
// after it was loaded changes neither the answers nor crashes the
// process (a shared mapping faulted: SIGBUS).
func TestIndexFileChangedWhileUsed(t *testing.T) {
	bin := needBin(t, "app-gcc-O2-dwarf5")
	for _, change := range []string{"truncated", "zeroed in place"} {
		t.Run(change, func(t *testing.T) {
			dir := t.TempDir()
			plain, g := openPair(t, bin)
			if _, r := EnsureIndex(plain, IndexOptions{Dir: dir}); !r.Built {
				t.Fatalf("build: %+v", r)
			}
			g.UseIndex(IndexOptions{Dir: dir})
			if g.index() == nil {
				t.Fatal("no index")
			}
			path := filepath.Join(dir, mustIndexName(t, g))
			if change == "truncated" {
				os.Truncate(path, 0)
			} else {
				b, _ := os.ReadFile(path)
				fh, _ := os.OpenFile(path, os.O_WRONLY, 0)
				fh.WriteAt(make([]byte, len(b)-64), 64)
				fh.Close()
			}
			for _, fn := range []string{"work", "compute", "item_score"} {
				q := Query{Function: exactName(fn)}
				if a, b := probesString(plain.FindProbes(q)), probesString(g.FindProbes(q)); a != b {
					t.Errorf("%s: scan %s, index %s", fn, a, b)
				}
			}
		})
	}
}

func mustIndexName(t testing.TB, f *File) string {
	_, name, err := indexer{f}.indexKey()
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// TestIndexTidy: a build removes temporaries a killed writer left (older
// than an hour) and indexes unused for 30 days with their locks; recent
// files, and files of another user, stay.
func TestIndexTidy(t *testing.T) {
	bin := needBin(t, "app-gcc-O2-dwarf5")
	dir := t.TempDir()
	old := time.Now().Add(-31 * 24 * time.Hour)
	files := map[string]bool{ // name: removed
		".tmp-123.idx":    true,
		".tmp-new.idx":    false,
		"gone-1.idx":      true,
		"gone-1.idx.lock": true,
		"lonely.idx.lock": true,
		"recent.idx":      false,
		"other-user.idx":  false,
		"notes.txt":       false,
		"recent.idx.lock": false,
	}
	for name := range files {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("x"), 0o644)
		if name != ".tmp-new.idx" && !strings.HasPrefix(name, "recent") {
			os.Chtimes(p, old, old)
		}
		if name == "other-user.idx" && os.Geteuid() == 0 {
			os.Chown(p, nobody, nobody)
		}
	}
	files["other-user.idx"] = os.Geteuid() != 0 // then it is ours
	f, _ := openPair(t, bin)
	if _, r := EnsureIndex(f, IndexOptions{Dir: dir}); !r.Built {
		t.Fatalf("build: %+v", r)
	}
	for name, gone := range files {
		_, err := os.Lstat(filepath.Join(dir, name))
		if gone != (err != nil) {
			t.Errorf("%s: removed %v, want %v", name, err != nil, gone)
		}
	}
}
