package debuginfod

import (
	"bytes"
	"compress/gzip"
	"debug/elf"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
	"github.com/dwprobe/dwprobe/dwarfres/internal/safefs"
)

// saveResponse checks a server's answer and writes its body to t: a
// temporary file in t's build-id directory (as libdebuginfod does, so
// the rename stays on one file system), made and renamed relative to the
// directory's descriptor, committed only when the body is whole, within
// the size bound (maxSize) and, for an ELF kind, an ELF file from its
// first bytes on, of build-id buildID, that d.Verify accepts. Whatever
// fails, no file is left. progress, when not nil, is told the bytes
// received so far, and when the body is done.
func (d *Client) saveResponse(resp *http.Response, body io.Reader, buildID, kind string, t slot, progress func(int64, bool)) error {
	maxSize := d.maxSize()
	if err := checkResponse(resp, maxSize); err != nil {
		return err
	}
	body, length, err := decodedBody(resp, body)
	if err != nil {
		return err
	}
	idd, err := t.dir()
	if err != nil {
		return err
	}
	tmp, tmpName, err := idd.CreateTemp(t.name+".", "")
	if err != nil {
		return err
	}
	err = writeBody(tmp, body, length, maxSize, kind, t.claim, progress)
	if err == nil {
		err = tmp.Sync() // whole on disk before the rename makes it the cache's
	}
	if err == nil && kind != KindSource {
		err = checkELFBuildID(tmp, buildID)
	}
	if err == nil && kind != KindSource && d.Verify != nil {
		if verr := d.Verify(tmp); verr != nil {
			err = fmt.Errorf("%w, not cached as %s: %v", ErrCorrupt, filepath.Join(t.cd.Path, t.id, t.name), verr)
		}
	}
	if err == nil {
		err = tmp.Chmod(0o400) // read-only, as libdebuginfod leaves its files
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = t.commit(tmpName)
	}
	if err != nil {
		idd.Remove(tmpName)
	}
	return err
}

// maxSize is the size bound: MaxSize, else DefaultMaxSize.
func (d *Client) maxSize() int64 {
	if d.MaxSize > 0 {
		return d.MaxSize
	}
	return DefaultMaxSize
}

// sizeName names the bound a file went over.
func sizeName(maxSize int64) string {
	if maxSize == DefaultMaxSize && os.Getenv("DEBUGINFOD_MAXSIZE") == "" {
		return fmt.Sprintf("the default bound of %d bytes (DEBUGINFOD_MAXSIZE unset)", maxSize)
	}
	return fmt.Sprintf("DEBUGINFOD_MAXSIZE=%d", maxSize)
}

// checkResponse refuses an answer that is no file: an HTTP error, an
// HTML page (a proxy's or a portal's error page served with status 200,
// which would be cached as a source), or a file announced larger than
// maxSize.
func checkResponse(resp *http.Response, maxSize int64) error {
	if resp.StatusCode != http.StatusOK {
		return &Error{Status: resp.StatusCode, Err: fmt.Errorf("HTTP %s", httpStatus(resp))}
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/html" || mt == "application/xhtml+xml" {
		return fmt.Errorf("the server answered with a web page (%s), not a file", mt)
	}
	size := resp.ContentLength
	if n, err := strconv.ParseInt(resp.Header.Get("X-Debuginfod-Size"), 10, 64); err == nil {
		size = max(size, n) // the uncompressed size, when the body is compressed
	}
	if maxSize > 0 && size > maxSize {
		return fmt.Errorf("%d bytes, over %s: %w", size, sizeName(maxSize), ErrTooLarge)
	}
	return nil
}

// maxGzipRatio bounds how much a gzip-encoded answer may expand: debuginfo
// and sources compress 3 to 10 times; a bomb (1 MB expanding to 1 GB) is
// refused after maxGzipRatio times what was received, not after filling
// the disk.
const maxGzipRatio = 64

// decodedBody is the body of resp as the file it stands for: gunzipped,
// bounded, when the server compressed it; with its length, -1 when
// unknown.
func decodedBody(resp *http.Response, body io.Reader) (io.Reader, int64, error) {
	switch enc := strings.ToLower(resp.Header.Get("Content-Encoding")); enc {
	case "", "identity":
		return body, resp.ContentLength, nil
	case "gzip", "x-gzip":
		in := &countingReader{r: body}
		zr, err := gzip.NewReader(in)
		if err != nil {
			return nil, 0, fmt.Errorf("gzip answer: %w", err)
		}
		return &ratioReader{r: zr, in: in}, -1, nil
	default:
		return nil, 0, fmt.Errorf("answer encoded as %q, which was not asked for", enc)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// ratioReader reads r, decoded from in, refusing to give more than
// maxGzipRatio times what in read (and a first megabyte).
type ratioReader struct {
	r   io.Reader
	in  *countingReader
	out int64
}

func (z *ratioReader) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	z.out += int64(n)
	if z.out > z.in.n*maxGzipRatio+1<<20 {
		return 0, fmt.Errorf("gzip answer expands over %d times (%d bytes from %d)", maxGzipRatio, z.out, z.in.n)
	}
	return n, err
}

func httpStatus(resp *http.Response) string {
	if resp.Status != "" {
		return resp.Status
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
}

// writeBody copies body to w and checks it has the announced length (-1:
// none announced) and no more than maxSize bytes. An empty body is
// refused: libdebuginfod's cache takes an empty file for "the server has
// no such file". The first bytes are checked before anything more is
// written: an ELF kind must start with the ELF magic, a source must not
// be a web page (an error page served as the file). claim, when not nil,
// is called once they pass: an error from it ends the copy.
func writeBody(w io.Writer, body io.Reader, length, maxSize int64, kind string, claim func() error, progress func(int64, bool)) error {
	var n int64
	var head []byte
	buf := make([]byte, 256<<10)
	for {
		k, err := body.Read(buf)
		if k > 0 {
			if head != nil || n == 0 {
				head = append(head, buf[:min(k, headSize-len(head))]...)
				if len(head) >= headSize {
					if herr := checkHead(head, kind, true); herr != nil {
						return herr
					}
					head = nil
					if claim != nil {
						if err := claim(); err != nil {
							return err
						}
					}
				}
			}
			if _, werr := w.Write(buf[:k]); werr != nil {
				return werr
			}
			n += int64(k)
			if n > maxSize {
				return fmt.Errorf("over %s: %w", sizeName(maxSize), ErrTooLarge)
			}
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
	case head != nil:
		if err := checkHead(head, kind, false); err != nil {
			return err
		}
		if claim != nil {
			return claim()
		}
	}
	return nil
}

// headSize is how much of a body checkHead looks at.
const headSize = 512

// checkHead refuses a body by its first bytes (all of them when !more):
// no ELF magic for an ELF kind; a web page for a source.
func checkHead(head []byte, kind string, more bool) error {
	if kind != KindSource {
		if len(head) < 4 && more {
			return nil
		}
		if !bytes.HasPrefix(head, []byte(elf.ELFMAG)) {
			return fmt.Errorf("%w: the answer does not start with the ELF magic (%q)", elfobj.ErrNotELF, head[:min(len(head), 8)])
		}
		return nil
	}
	if isWebPage(head) {
		return fmt.Errorf("the server answered with a web page, not the source file: %w", ErrNotSource)
	}
	return nil
}

// isWebPage reports whether a body starts as an HTML page does
// ("<!DOCTYPE html", "<html", after white space and a byte-order mark).
func isWebPage(head []byte) bool {
	h := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	for _, p := range []string{"<!doctype html", "<html"} {
		if len(h) >= len(p) && strings.EqualFold(string(h[:len(p)]), p) {
			return true
		}
	}
	return false
}

// checkELFBuildID refuses a file that is no ELF, or whose GNU build-id is
// not want, reading it through fh.
func checkELFBuildID(fh *os.File, want string) (err error) {
	defer elfobj.Guard(&err, "the answer") // debug/elf panics on some hostile files
	f, err := elf.NewFile(fh)
	if err != nil {
		return fmt.Errorf("%w: %v", elfobj.ErrNotELF, err)
	}
	got := elfobj.BuildIDOf(f)
	if got != want {
		if got == "" {
			got = "none"
		}
		return fmt.Errorf("%w: the server sent a file of build-id %s, not %s", elfobj.ErrBuildIDMismatch, got, want)
	}
	return nil
}

// speedWatch cancels a transfer that brings less than LowSpeed bytes a
// second over a period of d, as the curl low-speed limit libdebuginfod
// sets from DEBUGINFOD_TIMEOUT (CURLOPT_LOW_SPEED_TIME, _LIMIT): a
// server trickling a byte a second is abandoned after d, one sending at
// a fair pace is not, however long the file.
type speedWatch struct {
	d      time.Duration
	mu     sync.Mutex
	n      int64 // bytes received in the current period
	fired  bool
	done   bool // stopped: a check running then does not re-arm
	t      *time.Timer
	cancel func()
}

func newSpeedWatch(d time.Duration, cancel func()) *speedWatch {
	w := &speedWatch{d: d, cancel: cancel}
	w.t = time.AfterFunc(d, w.check)
	return w
}

// check ends a period: a slow one cancels the transfer.
func (w *speedWatch) check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	if float64(w.n) < LowSpeed*w.d.Seconds() {
		w.fired = true
		w.cancel()
		return
	}
	w.n = 0
	w.t.Reset(w.d)
}

func (w *speedWatch) add(n int) {
	w.mu.Lock()
	w.n += int64(n)
	w.mu.Unlock()
}

func (w *speedWatch) stop() {
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
	w.t.Stop()
}

// expired reports whether the watch cut the transfer.
func (w *speedWatch) expired() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fired
}

// watchedReader counts what every read brings for the watch.
type watchedReader struct {
	r io.Reader
	w *speedWatch
}

func (r *watchedReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.w.add(n)
	return n, err
}

// removeStale removes from the build-id directory idd the temporaries
// of any of its files (NAME.NNN, as CreateTemp names them, still 0600)
// that nothing wrote to for longer than age: a download killed (SIGKILL)
// before it could remove its own. A download in progress writes at least
// every age (the speed watch ends it otherwise), so its temporary is left
// alone. It runs whenever the directory is opened for a query.
func removeStale(idd *safefs.Dir, age time.Duration) {
	ents, err := idd.List()
	if err != nil {
		return
	}
	for _, e := range ents {
		i := strings.LastIndexByte(e.Name, '.')
		if i <= 0 || i == len(e.Name)-1 || strings.Trim(e.Name[i+1:], "0123456789") != "" || !isCacheName(e.Name[:i]) {
			continue
		}
		if e.Mode.IsRegular() && e.Mode.Perm() == 0o600 && e.Uid == uint32(os.Geteuid()) && time.Since(e.ModTime) > age {
			idd.Remove(e.Name)
		}
	}
}

// isCacheName reports whether name is one a file of a build-id
// directory has (cacheName).
func isCacheName(name string) bool {
	return name == KindDebuginfo || name == KindExecutable || strings.HasPrefix(name, KindSource)
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
