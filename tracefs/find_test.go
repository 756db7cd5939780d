package tracefs

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// fakeSystem answers find's questions from maps.
type fakeSystem struct {
	magic    map[string]int64 // statfs; missing: ENOENT
	statErr  map[string]error // statfs errors
	readme   map[string]error // hasReadme; missing: ErrNotMounted
	uid      int
	mountErr error
	mounted  []string
}

func (s *fakeSystem) statfsMagic(dir string) (int64, error) {
	if err := s.statErr[dir]; err != nil {
		return 0, err
	}
	m, ok := s.magic[dir]
	if !ok {
		return 0, &fs.PathError{Op: "statfs", Path: dir, Err: syscall.ENOENT}
	}
	return m, nil
}

func (s *fakeSystem) hasReadme(dir string) error {
	if err, ok := s.readme[dir]; ok {
		return err
	}
	return ErrNotMounted
}

func (s *fakeSystem) euid() int { return s.uid }

func (s *fakeSystem) mountTracefs(dir string) error {
	if s.mountErr != nil {
		return s.mountErr
	}
	s.mounted = append(s.mounted, dir)
	s.magic[dir] = unix.TRACEFS_MAGIC
	s.readme[dir] = nil
	return nil
}

func TestFind(t *testing.T) {
	const sysfsMagic = 0x62656572
	for _, c := range []struct {
		name    string
		sys     *fakeSystem
		want    string
		wantErr error
		msg     string
		mount   bool
	}{
		{name: "tracefs",
			sys:  &fakeSystem{magic: map[string]int64{tracingDir: unix.TRACEFS_MAGIC}, readme: map[string]error{tracingDir: nil}},
			want: tracingDir},
		{name: "debugfs only",
			sys: &fakeSystem{magic: map[string]int64{tracingDir: sysfsMagic, debugTracingDir: unix.TRACEFS_MAGIC},
				readme: map[string]error{debugTracingDir: nil}},
			want: debugTracingDir},
		{name: "old debugfs",
			sys: &fakeSystem{magic: map[string]int64{debugTracingDir: unix.DEBUGFS_MAGIC},
				readme: map[string]error{debugTracingDir: nil}},
			want: debugTracingDir},
		{name: "empty tracefs is not it",
			sys: &fakeSystem{magic: map[string]int64{tracingDir: unix.TRACEFS_MAGIC, debugTracingDir: unix.DEBUGFS_MAGIC},
				readme: map[string]error{debugTracingDir: nil}},
			want: debugTracingDir},
		{name: "a README on sysfs is not it",
			sys:     &fakeSystem{magic: map[string]int64{tracingDir: sysfsMagic}, readme: map[string]error{tracingDir: nil}, uid: 1000},
			wantErr: ErrNotMounted, msg: "mount -t tracefs nodev /sys/kernel/tracing"},
		{name: "not root",
			sys:     &fakeSystem{magic: map[string]int64{tracingDir: sysfsMagic}, readme: map[string]error{}, uid: 1000},
			wantErr: ErrNotMounted, msg: "as root, run: mount -t tracefs nodev /sys/kernel/tracing"},
		{name: "root mounts",
			sys:  &fakeSystem{magic: map[string]int64{tracingDir: sysfsMagic}, readme: map[string]error{}},
			want: tracingDir, mount: true},
		{name: "mount fails",
			sys:     &fakeSystem{magic: map[string]int64{}, readme: map[string]error{}, mountErr: syscall.EPERM},
			wantErr: ErrNotMounted, msg: "operation not permitted; as root, run: mount"},
		{name: "no permission",
			sys:     &fakeSystem{magic: map[string]int64{tracingDir: unix.TRACEFS_MAGIC}, readme: map[string]error{tracingDir: ErrPermission}, uid: 1000},
			wantErr: ErrPermission},
		{name: "statfs refused",
			sys:     &fakeSystem{statErr: map[string]error{tracingDir: &fs.PathError{Op: "statfs", Path: tracingDir, Err: syscall.EACCES}}, uid: 1000},
			wantErr: ErrPermission},
	} {
		got, err := find(c.sys)
		switch {
		case c.wantErr != nil:
			if !errors.Is(err, c.wantErr) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%s: find = %q, %v; want %v with %q", c.name, got, err, c.wantErr, c.msg)
			}
		case err != nil || got != c.want:
			t.Errorf("%s: find = %q, %v; want %q", c.name, got, err, c.want)
		}
		if mounted := len(c.sys.mounted) > 0; mounted != c.mount {
			t.Errorf("%s: mounted %v", c.name, c.sys.mounted)
		}
	}
}
