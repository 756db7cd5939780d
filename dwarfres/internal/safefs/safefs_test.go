package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// nobody is the uid tests give files another user owns.
const nobody = 65534

// TestOpenDir: the walk follows links only where nobody else could have
// put them, makes missing directories only when asked, and names what it
// refuses.
func TestOpenDir(t *testing.T) {
	root := os.Geteuid() == 0
	for _, c := range []struct {
		name     string
		setup    func(t *testing.T, base string) string // the path to open
		create   bool
		wantErr  error // nil: opens
		needRoot bool
	}{
		{"plain", func(t *testing.T, base string) string { return mkdir(t, base, "a/b") }, false, nil, false},
		{"missing", func(t *testing.T, base string) string { return filepath.Join(base, "x/y") }, false, fs.ErrNotExist, false},
		{"missing, created", func(t *testing.T, base string) string { return filepath.Join(base, "x/y") }, true, nil, false},
		{"dot-dot", func(t *testing.T, base string) string { mkdir(t, base, "a/b"); return filepath.Join(base, "a/b/../b") }, false, nil, false},
		{"link in a trusted directory", func(t *testing.T, base string) string {
			symlink(t, mkdir(t, base, "real"), filepath.Join(base, "link"))
			return filepath.Join(base, "link")
		}, false, nil, false},
		{"relative link", func(t *testing.T, base string) string {
			mkdir(t, base, "real/sub")
			symlink(t, "real/sub", filepath.Join(base, "rel"))
			return filepath.Join(base, "rel")
		}, false, nil, false},
		{"file on the way", func(t *testing.T, base string) string {
			os.WriteFile(filepath.Join(base, "f"), nil, 0o644)
			return filepath.Join(base, "f/x")
		}, true, ErrNotDir, false},
		{"FIFO at the end", func(t *testing.T, base string) string {
			syscall.Mkfifo(filepath.Join(base, "p"), 0o644)
			return filepath.Join(base, "p")
		}, false, ErrNotDir, false},
		{"link loop", func(t *testing.T, base string) string {
			symlink(t, "l2", filepath.Join(base, "l1"))
			symlink(t, "l1", filepath.Join(base, "l2"))
			return filepath.Join(base, "l1")
		}, false, syscall.ELOOP, false},
		{"world-writable", func(t *testing.T, base string) string {
			p := mkdir(t, base, "w")
			os.Chmod(p, 0o777)
			return p
		}, false, ErrUntrusted, false},
		{"sticky above", func(t *testing.T, base string) string {
			p := mkdir(t, base, "tmp")
			os.Chmod(p, 0o777|os.ModeSticky)
			return mkdir(t, base, "tmp/cache")
		}, false, nil, false},
		{"sticky at the end", func(t *testing.T, base string) string {
			p := mkdir(t, base, "tmp")
			os.Chmod(p, 0o777|os.ModeSticky)
			return p
		}, false, ErrUntrusted, false},
		{"another user's", func(t *testing.T, base string) string {
			p := mkdir(t, base, "theirs")
			os.Chown(p, nobody, nobody)
			return p
		}, false, ErrUntrusted, true},
		{"link in another user's directory", func(t *testing.T, base string) string {
			real, evil := mkdir(t, base, "real"), mkdir(t, base, "evil")
			symlink(t, real, filepath.Join(evil, "link"))
			os.Chown(evil, nobody, nobody)
			return filepath.Join(evil, "link")
		}, false, ErrUntrusted, true},
		{"own link in a sticky directory", func(t *testing.T, base string) string {
			real, tmp := mkdir(t, base, "real"), mkdir(t, base, "tmp")
			os.Chmod(tmp, 0o777|os.ModeSticky)
			symlink(t, real, filepath.Join(tmp, "link"))
			return filepath.Join(tmp, "link")
		}, false, nil, false},
		{"another user's link in a sticky directory", func(t *testing.T, base string) string {
			real, tmp := mkdir(t, base, "real"), mkdir(t, base, "tmp")
			os.Chmod(tmp, 0o777|os.ModeSticky)
			symlink(t, real, filepath.Join(tmp, "link"))
			os.Lchown(filepath.Join(tmp, "link"), nobody, nobody)
			return filepath.Join(tmp, "link")
		}, false, ErrUntrusted, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.needRoot && !root {
				t.Skip("needs root to give files to another user")
			}
			p := c.setup(t, t.TempDir())
			d, err := OpenDir(p, c.create, 0o755)
			if d != nil {
				d.Close()
			}
			if (err == nil) != (c.wantErr == nil) || c.wantErr != nil && !errors.Is(err, c.wantErr) {
				t.Errorf("OpenDir(%s): %v, want %v", p, err, c.wantErr)
			}
		})
	}
}

// TestDirOps: what a Dir does is relative to it, and refuses links and
// other kinds of file by name.
func TestDirOps(t *testing.T) {
	base := t.TempDir()
	d, err := OpenDir(base, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	f, name, err := d.CreateTemp("x.", ".tmp")
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("data"))
	f.Close()
	if err := d.Rename(name, "x"); err != nil {
		t.Fatal(err)
	}
	if st, err := d.Lstat("x"); err != nil || st == nil || st.Size != 4 {
		t.Errorf("Lstat x: %+v %v", st, err)
	}
	if st, err := d.Lstat("none"); st != nil || err != nil {
		t.Errorf("Lstat none: %+v %v", st, err)
	}
	symlink(t, filepath.Join(base, "x"), filepath.Join(base, "link"))
	if _, err := d.Open("link"); !errors.Is(err, ErrUntrusted) {
		t.Errorf("Open link: %v", err)
	}
	if _, err := d.Create("x", 0o644); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create x: %v", err)
	}
	syscall.Mkfifo(filepath.Join(base, "p"), 0o644)
	if _, err := d.Open("p"); err == nil {
		t.Error("Open FIFO: no error")
	}
	if _, err := d.Sub("link", false, 0); !errors.Is(err, ErrUntrusted) {
		t.Errorf("Sub link: %v", err)
	}
	ents, err := d.List()
	if err != nil || len(ents) != 3 {
		t.Errorf("List: %+v %v", ents, err)
	}
	if err := d.Remove("x"); err != nil {
		t.Error(err)
	}
}

func mkdir(t *testing.T, base, rel string) string {
	t.Helper()
	p := filepath.Join(base, rel)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
