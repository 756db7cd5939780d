package tracefs

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Hooks are told what FS does on its own while a command waits: a nil
// hook is skipped. They run in the goroutine that called FS.
type Hooks struct {
	// LockWait is called once, after the lock has been held by another
	// process for LockWaitNotice; holder is its pid, 0 if unknown.
	LockWait func(path string, holder int)
	// Recovered is called for each batch of a killed process found in
	// its journal and rolled back, right after the lock is taken.
	Recovered func(Recovery)
}

// LockWaitNotice is how long a wait for the lock goes before Hooks.LockWait
// hears of it.
const LockWaitNotice = time.Second

// lockPoll is how often a waiter tries the lock again: flock(2) has no
// timeout and a blocked flock ignores the context, so the wait polls.
const lockPoll = 20 * time.Millisecond

// SetHooks makes FS tell h what it does on its own.
func (t *FS) SetHooks(h Hooks) { t.hooks = h }

// defaultLockPath is the lock file that serialises the Add and Delete of
// every dwprobe process of this user: for root /run/dwprobe/lock, in a
// directory only root can create (/run is root's) of mode 0700, so no
// other user can plant, hold or replace the lock. Another user's lock,
// and root's on a system without /run (a bare initramfs), is in a
// directory of their own ($XDG_RUNTIME_DIR/dwprobe, else /tmp/dwprobe-UID,
// refused if somebody else made it), which serialises their processes only.
func defaultLockPath() string {
	uid := os.Geteuid()
	if st, err := os.Stat("/run"); uid == 0 && err == nil && st.IsDir() {
		return "/run/dwprobe/lock"
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "dwprobe", "lock")
	}
	return filepath.Join(os.TempDir(), "dwprobe-"+strconv.Itoa(uid), "lock")
}

// lock takes the exclusive flock on t.lockPath, rolls back the batches of
// killed processes whose journals it finds there, and returns the lock's
// release. flock conflicts between open file descriptions, so it
// serialises goroutines of one process as well as processes. The wait
// ends with ctx (an error wrapping ErrInterrupted).
func (t *FS) lock(ctx context.Context) (unlock func(), err error) {
	fd, err := openLock(t.lockPath)
	if err != nil {
		return nil, err
	}
	if err := t.waitLock(ctx, fd); err != nil {
		unix.Close(fd)
		return nil, err
	}
	t.recoverJournals()
	return func() { unix.Close(fd) }, nil
}

// openLock opens (creating) the lock file at path, which must be a
// regular file of this user in a directory of this user's that nobody
// else may write: a symlink, a directory, a FIFO or another user's file
// there is refused (ErrLockUnsafe), never followed, opened for a blocking
// read or waited on.
func openLock(path string) (int, error) {
	if err := ownDir(filepath.Dir(path)); err != nil {
		return -1, err
	}
	const flags = unix.O_RDWR | unix.O_CREAT | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	fd, err := unix.Open(path, flags, 0o600)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.ENXIO) {
			return -1, fmt.Errorf("%w: %s: %v", ErrLockUnsafe, path, unsafeWhy(path))
		}
		return -1, fmt.Errorf("lock file: %w", &fs.PathError{Op: "open", Path: path, Err: err})
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("lock file: %w", &fs.PathError{Op: "fstat", Path: path, Err: err})
	}
	if why := badOwner(st, unix.S_IFREG); why != "" {
		unix.Close(fd)
		return -1, fmt.Errorf("%w: %s is %s", ErrLockUnsafe, path, why)
	}
	return fd, nil
}

// ownDir makes dir (mode 0700) if it is missing and checks that it is a
// directory of this user that no one else may write.
func ownDir(dir string) error {
	if err := unix.Mkdir(dir, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
		return fmt.Errorf("lock directory: %w", permission(&fs.PathError{Op: "mkdir", Path: dir, Err: err}))
	}
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return fmt.Errorf("lock directory: %w", &fs.PathError{Op: "lstat", Path: dir, Err: err})
	}
	if why := badOwner(st, unix.S_IFDIR); why != "" {
		return fmt.Errorf("%w: directory %s is %s", ErrLockUnsafe, dir, why)
	}
	if st.Mode&0o022 != 0 {
		return fmt.Errorf("%w: directory %s is writable by others (mode %#o)", ErrLockUnsafe, dir, st.Mode&0o7777)
	}
	return nil
}

// badOwner says what is wrong with st for an object of type typ (S_IFREG,
// S_IFDIR) of this user's, or "".
func badOwner(st unix.Stat_t, typ uint32) string {
	if st.Mode&unix.S_IFMT != typ {
		return "not a " + map[uint32]string{unix.S_IFREG: "regular file", unix.S_IFDIR: "directory"}[typ] + " but " + fileType(st.Mode)
	}
	if euid := os.Geteuid(); int(st.Uid) != euid {
		return fmt.Sprintf("owned by uid %d, not by this user (uid %d)", st.Uid, euid)
	}
	return ""
}

// unsafeWhy names what is at path instead of a lock file.
func unsafeWhy(path string) string {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return err.Error()
	}
	return "not a regular file but " + fileType(st.Mode)
}

func fileType(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return "a symbolic link"
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device"
	case unix.S_IFREG:
		return "a regular file"
	}
	return "of unknown type"
}

// waitLock takes the flock of fd, trying again every lockPoll until ctx
// ends; after LockWaitNotice it tells Hooks.LockWait who holds it.
func (t *FS) waitLock(ctx context.Context, fd int) error {
	start, told := time.Now(), false
	for {
		err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return nil
		}
		if err != unix.EWOULDBLOCK && err != unix.EINTR {
			return fmt.Errorf("lock file: %w", &fs.PathError{Op: "flock", Path: t.lockPath, Err: err})
		}
		if !told && time.Since(start) >= LockWaitNotice && t.hooks.LockWait != nil {
			told = true
			t.hooks.LockWait(t.lockPath, lockHolder(fd))
		}
		select {
		case <-ctx.Done():
			return &LockWaitError{Path: t.lockPath, Holder: lockHolder(fd), Err: ctx.Err()}
		case <-time.After(lockPoll):
		}
	}
}

// lockHolder returns the pid that holds a flock on fd's file, from
// /proc/locks ("1: FLOCK  ADVISORY  WRITE 1234 00:1a:5678 0 EOF", the
// device as MAJOR:MINOR in hex), or 0 if it can't tell.
func lockHolder(fd int) int {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return 0
	}
	id := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	f, err := os.Open("/proc/locks")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// Waiters are listed with "->" before the type; skip them.
		fl := strings.Fields(sc.Text())
		if len(fl) >= 6 && fl[1] == "FLOCK" && fl[5] == id {
			pid, _ := strconv.Atoi(fl[4])
			return pid
		}
	}
	return 0
}
