package tracefs

import (
	"errors"
	"io/fs"
	"reflect"
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
	info     string // /proc/self/mountinfo
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

func (s *fakeSystem) mountinfo() (string, error) { return s.info, nil }

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
		{name: "bind-mounted in a container",
			sys: &fakeSystem{magic: map[string]int64{tracingDir: unix.TRACEFS_MAGIC, "/host trace": unix.TRACEFS_MAGIC},
				readme: map[string]error{tracingDir: nil, "/host trace": nil},
				info:   "1301 1290 0:12 / /host\\040trace rw,nosuid - tracefs tracefs rw\n"},
			want: "/host trace"},
		{name: "mountinfo lists an empty one",
			sys: &fakeSystem{magic: map[string]int64{tracingDir: unix.TRACEFS_MAGIC, "/x": unix.TRACEFS_MAGIC},
				readme: map[string]error{tracingDir: nil}, info: "1 1 0:12 / /x rw - tracefs tracefs rw\n"},
			want: tracingDir},
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

func TestMountedDirs(t *testing.T) {
	// From a host with tracefs in its usual place and debugfs, and a
	// container with the host's tracefs bind-mounted at "/sys/kernel/my trace"
	// (octal escapes), optional fields of several kinds, and noise.
	info := `22 27 0:20 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
35 22 0:12 / /sys/kernel/tracing rw,nosuid,nodev,noexec,relatime shared:15 - tracefs tracefs rw
36 22 0:7 / /sys/kernel/debug rw,nosuid,nodev,noexec,relatime shared:16 - debugfs debugfs rw
1301 1290 0:12 / /sys/kernel/my\040trace rw,relatime master:15 propagate_from:3 - tracefs tracefs rw
1302 1290 0:7 / /dbg\134x rw - debugfs debugfs rw
garbage line
1303 1290 0:9 / /tracefs-looking rw - tmpfs tracefs rw
`
	want := []string{"/sys/kernel/tracing", "/sys/kernel/my trace", "/sys/kernel/debug/tracing", `/dbg\x/tracing`}
	if got := mountedDirs(info); !reflect.DeepEqual(got, want) {
		t.Errorf("mountedDirs = %q, want %q", got, want)
	}
	for in, want := range map[string]string{`a\040b`: "a b", `a\011b\012`: "a\tb\n", `a\134`: `a\`, `a\09`: `a\09`, `\04`: `\04`, "plain": "plain"} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}
