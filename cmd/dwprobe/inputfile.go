package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// openInput opens an input file the user named (a spec file, an --apply
// file; "-" is stdin) and returns the name to report it by, its reader
// and a function that closes it. Nothing in it waits beyond ctx: the open
// does not block (O_NONBLOCK: a FIFO with no writer opens at once, as
// open(2) documents), and a file that is not a regular one (a FIFO, a
// process substitution's pipe, a terminal) is read through streamReader,
// which waits for a FIFO's first writer and for each read only until ctx
// ends. A regular file is read with plain blocking reads. A directory is
// refused at the open, as reading it would be.
func openInput(ctx context.Context, path string) (name string, r io.Reader, done func(), err error) {
	if path == "-" {
		return "<stdin>", stdin, func() {}, nil
	}
	f, mode, err := openNonblock(path)
	if err != nil {
		return "", nil, nil, err
	}
	switch {
	case mode.IsRegular():
		if err := clearNonblock(f); err != nil {
			f.Close()
			return "", nil, nil, err
		}
		return path, f, func() { f.Close() }, nil
	case mode.IsDir():
		f.Close()
		return "", nil, nil, &fs.PathError{Op: "read", Path: path, Err: syscall.EISDIR}
	case mode&fs.ModeNamedPipe != 0:
		// Left non-blocking: os.File reads it through the runtime's
		// poller, which a deadline can wake.
		fr := newFIFOReader(ctx, f)
		return path, fr, func() { fr.cancel(); f.Close() }, nil
	}
	// A character device (a terminal through /dev/stdin, say): a
	// blocking read on a goroutine the context can abandon.
	if err := clearNonblock(f); err != nil {
		f.Close()
		return "", nil, nil, err
	}
	return path, ctxReader{ctx, f}, func() { f.Close() }, nil
}

// isStream reports whether path names something other than a regular
// file or a directory (a FIFO, a pipe, a terminal): what cannot be read
// twice, nor opened to look without taking a writer's data (opening a
// FIFO lets a waiting writer in, and closing it again leaves the writer
// with nobody to read). It only stats.
func isStream(path string) bool {
	if path == "-" {
		return true
	}
	st, err := os.Stat(path)
	return err == nil && !st.Mode().IsRegular() && !st.IsDir()
}

// openNonblock opens path read-only without blocking and returns its
// type from the opened descriptor (fstat: what is read is what was
// checked).
func openNonblock(path string) (*os.File, fs.FileMode, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, 0, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Mode(), nil
}

// clearNonblock makes f's reads blocking again.
func clearNonblock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	if serr != nil {
		return &fs.PathError{Op: "fcntl", Path: f.Name(), Err: serr}
	}
	return nil
}

// fifoReader reads a FIFO opened non-blocking, until ctx ends. Before
// its first writer comes, read(2) on such a FIFO says end of file at
// once, so the first Read waits for the FIFO to be readable (data, or a
// writer gone: Linux reports no hang-up before a writer has come, see
// pipe_poll); then reads wait in the runtime's poller. When ctx ends, a
// past deadline wakes whatever waits, and the error is ctx's.
type fifoReader struct {
	ctx    context.Context
	f      *os.File
	ready  bool
	cancel func() bool
}

func newFIFOReader(ctx context.Context, f *os.File) *fifoReader {
	r := &fifoReader{ctx: ctx, f: f}
	r.cancel = context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Unix(1, 0)) })
	return r
}

func (r *fifoReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	if !r.ready {
		if err := r.waitWriter(); err != nil {
			return 0, r.ctxErr(err)
		}
		r.ready = true
	}
	n, err := r.f.Read(p)
	if err != nil && err != io.EOF {
		err = r.ctxErr(err)
	}
	return n, err
}

// waitWriter returns once the FIFO has data or its writers have come and
// gone.
func (r *fifoReader) waitWriter() error {
	rc, err := r.f.SyscallConn()
	if err != nil {
		return err
	}
	var perr error
	err = rc.Read(func(fd uintptr) bool {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		if err == unix.EINTR {
			return false
		}
		if err != nil {
			perr = err
			return true
		}
		return n > 0
	})
	if err == nil {
		err = perr
	}
	return err
}

// ctxErr is ctx's error when it has ended (the deadline it set is how a
// wait learnt of it), else err.
func (r *fifoReader) ctxErr(err error) error {
	if cerr := r.ctx.Err(); cerr != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		return cerr
	}
	return err
}
