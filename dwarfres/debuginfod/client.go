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
)

// ErrFetch: a debuginfod server gave no usable file (down, slow, an
// HTTP error, a file of another build or no ELF at all).
var ErrFetch = errors.New("debuginfod")

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
	// Timeout bounds connecting and each wait for data, as elfutils'
	// DEBUGINFOD_TIMEOUT does (not the whole transfer).
	Timeout time.Duration
	// Progress, when not nil, receives progress lines of large downloads.
	Progress io.Writer
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

// New is a client of the servers urls with the cache and the
// timeout of the environment: DEBUGINFOD_CACHE_PATH (CacheDir)
// and DEBUGINFOD_TIMEOUT (seconds, default 90).
func New(urls []string) *Client {
	d := &Client{URLs: urls, Cache: CacheDir(), Timeout: DefaultTimeout}
	if s, err := strconv.Atoi(strings.TrimSpace(os.Getenv("DEBUGINFOD_TIMEOUT"))); err == nil && s > 0 {
		d.Timeout = time.Duration(s) * time.Second
	}
	return d
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
	st, err := safefs.Lstat(dst)
	if err != nil {
		return "", nil, &Error{URL: "cache " + d.Cache, Err: err}
	}
	if st != nil && st.Size() > 0 {
		return dst, []string{dst}, nil // an empty file is elfutils' "not found" mark
	}
	var tried []string
	var first error
	for _, base := range d.URLs {
		u := fileURL(base, buildID, kind, src)
		tried = append(tried, u)
		err := d.fetch(u, buildID, kind, dst)
		if err == nil {
			return dst, tried, nil
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
// only when complete and verified; nothing else stays.
func (d *Client) fetch(u, buildID, kind, dst string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch := newIdleWatch(d.timeout(), cancel)
	defer watch.stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return &Error{URL: u, Err: err}
	}
	resp, err := d.client().Do(req)
	if err != nil {
		return &Error{URL: u, Err: watch.explain(unwrapURLError(err))}
	}
	defer resp.Body.Close()
	err = saveResponse(resp, &watchedReader{r: resp.Body, w: watch}, buildID, kind, dst, d.progress(u, resp.ContentLength))
	if err != nil {
		var de *Error
		if errors.As(err, &de) {
			de.URL, de.Err = u, watch.explain(de.Err)
			return de
		}
		return &Error{URL: u, Status: resp.StatusCode, Err: watch.explain(err)}
	}
	return nil
}

func (d *Client) timeout() time.Duration {
	if d.Timeout > 0 {
		return d.Timeout
	}
	return DefaultTimeout
}

// client connects within the timeout; the rest of the waits are the
// idle watch's.
func (d *Client) client() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Timeout: d.timeout()}).DialContext
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
