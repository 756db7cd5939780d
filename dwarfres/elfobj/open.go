package elfobj

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// NotRegularError reports a path that is not a regular file (a FIFO, a
// device, a directory, a socket): dwprobe reads only regular files, since
// opening a FIFO blocks until a writer comes and reading a device never
// ends. It wraps ErrNotELF.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: not a regular file (%s)", e.Path, KindOf(e.Mode))
}

func (e *NotRegularError) Unwrap() error { return ErrNotELF }

// KindOf names a file's type as ls -l's manual does: "a named pipe",
// "a regular file".
func KindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "type " + m.Type().String()
}

// OpenRegular opens path for reading if it is a regular file: dwprobe's
// one opener of its inputs. The open does not block (O_NONBLOCK: a FIFO
// opens at once instead of waiting for a writer), the type is checked on
// the opened descriptor (fstat, so the file cannot be swapped between a
// check and the open), and only then is the descriptor made blocking
// again. Errors are the open's (*fs.PathError) or a *NotRegularError.
func OpenRegular(path string) (*os.File, error) {
	return openRegular(path, 0)
}

// OpenRegularNoFollow is OpenRegular refusing a symbolic link at path
// itself (O_NOFOLLOW; ELOOP then): for files in a cache, where a link
// would lead the reader out of it.
func OpenRegularNoFollow(path string) (*os.File, error) {
	return openRegular(path, syscall.O_NOFOLLOW)
}

func openRegular(path string, flags int) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK|flags, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, &NotRegularError{Path: path, Mode: ModeOf(st.Mode)}
	}
	// Blocking again before os.NewFile looks at the flag: a regular
	// file is read with plain blocking reads.
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "fcntl", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// ModeOf is the fs.FileMode type bits of a stat mode.
func ModeOf(m uint32) fs.FileMode {
	switch m & syscall.S_IFMT {
	case syscall.S_IFIFO:
		return fs.ModeNamedPipe
	case syscall.S_IFDIR:
		return fs.ModeDir
	case syscall.S_IFSOCK:
		return fs.ModeSocket
	case syscall.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		return fs.ModeDevice
	case syscall.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}

// ReadRegular is os.ReadFile through OpenRegular.
func ReadRegular(path string) ([]byte, error) {
	fh, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return io.ReadAll(fh)
}
