package tracefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// Where tracefs lives: its own mount point since Linux 4.1, and the older
// place inside debugfs (an automount of tracefs on newer kernels).
const (
	tracingDir      = "/sys/kernel/tracing"
	debugTracingDir = "/sys/kernel/debug/tracing"
)

// mountHint is what a user has to run when tracefs is not mounted.
const mountHint = "as root, run: mount -t tracefs nodev " + tracingDir

// FS is a tracefs mount (or, in tests, a directory laid out like one).
// Its methods may be called from several goroutines; Add and Delete of
// this and other processes are serialised by an exclusive flock.
type FS struct {
	root     string
	lockPath string
	hooks    Hooks
	version  [2]int // SetKernelVersion's; zero: the running kernel's

	// writeFile performs one open(2) of path with O_WRONLY|flag and one
	// write(2) of data. Tests replace it to play the kernel's part.
	writeFile func(path string, flag int, data []byte) error
}

// Root returns the directory FS reads and writes.
func (t *FS) Root() string { return t.root }

// LockPath returns the lock file Add and Delete take; a caller may keep
// its own records about the probes beside it (same lifetime: /run is
// emptied at boot, as the probes are).
func (t *FS) LockPath() string { return t.lockPath }

// Open returns the tracefs at root, which must hold a README file. Add and
// Delete lock defaultLockPath() if root is a mounted tracefs or debugfs,
// and root/.dwprobe.lock otherwise (a directory standing in for tracefs in
// tests). Errors wrap ErrNotMounted or ErrPermission.
func Open(root string) (*FS, error) {
	if err := hasReadme(root); err != nil {
		return nil, err
	}
	lock := filepath.Join(root, ".dwprobe.lock")
	if magic, err := statfsMagic(root); err == nil && isTracefsMagic(magic) {
		lock = defaultLockPath()
	}
	return newFS(root, lock), nil
}

// WriteFunc performs one open(2) of path with O_WRONLY|O_CLOEXEC|flag and
// one write(2) of data. flag is O_APPEND for kprobe_events and
// uprobe_events, O_TRUNC for value files such as enable.
type WriteFunc func(path string, flag int, data []byte) error

// OpenWith is Open with every write to a tracefs file done by write
// instead of write(2): a test plays the kernel's part on a directory laid
// out like tracefs (see package tracefstest). Reads are not redirected.
func OpenWith(root string, write WriteFunc) (*FS, error) {
	t, err := Open(root)
	if err != nil {
		return nil, err
	}
	t.writeFile = write
	return t, nil
}

func newFS(root, lockPath string) *FS {
	return &FS{root: root, lockPath: lockPath, writeFile: sysWrite}
}

// Find returns the system's tracefs: where /proc/self/mountinfo says a
// tracefs (or a debugfs's tracing directory) is mounted, else
// /sys/kernel/tracing, else /sys/kernel/debug/tracing. If none is mounted
// and the process runs as root, it mounts tracefs on /sys/kernel/tracing
// (what perf does through libapi); otherwise the error, wrapping
// ErrNotMounted, says what to run. An existing tracefs this process may
// not read is ErrPermission. The search runs once per process.
func Find() (*FS, error) {
	root, err := findOnce()
	if err != nil {
		return nil, err
	}
	return newFS(root, defaultLockPath()), nil
}

var findOnce = sync.OnceValues(func() (string, error) { return find(hostSystem{}) })

// system is what find needs from the host, so its decisions can be tested.
type system interface {
	statfsMagic(dir string) (int64, error)
	hasReadme(dir string) error
	euid() int
	mountTracefs(dir string) error
	mountinfo() (string, error)
}

type hostSystem struct{}

func (hostSystem) statfsMagic(dir string) (int64, error) { return statfsMagic(dir) }
func (hostSystem) hasReadme(dir string) error            { return hasReadme(dir) }
func (hostSystem) euid() int                             { return unix.Geteuid() }
func (hostSystem) mountTracefs(dir string) error {
	return unix.Mount("nodev", dir, "tracefs", 0, "")
}
func (hostSystem) mountinfo() (string, error) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	return string(b), err
}

func find(sys system) (string, error) {
	mounted := func(dir string) (bool, error) {
		magic, err := sys.statfsMagic(dir)
		if errors.Is(err, fs.ErrPermission) {
			return false, fmt.Errorf("%w: %v", ErrPermission, err)
		}
		if err != nil || !isTracefsMagic(magic) {
			// Missing (ENOENT) or an empty directory of sysfs or debugfs.
			return false, nil
		}
		if err := sys.hasReadme(dir); err != nil {
			if errors.Is(err, ErrNotMounted) {
				return false, nil
			}
			return false, err
		}
		return true, nil
	}
	var dirs []string
	if text, err := sys.mountinfo(); err == nil {
		dirs = mountedDirs(text)
	}
	for _, dir := range append(dirs, tracingDir, debugTracingDir) {
		ok, err := mounted(dir)
		if err != nil || ok {
			return dir, err
		}
	}
	if sys.euid() != 0 {
		return "", fmt.Errorf("%w at %s or %s; %s", ErrNotMounted, tracingDir, debugTracingDir, mountHint)
	}
	if err := sys.mountTracefs(tracingDir); err != nil {
		return "", fmt.Errorf("%w: mounting tracefs on %s: %v; %s", ErrNotMounted, tracingDir, err, mountHint)
	}
	ok, err := mounted(tracingDir)
	if err == nil && !ok {
		err = fmt.Errorf("%w: mounted tracefs on %s but found no README there", ErrNotMounted, tracingDir)
	}
	return tracingDir, err
}

func statfsMagic(dir string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, &fs.PathError{Op: "statfs", Path: dir, Err: err}
	}
	return int64(st.Type), nil
}

// isTracefsMagic reports a tracefs, or a debugfs (whose tracing directory
// holds the tracing files on kernels before 4.1).
func isTracefsMagic(magic int64) bool {
	return magic == unix.TRACEFS_MAGIC || magic == unix.DEBUGFS_MAGIC
}

// hasReadme checks that dir has the README every tracefs has.
func hasReadme(dir string) error {
	_, err := os.Stat(filepath.Join(dir, "README"))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%w: %v (tracefs is root-only unless its mode was changed)", ErrPermission, err)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %s has no README, so it is not a tracefs", ErrNotMounted, dir)
	}
	return err
}

// Flags for FS.writeFile.
const (
	// appendFlag is for kprobe_events and uprobe_events: never truncate
	// (O_TRUNC on them deletes every probe of the kind).
	appendFlag = unix.O_APPEND
	// replaceFlag is for value files such as enable.
	replaceFlag = unix.O_TRUNC
)

// sysWrite opens path write-only with flag and writes data with exactly
// one write(2): the kernel runs each write of a probe file as one batch of
// commands, so data must not be split.
func sysWrite(path string, flag int, data []byte) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CLOEXEC|flag, 0)
	if err != nil {
		return &fs.PathError{Op: "open", Path: path, Err: err}
	}
	n, err := unix.Write(fd, data)
	cerr := unix.Close(fd)
	switch {
	case err != nil:
		return &fs.PathError{Op: "write", Path: path, Err: err}
	case n != len(data):
		return &fs.PathError{Op: "write", Path: path, Err: io.ErrShortWrite}
	case cerr != nil:
		return &fs.PathError{Op: "close", Path: path, Err: cerr}
	}
	return nil
}
