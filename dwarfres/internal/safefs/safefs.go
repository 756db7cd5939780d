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
package safefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// ErrUntrusted: a cache directory or file another user could have
// written, or a symbolic link where none may be.
var ErrUntrusted = errors.New("not trusted")

// UntrustedError says which path was refused and why.
type UntrustedError struct {
	Path string
	Why  string
}

func (e *UntrustedError) Error() string {
	return fmt.Sprintf("%s: %v (%s)", e.Path, ErrUntrusted, e.Why)
}
func (e *UntrustedError) Unwrap() error { return ErrUntrusted }

// check is the rule for one file or directory's stat: owned by the
// effective user or root, and not writable by group or others (sticky
// directories above the cache allowed: dir and sticky).
func check(path string, st *syscall.Stat_t, stickyOK bool) error {
	uid := uint32(os.Geteuid())
	if st.Uid != uid && st.Uid != 0 {
		return &UntrustedError{path, fmt.Sprintf("owned by uid %d, not by uid %d or root", st.Uid, uid)}
	}
	if st.Mode&0o022 != 0 && !(stickyOK && st.Mode&syscall.S_ISVTX != 0) {
		return &UntrustedError{path, fmt.Sprintf("writable by others (mode %04o)", st.Mode&0o7777)}
	}
	return nil
}

// CheckDir checks the directory dir and every directory above it, after
// resolving symbolic links (so that /var/run and the like work): each
// must pass the rule, dir itself without the sticky exception. A missing
// dir is checked from its closest existing parent, which it will be
// created in.
func CheckDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	first := true
	for p := abs; ; p = filepath.Dir(p) {
		real, err := filepath.EvalSymlinks(p)
		if (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) && p != "/" {
			first = false
			continue
		}
		if err != nil {
			return err
		}
		return checkChain(real, first)
	}
}

// checkChain checks real (a path without links) and its parents.
func checkChain(real string, last bool) error {
	for p := real; ; p = filepath.Dir(p) {
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			return &fs.PathError{Op: "lstat", Path: p, Err: err}
		}
		if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
			return &fs.PathError{Op: "mkdir", Path: p, Err: syscall.ENOTDIR}
		}
		if err := check(p, &st, !last); err != nil {
			return err
		}
		last = false
		if p == "/" || p == "." {
			return nil
		}
	}
}

// MkdirAll creates dir (mode perm) and checks it as CheckDir does.
func MkdirAll(dir string, perm fs.FileMode) error {
	if err := CheckDir(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, perm); err != nil {
		return err
	}
	return CheckDir(dir)
}

// Mkdir makes the directory name in dir, a directory already checked,
// or checks the one there: no link, the rule, no sticky exception.
func Mkdir(dir, name string, perm fs.FileMode) (string, error) {
	p := filepath.Join(dir, name)
	if err := os.Mkdir(p, perm); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return "", &fs.PathError{Op: "lstat", Path: p, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		return "", &UntrustedError{p, "not a directory (a symbolic link?)"}
	}
	return p, check(p, &st, false)
}

// Open opens the file at path, in a checked directory, for reading: not
// through a link, regular (O_NONBLOCK until checked: a FIFO does not
// block), and passing the rule.
func Open(path string) (*os.File, error) {
	return open(path, syscall.O_RDONLY, 0)
}

// OpenLock opens (creating) the lock file at path, in a checked
// directory, as Open checks it.
func OpenLock(path string) (*os.File, error) {
	return open(path, syscall.O_RDWR|syscall.O_CREAT, 0o644)
}

func open(path string, flags int, perm uint32) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, flags|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, perm)
		if err != syscall.EINTR {
			break
		}
	}
	if err == syscall.ELOOP {
		return nil, &UntrustedError{path, "a symbolic link"}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	err = syscall.Fstat(fd, &st)
	if err == nil && st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		err = &elfobj.NotRegularError{Path: path, Mode: elfobj.ModeOf(st.Mode)}
	}
	if err == nil {
		err = check(path, &st, false)
	}
	if err == nil {
		err = syscall.SetNonblock(fd, false)
	}
	if err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// Lstat is the file at path, nil when there is none, an error when it is
// there and not a regular file passing the rule (a link included).
func Lstat(path string) (fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &UntrustedError{path, "a symbolic link"}
	}
	if !fi.Mode().IsRegular() {
		return nil, &elfobj.NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return fi, check(path, fi.Sys().(*syscall.Stat_t), false)
}

// CheckEntry checks the directory name in dir, a directory already
// checked, when it is there: no link, the rule. A missing one is fine
// (Mkdir makes it).
func CheckEntry(dir, name string) error {
	p := filepath.Join(dir, name)
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err == syscall.ENOENT {
		return nil
	} else if err != nil {
		return &fs.PathError{Op: "lstat", Path: p, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		return &UntrustedError{p, "not a directory (a symbolic link?)"}
	}
	return check(p, &st, false)
}
