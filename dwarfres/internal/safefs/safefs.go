// Package safefs is dwprobe's one rule for the cache directories it
// reads answers from and writes into (the index directory, the debuginfod
// cache): they are trusted only when nobody but the user and root can
// have put what is in them. This is git's safe.directory and ssh's
// StrictModes rule: every directory from the root down to the cache is
// owned by the user or root and writable by nobody else (a sticky
// directory such as /tmp excepted, as ssh does); files are opened without
// following a symbolic link (O_NOFOLLOW), must be regular, and must be
// owned and writable the same way. root, whose HOME or XDG_CACHE_HOME sudo
// often keeps, then never reads a cache another user could have written.
//
// A cache directory is checked once and then held open (a Dir), as
// systemd's chase() does: OpenDir walks the path from the root one
// component at a time, each directory opened relative to its parent's
// descriptor without following a link (O_NOFOLLOW) and checked through
// that descriptor (fstat); a symbolic link on the way is followed only
// when the directory holding it passed the rule (in a sticky directory,
// only a link of the user's or root's, as the kernel's
// protected_symlinks). Every later operation (openat, mkdirat,
// renameat, unlinkat) is relative to the Dir's descriptor, so a link
// swapped after the check redirects nothing.
package safefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// ErrUntrusted: a cache directory or file another user could have
// written, or a symbolic link where none may be.
var ErrUntrusted = errors.New("not trusted")

// ErrNotDir: a path that must be a directory (the cache, or a directory
// on the way to it) is another kind of file.
var ErrNotDir = errors.New("not a directory")

// UntrustedError says which path was refused and why.
type UntrustedError struct {
	Path string
	Why  string
}

func (e *UntrustedError) Error() string {
	return fmt.Sprintf("%s: %v (%s)", e.Path, ErrUntrusted, e.Why)
}
func (e *UntrustedError) Unwrap() error { return ErrUntrusted }

// NotDirError names a path that must be a directory and is not: a
// regular file, a FIFO, a device.
type NotDirError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotDirError) Error() string {
	return fmt.Sprintf("%s: %v (%s)", e.Path, ErrNotDir, e.Kind())
}

// Kind words what the path is instead: "a named pipe", "a regular file".
func (e *NotDirError) Kind() string  { return KindOf(e.Mode) }
func (e *NotDirError) Unwrap() error { return ErrNotDir }

// KindOf words a file's type as elfobj's NotRegularError does (ls -l's
// manual): "a named pipe", "a regular file".
func KindOf(m fs.FileMode) string { return elfobj.KindOf(m) }

// check is the rule for one file or directory's stat: owned by the
// effective user or root, and not writable by group or others (sticky
// directories above the cache allowed: dir and sticky).
func check(path string, st *unix.Stat_t, stickyOK bool) error {
	uid := uint32(os.Geteuid())
	if st.Uid != uid && st.Uid != 0 {
		return &UntrustedError{path, fmt.Sprintf("owned by uid %d, not by uid %d or root", st.Uid, uid)}
	}
	if st.Mode&0o022 != 0 && !(stickyOK && st.Mode&unix.S_ISVTX != 0) {
		return &UntrustedError{path, fmt.Sprintf("writable by others (mode %04o)", st.Mode&0o7777)}
	}
	return nil
}

// sticky reports whether st is a directory others may write in, but only
// remove their own entries from (/tmp).
func sticky(st *unix.Stat_t) bool { return st.Mode&0o022 != 0 && st.Mode&unix.S_ISVTX != 0 }

// Dir is a checked cache directory held open; its methods act on what it
// holds relative to its descriptor. Path is the name it was opened by,
// for messages.
type Dir struct {
	fd   int
	Path string
}

// maxLinks bounds the symbolic links one walk follows (the kernel's 40).
const maxLinks = 40

// OpenDir walks to the directory path (relative: to the working
// directory, itself walked from the root) and returns it held open,
// every directory on the way and the links followed checked as the
// package doc says; the last directory gets no sticky exception. With
// create, missing directories are made (mode perm), each relative to its
// parent's descriptor; without, a missing one is an error wrapping
// fs.ErrNotExist. A component that is no directory is a *NotDirError.
func OpenDir(path string, create bool, perm fs.FileMode) (*Dir, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	fd, err := openRoot()
	if err != nil {
		return nil, err
	}
	real := "/"
	todo := split(abs)
	links := 0
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		last := len(todo) == 0
		if name == ".." {
			next, err := unix.Openat(fd, "..", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			unix.Close(fd)
			if err != nil {
				return nil, &fs.PathError{Op: "open", Path: filepath.Dir(real), Err: err}
			}
			fd, real = next, filepath.Dir(real)
			continue
		}
		p := filepath.Join(real, name)
		var st unix.Stat_t
		err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.ENOENT && create {
			err = unix.Mkdirat(fd, name, uint32(perm.Perm()))
			if err == nil || err == unix.EEXIST {
				err = unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
			}
		}
		if err != nil {
			unix.Close(fd)
			return nil, &fs.PathError{Op: "stat", Path: p, Err: err}
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			target, err := followable(fd, name, p, &st, links)
			if err != nil {
				unix.Close(fd)
				return nil, err
			}
			links++
			if filepath.IsAbs(target) {
				unix.Close(fd)
				if fd, err = openRoot(); err != nil {
					return nil, err
				}
				real = "/"
			}
			todo = append(split(target), todo...)
			continue
		}
		next, err := openSub(fd, name, p, !last)
		unix.Close(fd)
		if err != nil {
			return nil, err
		}
		fd, real = next, p
	}
	return &Dir{fd: fd, Path: path}, nil
}

// openRoot opens "/", checked.
func openRoot() (int, error) {
	fd, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: "/", Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if err := check("/", &st, true); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// split is the components of a path.
func split(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

// followable returns the target of the link name (at p) in the checked
// directory dirfd, when it may be followed: nobody but the user and root
// can have put it there (the directory passed the rule; in a sticky
// one, the link must be the user's or root's).
func followable(dirfd int, name, p string, st *unix.Stat_t, links int) (string, error) {
	if links >= maxLinks {
		return "", &fs.PathError{Op: "open", Path: p, Err: unix.ELOOP}
	}
	var dst unix.Stat_t
	if err := unix.Fstat(dirfd, &dst); err != nil {
		return "", err
	}
	if uid := uint32(os.Geteuid()); sticky(&dst) && st.Uid != uid && st.Uid != 0 {
		return "", &UntrustedError{p, fmt.Sprintf("a symbolic link of uid %d in a directory others write in", st.Uid)}
	}
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(dirfd, name, buf)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: p, Err: err}
	}
	return string(buf[:n]), nil
}

// openSub opens the directory name in the checked directory dirfd (at p)
// without following a link, and checks it through its descriptor.
func openSub(dirfd int, name, p string, stickyOK bool) (int, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == unix.ELOOP || err == unix.ENOTDIR {
		var st unix.Stat_t
		if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
			if st.Mode&unix.S_IFMT == unix.S_IFLNK {
				return -1, &UntrustedError{p, "a symbolic link"}
			}
			return -1, &NotDirError{Path: p, Mode: modeOf(&st)}
		}
	}
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, &fs.PathError{Op: "fstat", Path: p, Err: err}
	}
	if err := check(p, &st, stickyOK); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// modeOf is the fs.FileMode of a stat: type and permission bits.
func modeOf(st *unix.Stat_t) fs.FileMode {
	perm := fs.FileMode(st.Mode & 0o777)
	if st.Mode&unix.S_IFMT == unix.S_IFREG {
		return perm
	}
	return elfobj.ModeOf(st.Mode) | perm
}

// Close releases the directory.
func (d *Dir) Close() error { return unix.Close(d.fd) }

// join is the path of name in d, for messages.
func (d *Dir) join(name string) string { return filepath.Join(d.Path, name) }

// Sub returns the directory name in d held open, made (mode perm) when
// missing and create is set: no link, the rule, no sticky exception.
func (d *Dir) Sub(name string, create bool, perm fs.FileMode) (*Dir, error) {
	if create {
		if err := unix.Mkdirat(d.fd, name, uint32(perm.Perm())); err != nil && err != unix.EEXIST {
			return nil, &fs.PathError{Op: "mkdir", Path: d.join(name), Err: err}
		}
	}
	fd, err := openSub(d.fd, name, d.join(name), false)
	if err != nil {
		return nil, err
	}
	return &Dir{fd: fd, Path: d.join(name)}, nil
}

// Open opens the file name in d for reading: not through a link, regular
// (O_NONBLOCK until checked: a FIFO does not block), and passing the
// rule.
func (d *Dir) Open(name string) (*os.File, error) {
	return d.open(name, unix.O_RDONLY, 0)
}

// OpenLock opens (creating) the lock file name in d, as Open checks it.
func (d *Dir) OpenLock(name string) (*os.File, error) {
	return d.open(name, unix.O_RDWR|unix.O_CREAT, 0o644)
}

// Create creates the file name in d (read-write), which must not be there (O_EXCL,
// never through a link): an error wrapping fs.ErrExist when it is.
func (d *Dir) Create(name string, perm fs.FileMode) (*os.File, error) {
	return d.open(name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL, uint32(perm.Perm()))
}

func (d *Dir) open(name string, flags int, perm uint32) (*os.File, error) {
	p := d.join(name)
	var fd int
	var err error
	for {
		fd, err = unix.Openat(d.fd, name, flags|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, perm)
		if err != unix.EINTR {
			break
		}
	}
	if err == unix.ELOOP {
		return nil, &UntrustedError{p, "a symbolic link"}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	var st unix.Stat_t
	err = unix.Fstat(fd, &st)
	if err == nil && st.Mode&unix.S_IFMT != unix.S_IFREG {
		err = &elfobj.NotRegularError{Path: p, Mode: modeOf(&st)}
	}
	if err == nil {
		err = check(p, &st, false)
	}
	if err == nil {
		err = unix.SetNonblock(fd, false)
	}
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), p), nil
}

// tempSeq makes CreateTemp's names differ within a process.
var tempSeq atomic.Uint64

// CreateTemp creates a new file in d named prefix followed by digits
// (mode 0600, O_EXCL, never through a link), and returns it with its
// name in d.
func (d *Dir) CreateTemp(prefix, suffix string) (*os.File, string, error) {
	for try := 0; ; try++ {
		n := uint64(time.Now().UnixNano()) ^ uint64(os.Getpid())<<32 + tempSeq.Add(1)
		name := prefix + strconv.FormatUint(n%1e10, 10) + suffix
		f, err := d.Create(name, 0o600)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, name, err
	}
}

// Rename renames old to new, both in d (renameat).
func (d *Dir) Rename(old, new string) error {
	if err := unix.Renameat(d.fd, old, d.fd, new); err != nil {
		return &os.LinkError{Op: "rename", Old: d.join(old), New: d.join(new), Err: err}
	}
	return nil
}

// Remove removes the file name from d (unlinkat).
func (d *Dir) Remove(name string) error {
	if err := unix.Unlinkat(d.fd, name, 0); err != nil {
		return &fs.PathError{Op: "remove", Path: d.join(name), Err: err}
	}
	return nil
}

// RemoveDir removes the empty directory name from d.
func (d *Dir) RemoveDir(name string) error {
	if err := unix.Unlinkat(d.fd, name, unix.AT_REMOVEDIR); err != nil {
		return &fs.PathError{Op: "rmdir", Path: d.join(name), Err: err}
	}
	return nil
}

// Stat is what d holds at name, not following a link.
type Stat struct {
	Name    string
	Mode    fs.FileMode
	Size    int64
	ModTime time.Time
	Uid     uint32
}

// Lstat is the file name in d, nil when there is none, an error when it
// is there and not a regular file passing the rule (a link included).
func (d *Dir) Lstat(name string) (*Stat, error) {
	s, err := d.stat(name)
	if s == nil || err != nil {
		return nil, err
	}
	p := d.join(name)
	if s.Mode&fs.ModeSymlink != 0 {
		return nil, &UntrustedError{p, "a symbolic link"}
	}
	if !s.Mode.IsRegular() {
		return nil, &elfobj.NotRegularError{Path: p, Mode: s.Mode}
	}
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: p, Err: err}
	}
	return s, check(p, &st, false)
}

// stat is the file name in d as it is, nil when there is none.
func (d *Dir) stat(name string) (*Stat, error) {
	var st unix.Stat_t
	err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if err == unix.ENOENT {
		return nil, nil
	}
	if err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: d.join(name), Err: err}
	}
	return &Stat{
		Name: name, Mode: modeOf(&st), Size: st.Size, Uid: st.Uid,
		ModTime: time.Unix(st.Mtim.Unix()),
	}, nil
}

// List is what d holds, not following links; entries gone while listed
// are left out.
func (d *Dir) List() ([]Stat, error) {
	fd, err := unix.Openat(d.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: d.Path, Err: err}
	}
	fh := os.NewFile(uintptr(fd), d.Path)
	defer fh.Close()
	names, err := fh.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	var out []Stat
	for _, n := range names {
		if s, err := d.stat(n); s != nil && err == nil {
			out = append(out, *s)
		}
	}
	return out, nil
}

// ErrNoHome: the user's cache directory would be under a home that does
// not exist (HOME=/nonexistent, the home of system users): no cache is
// kept rather than one made outside any home.
var ErrNoHome = errors.New("no home directory")

// NoHomeError names the missing home.
type NoHomeError struct {
	Home string // "": $HOME is not set
	Err  error  // why it is no directory
}

func (e *NoHomeError) Error() string {
	switch {
	case e.Home == "":
		return "$HOME is not set"
	case errors.Is(e.Err, fs.ErrNotExist):
		return fmt.Sprintf("$HOME (%s) does not exist", e.Home)
	}
	return fmt.Sprintf("$HOME (%s) is not a directory", e.Home)
}
func (e *NoHomeError) Unwrap() error { return ErrNoHome }

// UserCacheDir is os.UserCacheDir ($XDG_CACHE_HOME, else $HOME/.cache)
// when $XDG_CACHE_HOME is set or $HOME is an existing directory; a
// *NoHomeError otherwise: the caches under it are then not made (nor
// used), as libdebuginfod, which creates only the last two levels,
// fails there too.
func UserCacheDir() (string, error) {
	if os.Getenv("XDG_CACHE_HOME") != "" {
		return os.UserCacheDir() // an error when relative
	}
	home := os.Getenv("HOME")
	if home == "" {
		return "", &NoHomeError{}
	}
	if st, err := os.Stat(home); err != nil || !st.IsDir() {
		return "", &NoHomeError{Home: home, Err: err}
	}
	return filepath.Join(home, ".cache"), nil
}
