package debuginfod

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/internal/safefs"
	"github.com/dwprobe/dwprobe/dwarfres/locate"
)

// ErrFetch: a debuginfod server gave no usable file (down, slow, an
// HTTP error, a file of another build or no ELF at all).
var ErrFetch = errors.New("debuginfod")

// ErrTimerExpired: a transfer was too slow (Timeout) or too long
// (MaxTime); elfutils says "Timer expired" (ETIME).
var ErrTimerExpired = errors.New("timer expired")

// ErrTooLarge: a file larger than MaxSize; elfutils' EFBIG.
var ErrTooLarge = errors.New("file too large")

// The kinds of file a debuginfod server serves by build-id.
const (
	KindDebuginfo  = "debuginfo"
	KindExecutable = "executable"
	KindSource     = "source"
)

// DefaultTimeout is elfutils' DEBUGINFOD_TIMEOUT default.
const DefaultTimeout = 90 * time.Second

// Client is a debuginfod client as elfutils' libdebuginfod: servers
// tried in order, files cached in its layout (so a cache filled by gdb,
// perf or debuginfod-find is reused, and the other way round). It is a
// locate.Fetcher of debuginfo by build-id.
type Client struct {
	URLs  []string // servers, in order
	Cache string   // the cache directory (CacheDir)
	// Timeout is elfutils' DEBUGINFOD_TIMEOUT, the curl low-speed limit
	// libdebuginfod sets: a transfer (connecting, waiting for the answer
	// included) bringing less than LowSpeed bytes a second for this long
	// is abandoned, "Timer expired". It does not bound a transfer that
	// keeps its pace (MaxTime does).
	Timeout time.Duration
	// MaxTime is DEBUGINFOD_MAXTIME: a fetch, every server asked, ends
	// after it; 0: no bound.
	MaxTime time.Duration
	// MaxSize is DEBUGINFOD_MAXSIZE: a file larger (as announced, or as
	// received) is refused, and servers are told
	// (X-DEBUGINFOD-MAXSIZE); 0: no bound.
	MaxSize int64
	// Progress, when not nil, receives progress lines of large downloads.
	Progress io.Writer

	ctx context.Context // WithContext's; nil: Background
}

// LowSpeed is the pace, in bytes a second, below which a transfer
// counts as stalled: libdebuginfod's CURLOPT_LOW_SPEED_LIMIT.
const LowSpeed = 100 << 10

// WithContext is a copy of d whose transfers end once ctx is done,
// leaving nothing in the cache; a fetch then returns ctx's error.
func (d *Client) WithContext(ctx context.Context) *Client {
	c := *d
	c.ctx = ctx
	return &c
}

func (d *Client) context() context.Context {
	if d.ctx == nil {
		return context.Background()
	}
	return d.ctx
}

// FromEnv is the client elfutils makes from the environment:
// DEBUGINFOD_URLS (space-separated), then as New. nil when
// DEBUGINFOD_URLS names no server.
func FromEnv() *Client {
	urls := strings.Fields(os.Getenv("DEBUGINFOD_URLS"))
	if len(urls) == 0 {
		return nil
	}
	return New(urls)
}

// New is a client of the servers urls with the cache and the limits of
// the environment: DEBUGINFOD_CACHE_PATH (CacheDir), DEBUGINFOD_TIMEOUT
// (seconds, default 90), DEBUGINFOD_MAXTIME (seconds) and
// DEBUGINFOD_MAXSIZE (bytes), read as elfutils reads them.
func New(urls []string) *Client {
	d := &Client{URLs: urls, Cache: CacheDir(), Timeout: DefaultTimeout}
	if s := envInt("DEBUGINFOD_TIMEOUT"); s > 0 {
		d.Timeout = time.Duration(s) * time.Second
	}
	if s := envInt("DEBUGINFOD_MAXTIME"); s > 0 {
		d.MaxTime = time.Duration(s) * time.Second
	}
	if n := envInt("DEBUGINFOD_MAXSIZE"); n > 0 {
		d.MaxSize = n
	}
	return d
}

// envInt is the number in environment variable name, 0 when unset or
// not a number.
func envInt(name string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSpace(os.Getenv(name)), 10, 64)
	return n
}

// CacheDir is libdebuginfod's cache: $DEBUGINFOD_CACHE_PATH,
// else $XDG_CACHE_HOME/debuginfod_client, else
// $HOME/.cache/debuginfod_client.
func CacheDir() string {
	if p := os.Getenv("DEBUGINFOD_CACHE_PATH"); p != "" {
		return p
	}
	if x := os.Getenv("XDG_CACHE_HOME"); x != "" {
		return filepath.Join(x, "debuginfod_client")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "debuginfod_client")
}

// CachePath is where libdebuginfod caches a file: CACHE/BUILDID/KIND, a
// source as CACHE/BUILDID/source followed by its path escaped ('/' as
// "##", '#' as "#_"), as debuginfod-client.c's path_escape.
func (d *Client) CachePath(buildID, kind, src string) string {
	name := kind
	if kind == KindSource {
		name += escapeSourcePath(src)
	}
	return filepath.Join(d.Cache, strings.ToLower(buildID), name)
}

func escapeSourcePath(p string) string {
	return strings.NewReplacer("/", "##", "#", "#_").Replace(p)
}

// Debuginfo fetches the debuginfo of buildID (locate.Fetcher): the
// cached path, or "" when no server has it, and the cache and the URLs
// asked. A server without the file is passed over; any other failure is
// the answer when no server has the file.
func (d *Client) Debuginfo(buildID string) (string, []string, error) {
	return d.fetchAll(buildID, KindDebuginfo, "")
}

// Fetch returns the cached path of a file by build-id (src is a source
// file's absolute path, for KindSource), fetched from the first server
// that has it when not cached yet. Found is false, with a nil error, when
// no server has it. Errors are *Error.
func (d *Client) Fetch(buildID, kind, src string) (path string, found bool, err error) {
	p, _, err := d.fetchAll(buildID, kind, src)
	return p, p != "", err
}

func (d *Client) fetchAll(buildID, kind, src string) (string, []string, error) {
	dst := d.CachePath(buildID, kind, src)
	if err := d.checkCache(buildID); err != nil {
		return "", nil, &Error{URL: "cache " + d.Cache, Err: err}
	}
	removeStale(dst, 2*d.timeout())
	st, err := safefs.Lstat(dst)
	if err != nil {
		return "", nil, &Error{URL: "cache " + d.Cache, Err: err}
	}
	if st != nil && st.Size() > 0 {
		return dst, []string{dst}, nil // an empty file is elfutils' "not found" mark
	}
	ctx, cancel := d.context(), context.CancelFunc(func() {})
	if d.MaxTime > 0 {
		ctx, cancel = context.WithTimeout(ctx, d.MaxTime)
	}
	defer cancel()
	var tried []string
	var first error
	for _, base := range d.URLs {
		if ctx.Err() != nil {
			break // MaxTime spent: the cut server's error says so
		}
		u := fileURL(base, buildID, kind, src)
		tried = append(tried, u)
		err := d.fetch(ctx, u, buildID, kind, dst)
		if err == nil {
			return dst, tried, nil
		}
		if cerr := d.context().Err(); cerr != nil {
			return "", tried, cerr
		}
		var de *Error
		if errors.As(err, &de) && de.Status == http.StatusNotFound {
			continue
		}
		if first == nil {
			first = err
		}
	}
	return "", tried, first
}

// fileURL is BASE/buildid/ID/KIND, and /PATH after source.
func fileURL(base, buildID, kind, src string) string {
	u := strings.TrimRight(base, "/") + "/buildid/" + strings.ToLower(buildID) + "/" + kind
	if kind == KindSource {
		u += (&url.URL{Path: src}).EscapedPath()
	}
	return u
}

// Error names the URL asked and what went wrong: an HTTP
// status, no answer within the timeout, or a file refused. It wraps
// ErrFetch and the cause.
type Error struct {
	URL    string
	Status int // the HTTP status; 0 when none was received
	Err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("debuginfod %s: %v", e.URL, e.Err)
}

func (e *Error) Unwrap() []error { return []error{ErrFetch, e.Err} }

// fetch downloads u into dst through a temporary file beside it, renamed
// only when complete and verified; nothing else stays. ctx bounds it
// (MaxTime, a signal).
func (d *Client) fetch(ctx context.Context, u, buildID, kind, dst string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watch := newSpeedWatch(d.timeout(), cancel)
	defer watch.stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return &Error{URL: u, Err: err}
	}
	// Compressed answers are decoded here, bounded (decodedBody), not by
	// net/http without a bound.
	req.Header.Set("Accept-Encoding", "gzip")
	if d.MaxSize > 0 {
		req.Header.Set("X-DEBUGINFOD-MAXSIZE", strconv.FormatInt(d.MaxSize, 10))
	}
	resp, err := d.client().Do(req)
	if err != nil {
		return &Error{URL: u, Err: d.explain(ctx, watch, unwrapURLError(err))}
	}
	defer resp.Body.Close()
	err = saveResponse(resp, &watchedReader{r: resp.Body, w: watch}, buildID, kind, dst, d.MaxSize, d.progress(u, resp.ContentLength))
	if err != nil {
		var de *Error
		if errors.As(err, &de) {
			de.URL, de.Err = u, d.explain(ctx, watch, de.Err)
			return de
		}
		return &Error{URL: u, Status: resp.StatusCode, Err: d.explain(ctx, watch, err)}
	}
	return nil
}

// explain names why a transfer was cut: the low-speed watch, MaxTime, or
// err as it is.
func (d *Client) explain(ctx context.Context, w *speedWatch, err error) error {
	switch {
	case w.expired():
		return fmt.Errorf("less than %d KB/s for %v (DEBUGINFOD_TIMEOUT): %w", LowSpeed>>10, w.d, ErrTimerExpired)
	case d.context().Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return d.maxTimeErr()
	}
	return err
}

func (d *Client) maxTimeErr() error {
	return fmt.Errorf("no file within %v (DEBUGINFOD_MAXTIME): %w", d.MaxTime, ErrTimerExpired)
}

func (d *Client) timeout() time.Duration {
	if d.Timeout > 0 {
		return d.Timeout
	}
	return DefaultTimeout
}

// client connects within the timeout; the rest of the waits are the
// speed watch's. One connection per transfer, closed after it: a server
// sending more than it announced cannot make net/http log "Unsolicited
// response received on idle HTTP channel" to stderr. Compression is
// asked for and decoded by fetch, bounded.
func (d *Client) client() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Timeout: d.timeout()}).DialContext
	tr.DisableKeepAlives = true
	tr.DisableCompression = true
	return &http.Client{Transport: tr}
}

// unwrapURLError drops net/http's *url.Error wrapping, whose text repeats
// the method and URL the Error already names.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// checkCache refuses a cache another user could have written into
// (safefs's rule): the cache directory, and the build-id's directory in
// it, which must not be a link (root would write where it points).
func (d *Client) checkCache(buildID string) error {
	if err := safefs.CheckDir(d.Cache); err != nil {
		return err
	}
	return safefs.CheckEntry(d.Cache, strings.ToLower(buildID))
}

// Holds reports whether path is a file of d's cache.
func (d *Client) Holds(path string) bool {
	inner, ok := locate.Inner(d.Cache, path)
	return ok && inner != "/."
}

// Evict removes path from d's cache (a file whose contents turned out
// corrupt when opened: kept, it would be the answer for good), and its
// build-id directory when that is left empty. It reports whether a file
// of the cache was removed.
func (d *Client) Evict(path string) bool {
	if !d.Holds(path) || os.Remove(path) != nil {
		return false
	}
	os.Remove(filepath.Dir(path))
	return true
}
