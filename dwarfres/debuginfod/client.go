package debuginfod

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
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

// ErrCorrupt: an ELF answer of the right build-id whose DWARF does not
// decode (Client.Verify): it is not cached.
var ErrCorrupt = errors.New("corrupt debuginfo")

// ErrNotSource: a source answer that is a web page (an error page served
// with status 200), not the file.
var ErrNotSource = errors.New("not a source file")

// The kinds of file a debuginfod server serves by build-id.
const (
	KindDebuginfo  = "debuginfo"
	KindExecutable = "executable"
	KindSource     = "source"
)

// DefaultTimeout is elfutils' DEBUGINFOD_TIMEOUT default.
const DefaultTimeout = 90 * time.Second

// DefaultMaxSize bounds a file when DEBUGINFOD_MAXSIZE is not set
// (elfutils has no bound then): 4 GiB, about 7 times the largest
// debuginfo file dwprobe is tested on (the Debian 6.1 amd64 vmlinux, 590
// MB), and above the vmlinux debuginfo of distribution kernels (around
// 1 GB). A server sending zeros forever stops there, not at a full disk.
const DefaultMaxSize = 4 << 30

// Client is a debuginfod client as elfutils' libdebuginfod: servers asked
// all at once, the first answer that starts well taken (fetchAll), files
// cached in its layout (so a cache filled by gdb, perf or debuginfod-find
// is reused, and the other way round). It is a locate.Fetcher of
// debuginfo by build-id.
type Client struct {
	URLs []string // servers (http://, https://, or file:// directories laid out as a server's URLs)
	// Cache is the cache directory (CacheDir); "" when there is none
	// (CacheErr says why), and nothing can be fetched.
	Cache    string
	CacheErr error
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
	// (X-DEBUGINFOD-MAXSIZE); 0: DefaultMaxSize, without telling.
	MaxSize int64
	// Verify, when set, checks a downloaded ELF file (debuginfo or
	// executable) before it is cached, reading it through f (its build-id
	// is checked already): a file whose DWARF does not decode is refused,
	// not cached to be every later query's answer.
	Verify func(f *os.File) error
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
	d := &Client{URLs: urls, Timeout: DefaultTimeout}
	d.Cache, d.CacheErr = CacheDir()
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
// $HOME/.cache/debuginfod_client when the home exists; with
// HOME=/nonexistent (a system user's) and neither variable, there is
// none (an error wrapping safefs.ErrNoHome), rather than a cache made at
// the file system's root.
func CacheDir() (string, error) {
	if p := os.Getenv("DEBUGINFOD_CACHE_PATH"); p != "" {
		return p, nil
	}
	c, err := safefs.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory: %w (set DEBUGINFOD_CACHE_PATH)", err)
	}
	return filepath.Join(c, "debuginfod_client"), nil
}

// CachePath is where libdebuginfod caches a file: CACHE/BUILDID/KIND, a
// source as CACHE/BUILDID/source followed by its path escaped ('/' as
// "##", '#' as "#_"), as debuginfod-client.c's path_escape.
func (d *Client) CachePath(buildID, kind, src string) string {
	return filepath.Join(d.Cache, strings.ToLower(buildID), cacheName(kind, src))
}

// cacheName is the name of a file in its build-id directory.
func cacheName(kind, src string) string {
	if kind == KindSource {
		return kind + escapeSourcePath(src)
	}
	return kind
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
// file's absolute path, for KindSource), fetched from the servers, all
// asked at once, when not cached yet. Found is false, with a nil error,
// when no server has it. Errors are *Error.
func (d *Client) Fetch(buildID, kind, src string) (path string, found bool, err error) {
	p, _, err := d.fetchAll(buildID, kind, src)
	return p, p != "", err
}

// fetchAll is Fetch and Debuginfo: the cached file, or the servers asked
// in rounds (round), with the URLs asked (passwords hidden).
func (d *Client) fetchAll(buildID, kind, src string) (string, []string, error) {
	if d.Cache == "" {
		err := d.CacheErr
		if err == nil {
			err = errors.New("no cache directory")
		}
		return "", nil, &Error{URL: "cache", Err: err}
	}
	id, name := strings.ToLower(buildID), cacheName(kind, src)
	dst := filepath.Join(d.Cache, id, name)
	cd, err := safefs.OpenDir(d.Cache, true, 0o700)
	if err != nil {
		return "", nil, &Error{URL: "cache " + d.Cache, Err: err}
	}
	defer cd.Close()
	if found, err := d.cached(cd, id, name); err != nil || found {
		if err != nil {
			return "", nil, &Error{URL: "cache " + d.Cache, Err: err}
		}
		return dst, []string{dst}, nil
	}
	ctx, cancel := d.context(), context.CancelFunc(func() {})
	if d.MaxTime > 0 {
		ctx, cancel = context.WithTimeout(ctx, d.MaxTime)
	}
	defer cancel()
	tried := make([]string, len(d.URLs))
	for i, base := range d.URLs {
		tried[i] = Redact(fileURL(base, buildID, kind, src))
	}
	errs := make([]error, len(d.URLs))
	ask := make([]int, len(d.URLs))
	for i := range ask {
		ask[i] = i
	}
	// Rounds: every server still to ask at once; when the one whose answer
	// was taken fails (a cut body, another build-id, DWARF that does not
	// decode), the others it cancelled are asked again.
	for len(ask) > 0 {
		won, owner, cancelled := d.round(ctx, cd, id, name, buildID, kind, src, ask, errs)
		if won {
			return dst, tried, nil
		}
		if cerr := d.context().Err(); cerr != nil {
			return "", tried, cerr
		}
		if ctx.Err() != nil || owner < 0 {
			break
		}
		ask = cancelled
	}
	for _, err := range errs {
		var de *Error
		if err != nil && !(errors.As(err, &de) && de.Status == http.StatusNotFound) {
			return "", tried, err // the first server's in DEBUGINFOD_URLS order
		}
	}
	return "", tried, nil
}

// round asks the servers ask (indexes in d.URLs) at once, each server's
// error in errs: won when one's answer was cached; else the server whose
// answer was taken and failed (-1: none was), and the servers its claim
// cancelled.
func (d *Client) round(ctx context.Context, cd *safefs.Dir, id, name, buildID, kind, src string, ask []int, errs []error) (won bool, owner int, cancelled []int) {
	t := &target{cd: cd, id: id, name: name, owner: -1, cancels: make([]context.CancelFunc, len(d.URLs)), done: make([]bool, len(d.URLs))}
	defer t.close()
	ctxs := make([]context.Context, len(d.URLs))
	for _, i := range ask {
		ctxs[i], t.cancels[i] = context.WithCancel(ctx)
		defer t.cancels[i]()
	}
	var wg sync.WaitGroup
	for _, i := range ask {
		u := fileURL(d.URLs[i], buildID, kind, src)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = d.fetch(ctxs[i], u, buildID, kind, t.slot(i))
			t.end(i)
		}()
	}
	wg.Wait()
	if t.won || t.owner < 0 {
		return t.won, -1, nil
	}
	for _, i := range t.cancelled {
		errs[i] = nil // not its failure
	}
	return false, t.owner, t.cancelled
}

// cached reports whether the build-id directory id of the cache cd
// holds the file name (not empty: an empty file is elfutils' "not found"
// mark), removing the temporaries killed downloads left there. A cached
// source that is a web page (an error page cached before answers were
// checked, or by another client) is removed, to be fetched again.
func (d *Client) cached(cd *safefs.Dir, id, name string) (bool, error) {
	idd, err := cd.Sub(id, false, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer idd.Close()
	removeStale(idd, 2*d.timeout())
	st, err := idd.Lstat(name)
	if st == nil || st.Size == 0 || err != nil {
		return false, err
	}
	if strings.HasPrefix(name, KindSource) && cachedWebPage(idd, name) {
		return false, idd.Remove(name)
	}
	return true, nil
}

// cachedWebPage reports whether the file name in idd starts as a web page.
func cachedWebPage(idd *safefs.Dir, name string) bool {
	fh, err := idd.Open(name)
	if err != nil {
		return false
	}
	defer fh.Close()
	head := make([]byte, headSize)
	n, _ := io.ReadFull(fh, head)
	return isWebPage(head[:n])
}

// target is where the servers asked at once put their answer: the file
// name in the build-id directory id of the cache cd, made when the first
// answer comes. As libdebuginfod does, the first server whose answer
// starts well (an HTTP 200 whose first bytes pass checkHead) takes it
// (claim) and the other transfers are cancelled at once, not downloaded
// in parallel to the end; its temporary is renamed into place (commit)
// only when whole and verified. A server whose answer was taken and then
// fails is the fetch's error.
type target struct {
	cd       *safefs.Dir
	id, name string
	cancels  []context.CancelFunc // of each server's transfer

	mu        sync.Mutex
	idd       *safefs.Dir
	owner     int // the server whose answer is taken; -1: none yet
	won       bool
	done      []bool // each server's transfer ended
	cancelled []int  // the servers whose transfers the claim cut
}

// end marks server i's transfer ended.
func (t *target) end(i int) {
	t.mu.Lock()
	t.done[i] = true
	t.mu.Unlock()
}

// slot is server i's view of t.
type slot struct {
	*target
	i int
}

func (t *target) slot(i int) slot { return slot{t, i} }

// errLost: another server's answer was taken first.
var errLost = errors.New("another server answered first")

// dir is the build-id directory, made and held open once.
func (t *target) dir() (*safefs.Dir, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.idd == nil {
		idd, err := t.cd.Sub(t.id, true, 0o700)
		if err != nil {
			return nil, err
		}
		t.idd = idd
	}
	return t.idd, nil
}

// claim takes the target for server s, whose answer started well,
// cancelling the other servers' transfers; errLost when another's was
// taken first.
func (s slot) claim() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.owner >= 0 && s.owner != s.i {
		return errLost
	}
	if s.owner < 0 {
		s.owner = s.i
		for j, cancel := range s.cancels {
			if j != s.i && cancel != nil && !s.done[j] {
				cancel()
				s.cancelled = append(s.cancelled, j)
			}
		}
	}
	return nil
}

// commit makes s's temporary tmp, whole and verified, the cached file.
func (s slot) commit(tmp string) error {
	if err := s.claim(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.idd.Rename(tmp, s.name); err != nil {
		return err
	}
	s.won = true
	return nil
}

// close releases the build-id directory, removed when a failed fetch
// left it empty.
func (t *target) close() {
	if t.idd == nil {
		return
	}
	t.idd.Close()
	if !t.won {
		t.cd.RemoveDir(t.id) // only when empty: nothing stays of a failed fetch
	}
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
	return fmt.Sprintf("debuginfod %s: %v", Redact(e.URL), e.Err)
}

// Redact is the URL u as it may be shown: without the password of a
// user:password@ (url.URL.Redacted), nor anything before an @ of a URL
// that does not parse.
func Redact(u string) string {
	if !strings.Contains(u, "@") {
		return u // nothing to hide: shown as given
	}
	if pu, err := url.Parse(u); err == nil && pu.User != nil {
		return pu.Redacted()
	}
	if i := strings.Index(u, "://"); i >= 0 {
		rest := u[i+3:]
		host := rest
		if j := strings.IndexAny(rest, "/?#"); j >= 0 {
			host = rest[:j]
		}
		if k := strings.LastIndex(host, "@"); k >= 0 {
			return u[:i+3] + "xxxxx@" + rest[k+1:]
		}
	}
	return u
}

func (e *Error) Unwrap() []error { return []error{ErrFetch, e.Err} }

// fetch downloads u into t through a temporary file in t's directory,
// committed only when complete and verified; nothing else stays. ctx
// bounds it (MaxTime, a signal, another server's answer taken).
func (d *Client) fetch(ctx context.Context, u, buildID, kind string, t slot) error {
	shown := Redact(u)
	if strings.HasPrefix(strings.ToLower(u), "file:") {
		return d.fetchFile(ctx, u, buildID, kind, t)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watch := newSpeedWatch(d.timeout(), cancel)
	defer watch.stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return &Error{URL: shown, Err: unwrapURLError(err)}
	}
	// Compressed answers are decoded here, bounded (decodedBody), not by
	// net/http without a bound.
	req.Header.Set("Accept-Encoding", "gzip")
	if d.MaxSize > 0 {
		req.Header.Set("X-DEBUGINFOD-MAXSIZE", strconv.FormatInt(d.MaxSize, 10))
	}
	resp, err := d.client().Do(req)
	if err != nil {
		return &Error{URL: shown, Err: d.explain(ctx, watch, unwrapURLError(err))}
	}
	defer resp.Body.Close()
	err = d.saveResponse(resp, &watchedReader{r: resp.Body, w: watch}, buildID, kind, t, d.progress(shown, resp.ContentLength))
	if err != nil {
		var de *Error
		if errors.As(err, &de) {
			de.URL, de.Err = shown, d.explain(ctx, watch, de.Err)
			return de
		}
		return &Error{URL: shown, Status: resp.StatusCode, Err: d.explain(ctx, watch, err)}
	}
	return nil
}

// fetchFile is fetch of a file:// URL, as libcurl serves it to
// libdebuginfod: the file at the URL's path (a directory laid out as a
// server's URLs: DIR/buildid/ID/debuginfo), a missing one as a 404. It
// is checked and cached as a server's answer.
func (d *Client) fetchFile(ctx context.Context, u, buildID, kind string, t slot) error {
	shown := Redact(u)
	pu, err := url.Parse(u)
	if err != nil || (pu.Host != "" && pu.Host != "localhost") {
		return &Error{URL: shown, Err: fmt.Errorf("a file URL names a local path (file:///DIR)")}
	}
	fh, err := elfobj.OpenRegular(pu.Path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return &Error{URL: shown, Status: http.StatusNotFound, Err: errors.New("no such file")}
	}
	if err != nil {
		return &Error{URL: shown, Err: err}
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return &Error{URL: shown, Err: err}
	}
	resp := &http.Response{StatusCode: http.StatusOK, ContentLength: st.Size(), Header: http.Header{}}
	if err := d.saveResponse(resp, &ctxReader{ctx: ctx, r: fh}, buildID, kind, t, d.progress(shown, st.Size())); err != nil {
		if ctx.Err() != nil && d.context().Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = d.maxTimeErr()
		}
		return &Error{URL: shown, Err: err}
	}
	return nil
}

// ctxReader reads r until ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
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

// Holds reports whether path is a file of d's cache (none when d has no
// cache).
func (d *Client) Holds(path string) bool {
	if d.Cache == "" {
		return false
	}
	inner, ok := locate.Inner(d.Cache, path)
	return ok && inner != "/."
}

// Evict removes path from d's cache (a file whose contents turned out
// corrupt when opened: kept, it would be the answer for good), and its
// build-id directory when that is left empty, relative to the cache's
// descriptor (safefs.OpenDir). It reports whether a file of the cache
// was removed.
func (d *Client) Evict(path string) bool {
	if !d.Holds(path) {
		return false
	}
	inner, _ := locate.Inner(d.Cache, path)
	id, name, ok := strings.Cut(strings.TrimPrefix(inner, "/"), "/")
	if !ok || id == "" || name == "" || strings.Contains(name, "/") || id == ".." || name == ".." {
		return false
	}
	cd, err := safefs.OpenDir(d.Cache, false, 0)
	if err != nil {
		return false
	}
	defer cd.Close()
	idd, err := cd.Sub(id, false, 0)
	if err != nil {
		return false
	}
	err = idd.Remove(name)
	idd.Close()
	if err != nil {
		return false
	}
	cd.RemoveDir(id)
	return true
}
