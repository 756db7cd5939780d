package debuginfod

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// serveFunc is an httptest server on 127.0.0.1 running h.
func serveFunc(t *testing.T, h http.HandlerFunc) string {
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}

// trickle sends n bytes of b, one every gap, flushing each, or until the
// client goes.
func trickle(w http.ResponseWriter, r *http.Request, b []byte, gap time.Duration) {
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	for i := range b {
		if _, err := w.Write(b[i : i+1]); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(gap):
		}
	}
}

// TestDebuginfodTimeoutIsLowSpeed: DEBUGINFOD_TIMEOUT is curl's
// low-speed limit, as libdebuginfod sets it: a server sending a byte a
// second is abandoned after the timeout ("Timer expired"); it used to be
// waited for as long as a byte came every few seconds.
func TestDebuginfodTimeoutIsLowSpeed(t *testing.T) {
	elfBytes, id := smallELF(t)
	u := serveFunc(t, func(w http.ResponseWriter, r *http.Request) { trickle(w, r, elfBytes[:30], 200*time.Millisecond) })
	t.Setenv("DEBUGINFOD_TIMEOUT", "2")
	t.Setenv("DEBUGINFOD_CACHE_PATH", t.TempDir())
	d := New([]string{u})
	start := time.Now()
	_, _, err := d.Debuginfo(id)
	t.Logf("ended after %v: %v", time.Since(start).Round(time.Millisecond), err)
	if !errors.Is(err, ErrTimerExpired) || !strings.Contains(err.Error(), "DEBUGINFOD_TIMEOUT") {
		t.Errorf("a server trickling 5 bytes a second, DEBUGINFOD_TIMEOUT=2: %v; want the timer expired", err)
	}
	if files := cacheFiles(t, d.Cache); len(files) != 0 {
		t.Errorf("left in the cache: %q", files)
	}
}

// TestDebuginfodMaxTime: DEBUGINFOD_MAXTIME bounds the whole fetch of a
// server that keeps a fair pace forever.
func TestDebuginfodMaxTime(t *testing.T) {
	_, id := smallELF(t)
	chunk := make([]byte, 256<<10)
	copy(chunk, "\x7fELF") // an ELF's start: not refused at once
	u := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		// No length announced: one over the default size bound would be
		// refused at once.
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(100 * time.Millisecond)
		}
	})
	t.Setenv("DEBUGINFOD_MAXTIME", "2")
	t.Setenv("DEBUGINFOD_TIMEOUT", "2")
	t.Setenv("DEBUGINFOD_CACHE_PATH", t.TempDir())
	d := New([]string{u})
	done := make(chan error, 1)
	go func() { _, _, err := d.Debuginfo(id); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrTimerExpired) || !strings.Contains(err.Error(), "DEBUGINFOD_MAXTIME") {
			t.Errorf("DEBUGINFOD_MAXTIME=2: %v; want the timer expired", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("DEBUGINFOD_MAXTIME=2: still downloading after 20 s")
	}
	if files := cacheFiles(t, d.Cache); len(files) != 0 {
		t.Errorf("left in the cache: %q", files)
	}
}

// TestDebuginfodMaxSize: DEBUGINFOD_MAXSIZE is sent to the server and
// enforced on what it announces and on what it sends unannounced.
func TestDebuginfodMaxSize(t *testing.T) {
	elfBytes, id := smallELF(t)
	var asked string
	announced := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		asked = r.Header.Get("X-Debuginfod-Maxsize")
		w.Write(elfBytes)
	})
	chunked := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write(elfBytes[:100])
		w.(http.Flusher).Flush() // no Content-Length
		w.Write(elfBytes[100:])
	})
	t.Setenv("DEBUGINFOD_MAXSIZE", "1000")
	for _, u := range []string{announced, chunked} {
		t.Setenv("DEBUGINFOD_CACHE_PATH", t.TempDir())
		d := New([]string{u})
		_, _, err := d.Debuginfo(id)
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("a %d-byte file, DEBUGINFOD_MAXSIZE=1000: %v; want it refused", len(elfBytes), err)
		}
		if files := cacheFiles(t, d.Cache); len(files) != 0 {
			t.Errorf("left in the cache: %q", files)
		}
	}
	if asked != "1000" {
		t.Errorf("X-DEBUGINFOD-MAXSIZE sent: %q", asked)
	}
}

// TestDebuginfodGzipBomb: a gzip-encoded answer is decoded bounded: 256
// MB of zeros in 256 KB was written to the cache's temporary in full
// before the ELF check refused it. A fair gzip answer is still taken.
func TestDebuginfodGzipBomb(t *testing.T) {
	elfBytes, id := smallELF(t)
	gz := func(b []byte) []byte {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(b)
		w.Close()
		return z.Bytes()
	}
	bomb := gz(append([]byte("\x7fELF"), make([]byte, 256<<20)...)) // an ELF's start: not refused at once
	fair := gz(elfBytes)
	serve := func(b []byte) string {
		return serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(b)
		})
	}
	d := &Client{URLs: []string{serve(bomb)}, Cache: t.TempDir()}
	if _, _, err := d.Debuginfo(id); err == nil || !strings.Contains(err.Error(), "expands over") {
		t.Errorf("a gzip bomb: %v; want it refused as expanding too much", err)
	}
	d = &Client{URLs: []string{serve(fair)}, Cache: t.TempDir()}
	if p, _, err := d.Debuginfo(id); err != nil {
		t.Errorf("a gzip-encoded ELF: %v", err)
	} else if b, _ := os.ReadFile(p); !bytes.Equal(b, elfBytes) {
		t.Errorf("a gzip-encoded ELF cached as %d bytes, want %d", len(b), len(elfBytes))
	}
}

// TestDebuginfodHTMLSource: an HTML page served with status 200 (a
// portal's or proxy's error page) is not a source file: it was cached
// and read as one.
func TestDebuginfodHTMLSource(t *testing.T) {
	u := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<html><body>Please log in</body></html>"))
	})
	d := &Client{URLs: []string{u}, Cache: t.TempDir()}
	p, found, err := d.Fetch("ab12", KindSource, "/src/app.c")
	if err == nil || found || !strings.Contains(err.Error(), "web page") {
		t.Errorf("an HTML page as /source: %q %v %v; want it refused", p, found, err)
	}
	if files := cacheFiles(t, d.Cache); len(files) != 0 {
		t.Errorf("left in the cache: %q", files)
	}
}

// TestDebuginfodStaleTemporaries: the temporary a killed download left
// (debuginfo.NNN, 0600, untouched) is removed by the next fetch of the
// same file; a fresh one (a download in progress) and the cache's own
// files are kept.
func TestDebuginfodStaleTemporaries(t *testing.T) {
	elfBytes, id := smallELF(t)
	u := serveFunc(t, func(w http.ResponseWriter, r *http.Request) { w.Write(elfBytes) })
	d := &Client{URLs: []string{u}, Cache: t.TempDir()}
	dir := filepath.Join(d.Cache, id)
	os.MkdirAll(dir, 0o700)
	stale, fresh, other := filepath.Join(dir, "debuginfo.123456"), filepath.Join(dir, "debuginfo.654321"), filepath.Join(dir, "debuginfo.x")
	for _, p := range []string{stale, fresh, other} {
		os.WriteFile(p, []byte("partial"), 0o600)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(stale, old, old)
	os.Chtimes(other, old, old)
	if _, _, err := d.Debuginfo(id); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{stale: false, fresh: true, other: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: kept %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}

// TestDebuginfodInterrupted: a client's context ends a transfer at once,
// with the context's error, nothing cached.
func TestDebuginfodInterrupted(t *testing.T) {
	elfBytes, id := smallELF(t)
	u := serveFunc(t, func(w http.ResponseWriter, r *http.Request) { trickle(w, r, elfBytes, 50*time.Millisecond) })
	ctx, cancel := context.WithCancel(context.Background())
	d := (&Client{URLs: []string{u}, Cache: t.TempDir(), Timeout: time.Minute}).WithContext(ctx)
	time.AfterFunc(300*time.Millisecond, cancel)
	done := make(chan error, 1)
	go func() { _, _, err := d.Debuginfo(id); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still downloading 10 s after the cancel")
	}
	if files := cacheFiles(t, d.Cache); len(files) != 0 {
		t.Errorf("left in the cache: %q", files)
	}
}

// TestDebuginfodNoUnsolicitedLog: a server sending more than its
// Content-Length made net/http log "Unsolicited response received on
// idle HTTP channel" on stderr; every stderr line is dwprobe's.
func TestDebuginfodNoUnsolicitedLog(t *testing.T) {
	elfBytes, id := smallELF(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 4096)
			c.Read(buf)
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", len(elfBytes))
			c.Write(elfBytes)
			c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")) // unasked
			time.Sleep(time.Second)
			c.Close()
		}
	}()
	var logged bytes.Buffer
	log.SetOutput(&logged)
	defer log.SetOutput(os.Stderr)
	d := &Client{URLs: []string{"http://" + l.Addr().String()}, Cache: t.TempDir()}
	if _, _, err := d.Debuginfo(id); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // the transport's read loop logs after the answer
	if logged.Len() != 0 {
		t.Errorf("net/http logged: %q", logged.String())
	}
}
