package debuginfod

import (
	"debug/elf"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
	"github.com/dwprobe/dwprobe/dwarfres/internal/safefs"
)

// saveResponse checks a server's answer and writes its body to dst: a
// temporary file in dst's directory (as libdebuginfod does, so the rename
// stays on one file system), renamed to dst only when the body is whole
// and, for an ELF kind, of build-id buildID. Whatever fails, no file is
// left. progress, when not nil, is told the bytes received so far, and
// when the body is done.
func saveResponse(resp *http.Response, body io.Reader, buildID, kind, dst string, progress func(int64, bool)) error {
	if resp.StatusCode != http.StatusOK {
		return &Error{Status: resp.StatusCode, Err: fmt.Errorf("HTTP %s", httpStatus(resp))}
	}
	idDir := filepath.Dir(dst)
	if err := safefs.MkdirAll(filepath.Dir(idDir), 0o700); err != nil {
		return err
	}
	if _, err := safefs.Mkdir(filepath.Dir(idDir), filepath.Base(idDir), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), filepath.Base(dst)+".*")
	if err != nil {
		return err
	}
	err = writeBody(tmp, body, resp.ContentLength, progress)
	if err == nil {
		err = tmp.Sync() // whole on disk before the rename makes it the cache's
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil && kind != KindSource {
		err = checkELFBuildID(tmp.Name(), buildID)
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o400) // read-only, as libdebuginfod leaves its files
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		os.Remove(tmp.Name())
		os.Remove(filepath.Dir(dst)) // when empty: nothing stays of a failed fetch
	}
	return err
}

func httpStatus(resp *http.Response) string {
	if resp.Status != "" {
		return resp.Status
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
}

// writeBody copies body to w and checks it has the announced length (-1:
// none announced). An empty body is refused: libdebuginfod's cache takes
// an empty file for "the server has no such file".
func writeBody(w io.Writer, body io.Reader, length int64, progress func(int64, bool)) error {
	var n int64
	buf := make([]byte, 256<<10)
	for {
		k, err := body.Read(buf)
		if k > 0 {
			if _, werr := w.Write(buf[:k]); werr != nil {
				return werr
			}
			n += int64(k)
			if progress != nil {
				progress(n, false)
			}
		}
		if err == io.EOF {
			if progress != nil {
				progress(n, true)
			}
			break
		}
		if err != nil {
			return fmt.Errorf("body cut after %d bytes: %w", n, err)
		}
	}
	switch {
	case length >= 0 && n != length:
		return fmt.Errorf("body of %d bytes, %d announced", n, length)
	case n == 0:
		return fmt.Errorf("empty body")
	}
	return nil
}

// checkELFBuildID refuses a file that is no ELF, or whose GNU build-id is
// not want.
func checkELFBuildID(path, want string) (err error) {
	defer elfobj.Guard(&err, path) // debug/elf panics on some hostile files
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %v", elfobj.ErrNotELF, err)
	}
	defer f.Close()
	got := elfobj.BuildIDOf(f)
	if got != want {
		if got == "" {
			got = "none"
		}
		return fmt.Errorf("%w: the server sent a file of build-id %s, not %s", elfobj.ErrBuildIDMismatch, got, want)
	}
	return nil
}

// idleWatch cancels a transfer when no data came for a while: elfutils'
// DEBUGINFOD_TIMEOUT bounds each wait, not the whole download.
type idleWatch struct {
	d     time.Duration
	mu    sync.Mutex
	fired bool
	t     *time.Timer
}

func newIdleWatch(d time.Duration, cancel func()) *idleWatch {
	w := &idleWatch{d: d}
	w.t = time.AfterFunc(d, func() {
		w.mu.Lock()
		w.fired = true
		w.mu.Unlock()
		cancel()
	})
	return w
}

func (w *idleWatch) poke() { w.t.Reset(w.d) }
func (w *idleWatch) stop() { w.t.Stop() }

// explain names a cancellation by the watch as the timeout it is.
func (w *idleWatch) explain(err error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fired {
		return fmt.Errorf("no data within %v: %w", w.d, os.ErrDeadlineExceeded)
	}
	return err
}

// watchedReader pokes the watch on every read that brings data.
type watchedReader struct {
	r io.Reader
	w *idleWatch
}

func (r *watchedReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.w.poke()
	}
	return n, err
}

// progressMin is the size from which downloads show progress.
const progressMin = 4 << 20

// progress returns the progress reporter of a download of size bytes (-1:
// unknown) from u, nil when there is nothing to show.
func (d *Client) progress(u string, size int64) func(int64, bool) {
	if d.Progress == nil || (size >= 0 && size < progressMin) {
		return nil
	}
	var last time.Time
	return func(n int64, done bool) {
		if size < 0 && n < progressMin {
			return // an unannounced size: shown once it is large
		}
		if !done && time.Since(last) < 200*time.Millisecond {
			return
		}
		last = time.Now()
		if size > 0 {
			fmt.Fprintf(d.Progress, "\rdebuginfod: downloading %s: %d/%d MB", u, n>>20, size>>20)
		} else {
			fmt.Fprintf(d.Progress, "\rdebuginfod: downloading %s: %d MB", u, n>>20)
		}
		if done {
			fmt.Fprintln(d.Progress)
		}
	}
}
