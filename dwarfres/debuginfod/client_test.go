package debuginfod

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"debug/elf"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
	"github.com/dwprobe/dwprobe/dwarfres/internal/safefs"
	"github.com/dwprobe/dwprobe/dwarfres/locate"
)

// smallELF is a small ELF with a GNU build-id (Debian's /bin/true), its
// bytes and build-id.
func smallELF(t testing.TB) ([]byte, string) {
	t.Helper()
	b, err := os.ReadFile("/bin/true")
	if err != nil {
		dwarftest.Skip(t, "no small ELF to serve: %v", err)
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	id := elfobj.BuildIDOf(f)
	if id == "" {
		dwarftest.Skip(t, "/bin/true has no build-id")
	}
	return b, id
}

// cacheFiles lists every file under dir, for "nothing cached" checks.
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestDebuginfodBadServers: a server that is down, slow, answers an HTTP
// error, garbage, a file of another build or a cut body gives one error
// line naming the URL and the cause, wrapping ErrFetch, and leaves
// nothing in the cache; a 404 passes on to the next server.
func TestDebuginfodBadServers(t *testing.T) {
	elfBytes, id := smallELF(t)
	other := append([]byte{}, elfBytes...)
	i := bytes.Index(other, mustHex(t, id))
	other[i] ^= 0xff // the same file with another build-id
	serve := func(h http.HandlerFunc) string {
		s := httptest.NewServer(h)
		t.Cleanup(s.Close)
		return s.URL
	}
	down := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		u := "http://" + l.Addr().String()
		l.Close()
		return u
	}()
	silent, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	body := func(b []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { w.Write(b) }
	}
	for _, c := range []struct {
		name, url, want string
	}{
		{"down", down, "connection refused"},
		{"slow", "http://" + silent.Addr().String(), "(DEBUGINFOD_TIMEOUT): timer expired"},
		{"HTTP error", serve(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusServiceUnavailable) }), "HTTP 503 Service Unavailable"},
		{"garbage", serve(body([]byte("not found, really"))), "not an ELF file"},
		{"web page", serve(body([]byte("<html>not found, really</html>"))), "web page (text/html)"},
		{"wrong file", serve(body(other)), "build-id mismatch: the server sent a file of build-id"},
		{"cut body", serve(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100000")
			w.Write(elfBytes[:5000])
		}), "body cut after 5000 bytes"},
		{"empty", serve(body(nil)), "empty body"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &Client{URLs: []string{c.url}, Cache: t.TempDir(), Timeout: time.Second}
			p, tried, err := find(d, locate.Wanted{Path: "/bin/app", BuildID: id})
			if err == nil || p != "" {
				t.Fatalf("got %q, %v", p, err)
			}
			msg := err.Error()
			wantURL := c.url + "/buildid/" + id + "/debuginfo"
			if !errors.Is(err, ErrFetch) || !strings.Contains(msg, c.want) || !strings.HasPrefix(msg, "/bin/app: debuginfod "+wantURL+": ") || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line naming /bin/app, %s and %q", msg, wantURL, c.want)
			}
			if len(tried) != 1 || tried[0] != wantURL {
				t.Errorf("tried %q", tried)
			}
			if files := cacheFiles(t, d.Cache); len(files) != 0 {
				t.Errorf("left in the cache: %q", files)
			}
		})
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDebuginfodServersAll: every server is asked at once, one without
// the file (404) passed over; the file lands at libdebuginfod's cache
// path, read-only, and the next ask is answered from the cache alone.
func TestDebuginfodServersAll(t *testing.T) {
	elfBytes, id := smallELF(t)
	var mu sync.Mutex
	var asked []string
	missing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, "missing "+r.URL.Path)
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer missing.Close()
	has := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, "has "+r.URL.Path)
		mu.Unlock()
		w.Write(elfBytes)
	}))
	defer has.Close()
	d := &Client{URLs: []string{missing.URL, has.URL}, Cache: t.TempDir()}
	p, tried, err := find(d, locate.Wanted{BuildID: id})
	if err != nil || p != filepath.Join(d.Cache, id, "debuginfo") || len(tried) != 2 {
		t.Fatalf("Find: %q %q %v", p, tried, err)
	}
	if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o400 {
		t.Errorf("cached file: %v %v", st, err)
	}
	if _, _, err := find(d, locate.Wanted{BuildID: id}); err != nil {
		t.Fatal(err)
	}
	// The one without the file may not have been asked before the one
	// with it answered (and its transfer was cancelled).
	want := "has /buildid/" + id + "/debuginfo"
	sort.Strings(asked)
	if len(asked) == 0 || asked[0] != want || len(asked) > 2 || len(asked) == 2 && asked[1] != "missing /buildid/"+id+"/debuginfo" {
		t.Errorf("asked %q, want %q (then the cache)", asked, want)
	}
	if files := cacheFiles(t, d.Cache); len(files) != 1 {
		t.Errorf("cache holds %q", files)
	}
}

// TestDebuginfodNotFound: when no server has the file, Find answers
// nothing and no error, the URLs tried listed for the not-found error.
func TestDebuginfodNotFound(t *testing.T) {
	s := httptest.NewServer(http.NotFoundHandler())
	defer s.Close()
	d := &Client{URLs: []string{s.URL}, Cache: t.TempDir()}
	p, tried, err := find(d, locate.Wanted{BuildID: "abcdef"})
	if p != "" || err != nil || len(tried) != 1 || tried[0] != s.URL+"/buildid/abcdef/debuginfo" {
		t.Fatalf("got %q %q %v", p, tried, err)
	}
}

// TestDebuginfodCachePath: libdebuginfod's names, checked against
// debuginfod-find's in the command's tests.
func TestDebuginfodCachePath(t *testing.T) {
	d := &Client{Cache: "/c"}
	for _, c := range []struct{ kind, src, want string }{
		{KindDebuginfo, "", "/c/ab12/debuginfo"},
		{KindExecutable, "", "/c/ab12/executable"},
		{KindSource, "/usr/src/a#b/x.c", "/c/ab12/source##usr##src##a#_b##x.c"},
	} {
		if got := d.CachePath("AB12", c.kind, c.src); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.kind, c.src, got, c.want)
		}
	}
	if got := fileURL("http://h:1/", "ab", KindSource, "/usr/src/a b.c"); got != "http://h:1/buildid/ab/source/usr/src/a%20b.c" {
		t.Errorf("source URL %s", got)
	}
}

// TestFromEnv: elfutils' variables.
func TestFromEnv(t *testing.T) {
	t.Setenv("DEBUGINFOD_URLS", "  http://a:1  http://b:2 ")
	t.Setenv("DEBUGINFOD_CACHE_PATH", "")
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	t.Setenv("DEBUGINFOD_TIMEOUT", "7")
	d := FromEnv()
	if d == nil || strings.Join(d.URLs, ",") != "http://a:1,http://b:2" || d.Cache != "/xdg/debuginfod_client" || d.Timeout != 7*time.Second {
		t.Fatalf("%+v", d)
	}
	t.Setenv("DEBUGINFOD_CACHE_PATH", "/cp")
	t.Setenv("DEBUGINFOD_TIMEOUT", "x")
	if d := FromEnv(); d.Cache != "/cp" || d.Timeout != DefaultTimeout {
		t.Fatalf("%+v", d)
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("DEBUGINFOD_CACHE_PATH", "")
	t.Setenv("HOME", "/h")
	home := t.TempDir()
	t.Setenv("HOME", home)
	if got, err := CacheDir(); got != home+"/.cache/debuginfod_client" || err != nil {
		t.Errorf("cache %s, %v", got, err)
	}
	t.Setenv("DEBUGINFOD_URLS", " ")
	if d := FromEnv(); d != nil {
		t.Errorf("no URLs: %+v", d)
	}
}

// FuzzDebuginfodResponse feeds raw HTTP responses (status line, headers,
// body) to the verifier: it errs or caches a whole file of the build-id
// asked, never panics, and never leaves a temporary file.
func FuzzDebuginfodResponse(f *testing.F) {
	elfBytes, id := smallELF(f)
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(elfBytes)) + "\r\n\r\n" + string(elfBytes)))
	f.Add([]byte("HTTP/1.1 200 OK\r\n\r\n\x7fELF\x02\x01\x01"))
	f.Add([]byte("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"))
	// Hostile but well formed: a whole ELF of another build-id (the note's
	// id changed), the right one cut short under a truthful length, an
	// HTML page served as 200, and the ELF gzip-encoded.
	if rawID, err := hex.DecodeString(id); err == nil {
		if i := bytes.Index(elfBytes, rawID); i >= 0 {
			other := bytes.Clone(elfBytes)
			other[i] ^= 0xff
			f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(other)) + "\r\n\r\n" + string(other)))
		}
	}
	cut := elfBytes[:len(elfBytes)/2]
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(cut)) + "\r\n\r\n" + string(cut)))
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 13\r\n\r\n<html></html>"))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(elfBytes)
	zw.Close()
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + strconv.Itoa(gz.Len()) + "\r\n\r\n" + gz.String()))
	f.Fuzz(func(t *testing.T, raw []byte) {
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), nil)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		dir := t.TempDir()
		dst := filepath.Join(dir, id, "debuginfo")
		cd, err := safefs.OpenDir(dir, false, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer cd.Close()
		tg := &target{cd: cd, id: id, name: "debuginfo", owner: -1, cancels: []context.CancelFunc{nil}}
		d := &Client{MaxSize: 1 << 20}
		err = d.saveResponse(resp, resp.Body, id, KindDebuginfo, tg.slot(0), nil)
		tg.close()
		files := cacheFiles(t, dir)
		switch {
		case err != nil && len(files) != 0:
			t.Fatalf("error %v, and left %q", err, files)
		case err == nil && (len(files) != 1 || files[0] != dst):
			t.Fatalf("no error, cache %q", files)
		case err == nil:
			fh, _ := os.Open(dst)
			defer fh.Close()
			if cerr := checkELFBuildID(fh, id); cerr != nil {
				t.Fatalf("cached a file the verifier refuses: %v", cerr)
			}
		}
	})
}

// TestDebuginfodProgress: a download of 4 MiB or more reports its
// progress (when a Progress writer is set) and ends the line; a small one
// shows nothing.
func TestDebuginfodProgress(t *testing.T) {
	big := bytes.Repeat([]byte("int x;\n"), 5<<20/7)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "small.c") {
			w.Write([]byte("int y;\n"))
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(big)))
		w.Write(big)
	}))
	defer s.Close()
	var out bytes.Buffer
	d := &Client{URLs: []string{s.URL}, Cache: t.TempDir(), Progress: &out}
	if _, found, err := d.Fetch("ab", KindSource, "/src/small.c"); err != nil || !found || out.Len() != 0 {
		t.Fatalf("small: %v %v, progress %q", found, err, out.String())
	}
	p, found, err := d.Fetch("ab", KindSource, "/src/big.c")
	if err != nil || !found {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Size() != int64(len(big)) {
		t.Errorf("cached %d bytes, want %d", st.Size(), len(big))
	}
	want := "debuginfod: downloading " + s.URL + "/buildid/ab/source/src/big.c: 4/4 MB\n"
	if !strings.HasPrefix(out.String(), "\r") || !strings.HasSuffix(out.String(), want) {
		t.Errorf("progress %q, want it to end %q", out.String(), want)
	}
}

// find asks d as locate asks its sources.
func find(d *Client, w locate.Wanted) (string, []string, error) {
	return locate.Fetched{Fetcher: d}.Find(w)
}
