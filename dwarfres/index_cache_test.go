package dwarfres

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// dirFiles is the names in dir, "" joined; fails on an unreadable dir.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestIndexLinkSwappedDuringBuild (issue 34, finding 1): the index
// directory named through a symbolic link that is swapped after the
// directory was checked (here while the index is built, between the lock
// and the write) does not redirect the write: the index lands in the
// directory checked, and nothing in the one the link points to now. It
// used to be written through the swapped link.
func TestIndexLinkSwappedDuringBuild(t *testing.T) {
	bin := needBin(t, "app-gcc-O2-dwarf5")
	base := t.TempDir()
	checked, other := filepath.Join(base, "checked"), filepath.Join(base, "other")
	for _, d := range []string{checked, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(base, "cache")
	if err := os.Symlink(checked, link); err != nil {
		t.Fatal(err)
	}
	swapped := false
	f, _ := openPair(t, bin)
	_, r := EnsureIndex(f, IndexOptions{Dir: link, Progress: func(done, total int) {
		if !swapped {
			swapped = true
			os.Remove(link)
			if err := os.Symlink(other, link); err != nil {
				t.Error(err)
			}
		}
	}})
	if !swapped {
		t.Fatal("the build reported no progress: nothing swapped")
	}
	if !r.Built || r.Err != nil {
		t.Errorf("report %+v, want built and saved", r)
	}
	if names := dirFiles(t, other); len(names) != 0 {
		t.Errorf("written through the swapped link: %q", names)
	}
	if names := strings.Join(dirFiles(t, checked), " "); !strings.Contains(names, mustIndexName(t, f)) {
		t.Errorf("the directory checked holds %q, want the index", names)
	}
}

// TestIndexLinkInUntrustedDir (issue 34, finding 1): a link to a trusted
// directory, in a directory another user owns (who can point it anywhere
// at any time), is not followed: the path is not trusted, and nothing is
// written where the link points. The check used to resolve the link and
// check only its target.
func TestIndexLinkInUntrustedDir(t *testing.T) {
	needRoot(t)
	bin := needBin(t, "app-gcc-O2-dwarf5")
	base := t.TempDir()
	trusted, evil := filepath.Join(base, "trusted"), filepath.Join(base, "evil")
	os.Mkdir(trusted, 0o755)
	os.Mkdir(evil, 0o755)
	if err := os.Symlink(trusted, filepath.Join(evil, "cache")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(evil, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	f, _ := openPair(t, bin)
	_, r := EnsureIndex(f, IndexOptions{Dir: filepath.Join(evil, "cache")})
	if r.Used || !errors.Is(r.Err, ErrIndexUntrusted) || !strings.HasPrefix(r.Err.Error(), evil+": ") {
		t.Errorf("report %+v, want not used: %s not trusted", r, evil)
	}
	if names := dirFiles(t, trusted); len(names) != 0 {
		t.Errorf("written through the link: %q", names)
	}
}

// TestIndexPathKinds (issue 34, finding 9): an index path that is no
// directory, or an index file that is a FIFO or another user's, has its
// own error, not "index corrupt"; a FIFO does not block.
func TestIndexPathKinds(t *testing.T) {
	bin := needBin(t, "app-gcc-O2-dwarf5")
	f, _ := openPair(t, bin)
	name := mustIndexName(t, f)
	t.Run("directory a FIFO", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "index")
		if err := syscall.Mkfifo(dir, 0o644); err != nil {
			t.Fatal(err)
		}
		_, r := EnsureIndex(f, IndexOptions{Dir: dir})
		if r.Used || !errors.Is(r.Err, ErrIndexNotDir) || errors.Is(r.Err, ErrIndexCorrupt) || r.Err.Error() != dir+": index path not a directory (a named pipe)" {
			t.Errorf("report %+v (%v), want %s not a directory", r, r.Err, dir)
		}
	})
	t.Run("directory under a file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		os.WriteFile(file, nil, 0o644)
		_, r := EnsureIndex(f, IndexOptions{Dir: filepath.Join(file, "index")})
		if r.Used || !errors.Is(r.Err, ErrIndexNotDir) || r.Err.Error() != file+": index path not a directory (a regular file)" {
			t.Errorf("report %+v (%v), want %s not a directory", r, r.Err, file)
		}
	})
	t.Run("file a FIFO", func(t *testing.T) {
		dir := t.TempDir()
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
			t.Fatal(err)
		}
		_, r := EnsureIndex(f, IndexOptions{Dir: dir})
		if !r.Built || !errors.Is(r.Stale, ErrIndexNotRegular) || errors.Is(r.Stale, ErrIndexCorrupt) || r.Stale.Error() != filepath.Join(dir, name)+": not a regular file (a named pipe)" {
			t.Errorf("report %+v, want rebuilt: the file was a FIFO", r)
		}
	})
	t.Run("lock a FIFO", func(t *testing.T) {
		dir := t.TempDir()
		lock := filepath.Join(dir, name+".lock")
		if err := syscall.Mkfifo(lock, 0o644); err != nil {
			t.Fatal(err)
		}
		_, r := EnsureIndex(f, IndexOptions{Dir: dir})
		if r.Used || !errors.Is(r.Err, ErrIndexNotRegular) || r.Err.Error() != lock+": not a regular file (a named pipe)" {
			t.Errorf("report %+v (%v), want the lock not a regular file", r, r.Err)
		}
	})
	t.Run("file another user's", func(t *testing.T) {
		needRoot(t)
		dir := t.TempDir()
		if _, r := EnsureIndex(f, IndexOptions{Dir: dir}); !r.Built {
			t.Fatalf("build: %+v", r)
		}
		os.Chown(filepath.Join(dir, name), nobody, nobody)
		_, r := EnsureIndex(f, IndexOptions{Dir: dir})
		if !r.Built || !errors.Is(r.Stale, ErrIndexUntrusted) || errors.Is(r.Stale, ErrIndexCorrupt) {
			t.Errorf("report %+v, want rebuilt: the file was not trusted", r)
		}
	})
}

// TestIndexNoHome (issue 34, finding 7): with HOME=/nonexistent (a system
// user's) and no XDG_CACHE_HOME or DWPROBE_INDEX_DIR, no directory is
// created: there is no index, with a reason, and queries scan. It used
// to create /nonexistent/.cache/dwprobe/index.
func TestIndexNoHome(t *testing.T) {
	bin := needBin(t, "app-gcc-O2-dwarf5")
	home := filepath.Join(t.TempDir(), "nonexistent")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("DWPROBE_INDEX_DIR", "")
	f, g := openPair(t, bin)
	_, r := EnsureIndex(f, IndexOptions{})
	if r.Used || !errors.Is(r.Err, ErrIndexNoDir) || !strings.Contains(r.Err.Error(), home) {
		t.Errorf("report %+v (%v), want no index directory naming %s", r, r.Err, home)
	}
	if !IndexPays(g, IndexOptions{}, 1) {
		t.Error("IndexPays: false, want true (EnsureIndex says why)")
	}
	if _, err := os.Lstat(home); err == nil {
		t.Errorf("%s created", home)
	}
}

// TestIndexStaleTempOnOpen (issue 34, finding 7): a temporary a killed
// builder left is removed when the directory is next opened, a load and
// not only a build; a recent one (a build in progress) stays.
func TestIndexStaleTempOnOpen(t *testing.T) {
	bin := needBin(t, "app-gcc-O2-dwarf5")
	dir := t.TempDir()
	f, g := openPair(t, bin)
	if _, r := EnsureIndex(f, IndexOptions{Dir: dir}); !r.Built {
		t.Fatalf("build: %+v", r)
	}
	stale, recent := filepath.Join(dir, ".tmp-123.idx"), filepath.Join(dir, ".tmp-456.idx")
	os.WriteFile(stale, []byte("x"), 0o600)
	os.WriteFile(recent, []byte("x"), 0o600)
	old := time.Now().Add(-2 * staleTemp)
	os.Chtimes(stale, old, old)
	if _, r := EnsureIndex(g, IndexOptions{Dir: dir}); r.Built || !r.Used {
		t.Fatalf("load: %+v", r)
	}
	if _, err := os.Lstat(stale); err == nil {
		t.Error("stale temporary kept")
	}
	if _, err := os.Lstat(recent); err != nil {
		t.Errorf("recent temporary: %v", err)
	}
}
