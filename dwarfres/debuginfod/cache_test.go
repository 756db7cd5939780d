package debuginfod

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
	"github.com/dwprobe/dwprobe/dwarfres/internal/safefs"
	"github.com/dwprobe/dwprobe/dwarfres/locate"
)

// TestDebuginfodLinkSwappedDuringDownload (issue 34, finding 1): the cache
// named through a symbolic link swapped after the cache was checked (here
// by the server, before it sends the body) does not redirect the write:
// the file lands in the directory checked, nothing in the one the link
// points to now. BUILDID/debuginfo used to be written through the
// swapped link.
func TestDebuginfodLinkSwappedDuringDownload(t *testing.T) {
	elfBytes, id := smallELF(t)
	base := t.TempDir()
	checked, other := filepath.Join(base, "checked"), filepath.Join(base, "other")
	os.Mkdir(checked, 0o700)
	os.Mkdir(other, 0o700)
	link := filepath.Join(base, "cache")
	if err := os.Symlink(checked, link); err != nil {
		t.Fatal(err)
	}
	u := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		os.Remove(link)
		if err := os.Symlink(other, link); err != nil {
			t.Error(err)
		}
		w.Write(elfBytes)
	})
	d := &Client{URLs: []string{u}, Cache: link}
	if _, _, err := d.Debuginfo(id); err != nil {
		t.Fatal(err)
	}
	if files := cacheFiles(t, other); len(files) != 0 {
		t.Errorf("written through the swapped link: %q", files)
	}
	if b, err := os.ReadFile(filepath.Join(checked, id, "debuginfo")); err != nil || !bytes.Equal(b, elfBytes) {
		t.Errorf("the cache checked: %v", err)
	}
}

// TestDebuginfodLinkInUntrustedDir (issue 34, finding 1): a link to a
// trusted cache, in a directory another user owns, is not followed: the
// path is not trusted, and nothing is fetched or written where it points.
func TestDebuginfodLinkInUntrustedDir(t *testing.T) {
	if os.Geteuid() != 0 {
		dwarftest.Skip(t, "needs root to give a directory to another user")
	}
	elfBytes, id := smallELF(t)
	u := serveFunc(t, func(w http.ResponseWriter, r *http.Request) { w.Write(elfBytes) })
	base := t.TempDir()
	trusted, evil := filepath.Join(base, "trusted"), filepath.Join(base, "evil")
	os.Mkdir(trusted, 0o700)
	os.Mkdir(evil, 0o755)
	os.Symlink(trusted, filepath.Join(evil, "cache"))
	if err := os.Chown(evil, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	d := &Client{URLs: []string{u}, Cache: filepath.Join(evil, "cache")}
	_, _, err := d.Debuginfo(id)
	if !errors.Is(err, safefs.ErrUntrusted) || !strings.Contains(err.Error(), evil+": not trusted") {
		t.Errorf("%v, want %s not trusted", err, evil)
	}
	if files := cacheFiles(t, trusted); len(files) != 0 {
		t.Errorf("written through the link: %q", files)
	}
}

// TestDebuginfodSilentServerNotWaited (issue 34, finding 6): servers are
// asked at once, as elfutils does: a first server that never answers does
// not hold the fetch for DEBUGINFOD_TIMEOUT; the second's file is taken
// and the first's transfer cancelled. It used to wait for the first.
func TestDebuginfodSilentServerNotWaited(t *testing.T) {
	elfBytes, id := smallELF(t)
	cancelled := make(chan struct{})
	var asked atomic.Bool
	silent := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		asked.Store(true)
		<-r.Context().Done()
		close(cancelled)
	})
	good := serveFunc(t, func(w http.ResponseWriter, r *http.Request) { w.Write(elfBytes) })
	d := &Client{URLs: []string{silent, good}, Cache: t.TempDir(), Timeout: time.Hour}
	done := make(chan error, 1)
	go func() { _, _, err := d.Debuginfo(id); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("still waiting for the silent server after 30 s")
	}
	// On a loaded machine the good server can win before the silent one's
	// request was even sent: then there is no transfer to cancel.
	if asked.Load() {
		select {
		case <-cancelled:
		case <-time.After(30 * time.Second):
			t.Error("the silent server's transfer was not cancelled")
		}
	}
	if b, err := os.ReadFile(filepath.Join(d.Cache, id, "debuginfo")); err != nil || !bytes.Equal(b, elfBytes) {
		t.Errorf("cached: %v", err)
	}
}

// TestDebuginfodFirstAnswerTaken (issue 34, finding 6): as libdebuginfod,
// the first server whose answer starts well takes the fetch, and the
// other transfers are cancelled then, not downloaded to the end beside it
// (a vmlinux's debuginfo from every server at once): here the first
// server sends the start of its file and waits for the second's transfer
// to be cancelled before sending the rest.
func TestDebuginfodFirstAnswerTaken(t *testing.T) {
	elfBytes, id := smallELF(t)
	if len(elfBytes) < 2*headSize {
		t.Skip("/bin/true is too small")
	}
	secondAsked, secondGone := make(chan struct{}), make(chan struct{})
	waited := make(chan bool, 1)
	first := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		select { // both transfers under way
		case <-secondAsked:
		case <-time.After(30 * time.Second):
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(elfBytes)))
		w.Write(elfBytes[:headSize])
		w.(http.Flusher).Flush()
		select {
		case <-secondGone:
			waited <- false
		case <-time.After(30 * time.Second):
			waited <- true
		}
		w.Write(elfBytes[headSize:])
	})
	second := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		close(secondAsked)
		<-r.Context().Done()
		close(secondGone)
	})
	d := &Client{URLs: []string{first, second}, Cache: t.TempDir(), Timeout: time.Hour}
	if _, _, err := d.Debuginfo(id); err != nil {
		t.Fatal(err)
	}
	if <-waited {
		t.Error("the second server's transfer went on until the first answer was whole")
	}
}

// TestDebuginfodTakenAnswerFails: when the answer taken first turns out
// bad at its end (a file of another build-id), the servers it cancelled
// are asked again, and the good file is cached.
func TestDebuginfodTakenAnswerFails(t *testing.T) {
	elfBytes, id := smallELF(t)
	other := bytes.Clone(elfBytes)
	raw := mustHex(t, id)
	other[bytes.Index(other, raw)] ^= 0xff
	badDone := make(chan struct{})
	var goodAsked atomic.Int32
	bad := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write(other)
		w.(http.Flusher).Flush()
		close(badDone)
	})
	good := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		goodAsked.Add(1)
		select {
		case <-badDone:
		case <-r.Context().Done():
			return
		}
		w.Write(elfBytes)
	})
	d := &Client{URLs: []string{bad, good}, Cache: t.TempDir()}
	p, _, err := d.Debuginfo(id)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); !bytes.Equal(b, elfBytes) {
		t.Errorf("cached the wrong file")
	}
	t.Logf("the good server was asked %d times", goodAsked.Load())
}

// TestDebuginfodFirstErrorInOrder: when no server has a good file, the
// error is the first server's (in DEBUGINFOD_URLS order) that failed
// other than with a 404, whichever finished first.
func TestDebuginfodFirstErrorInOrder(t *testing.T) {
	_, id := smallELF(t)
	missing := serveFunc(t, http.NotFound)
	slowBad := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(200 * time.Millisecond)
		http.Error(w, "teapot", http.StatusTeapot)
	})
	fastBad := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	})
	d := &Client{URLs: []string{missing, slowBad, fastBad}, Cache: t.TempDir()}
	_, tried, err := d.Debuginfo(id)
	if err == nil || !strings.Contains(err.Error(), slowBad) || !strings.Contains(err.Error(), "418") || len(tried) != 3 {
		t.Errorf("%v (tried %q), want the 418 of %s", err, tried, slowBad)
	}
}

// TestDebuginfodFileURL (issue 34, finding 6): a file:// URL names a
// directory laid out as a server's URLs (DIR/buildid/ID/debuginfo), as
// elfutils (libcurl) serves it: the file is checked and cached as an
// answer; a missing one is "not found", not an error. elfutils'
// debuginfod-find reads the same directory alike.
func TestDebuginfodFileURL(t *testing.T) {
	elfBytes, id := smallELF(t)
	srv := t.TempDir()
	os.MkdirAll(filepath.Join(srv, "buildid", id), 0o755)
	os.WriteFile(filepath.Join(srv, "buildid", id, "debuginfo"), elfBytes, 0o644)
	d := &Client{URLs: []string{"file://" + srv}, Cache: t.TempDir()}
	p, _, err := d.Debuginfo(id)
	if err != nil || p != filepath.Join(d.Cache, id, "debuginfo") {
		t.Fatalf("%q, %v", p, err)
	}
	if b, _ := os.ReadFile(p); !bytes.Equal(b, elfBytes) {
		t.Errorf("cached %d bytes, want %d", len(b), len(elfBytes))
	}
	other := strings.Repeat("ab", 20)
	if p, _, err := d.Debuginfo(other); p != "" || err != nil {
		t.Errorf("missing: %q, %v; want not found", p, err)
	}
	if find, err := exec.LookPath("debuginfod-find"); err == nil {
		cmd := exec.Command(find, "debuginfo", id)
		cmd.Env = append(os.Environ(), "DEBUGINFOD_URLS=file://"+srv, "DEBUGINFOD_CACHE_PATH="+t.TempDir())
		out, err := cmd.Output()
		if b, _ := os.ReadFile(strings.TrimSpace(string(out))); err != nil || !bytes.Equal(b, elfBytes) {
			t.Errorf("debuginfod-find reads the directory otherwise: %q, %v", out, err)
		}
	}
}

// endless serves an ELF's first bytes (or none, with magic false) and
// zeros until the client goes or limit bytes were sent, announcing
// length (when not 0); sent counts what it wrote.
func endless(t *testing.T, magic bool, length, limit int64, sent *atomic.Int64, done chan<- struct{}) string {
	return serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		defer close(done)
		if length > 0 {
			w.Header().Set("Content-Length", strconv.FormatInt(length, 10))
		}
		chunk := make([]byte, 1<<20)
		if magic {
			copy(chunk, "\x7fELF\x02\x01\x01")
		}
		for sent.Load() < limit {
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
			chunk = make([]byte, 1<<20)
		}
	})
}

// TestDebuginfodMagicAtStart (issue 34, finding 6): a body that does not
// start with the ELF magic is refused at once, after its first bytes;
// an endless body of zeros was written to the cache at disk speed and
// checked at its end.
func TestDebuginfodMagicAtStart(t *testing.T) {
	_, id := smallELF(t)
	var sent atomic.Int64
	done := make(chan struct{})
	const limit = 512 << 20
	d := &Client{URLs: []string{endless(t, false, 0, limit, &sent, done)}, Cache: t.TempDir()}
	_, _, err := d.Debuginfo(id)
	<-done
	if !errors.Is(err, elfobj.ErrNotELF) || !strings.Contains(err.Error(), "ELF magic") {
		t.Errorf("%v; want the ELF magic missing", err)
	}
	if n := sent.Load(); n >= limit {
		t.Errorf("the server sent all of its %d bytes: read to the end", n)
	}
	if files := cacheFiles(t, d.Cache); len(files) != 0 {
		t.Errorf("left in the cache: %q", files)
	}
}

// TestDebuginfodDefaultMaxSize (issue 34, finding 6): without
// DEBUGINFOD_MAXSIZE a file is still bounded (DefaultMaxSize): one
// announced larger is refused before its body, the error saying which
// bound; servers are not told a bound nobody set.
func TestDebuginfodDefaultMaxSize(t *testing.T) {
	_, id := smallELF(t)
	t.Setenv("DEBUGINFOD_MAXSIZE", "")
	var sent atomic.Int64
	done := make(chan struct{})
	const limit = 64 << 20
	d := &Client{URLs: []string{endless(t, true, DefaultMaxSize+1, limit, &sent, done)}, Cache: t.TempDir()}
	_, _, err := d.Debuginfo(id)
	<-done
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "default bound") {
		t.Errorf("%v; want the default bound", err)
	}
	if files := cacheFiles(t, d.Cache); len(files) != 0 {
		t.Errorf("left in the cache: %q", files)
	}
	if (&Client{}).maxSize() != DefaultMaxSize || (&Client{MaxSize: 5}).maxSize() != 5 {
		t.Error("maxSize")
	}
}

// TestDebuginfodNoPasswordInMessages (issue 34, finding 6): a password in
// a server's URL (user:password@) is in no error message nor list of
// places tried.
func TestDebuginfodNoPasswordInMessages(t *testing.T) {
	_, id := smallELF(t)
	bad := serveFunc(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusInternalServerError) })
	withPass := func(u string) string { return strings.Replace(u, "://", "://alice:s3cr3t@", 1) }
	for _, u := range []string{withPass(bad), "http://alice:s3cr3t@127.0.0.1:1", "http://alice:s3cr3t@[::1", "file://alice:s3cr3t@host/x"} {
		d := &Client{URLs: []string{u}, Cache: t.TempDir(), Timeout: 5 * time.Second}
		_, tried, err := d.Debuginfo(id)
		_, _, ferr := locate.Fetched{Fetcher: d}.Find(locate.Wanted{BuildID: id, Path: "/bin/x"})
		all := strings.Join(tried, " ") + " " + errString(err) + " " + errString(ferr)
		if strings.Contains(all, "s3cr3t") || err == nil {
			t.Errorf("%s: %q", u, all)
		}
	}
	if got := Redact("https://u:p@h/x"); got != "https://u:xxxxx@h/x" {
		t.Errorf("Redact: %s", got)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestDebuginfodHTMLSourceSniffed (issue 34, finding 3): a source answer
// that is a web page by its first bytes (served as text/plain or without a
// type) is not cached as the source.
func TestDebuginfodHTMLSourceSniffed(t *testing.T) {
	for _, page := range []string{"<!DOCTYPE html>\n<html><body>Sign in</body></html>\n", "\ufeff  <HTML><head></head></html>"} {
		u := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte(page))
		})
		d := &Client{URLs: []string{u}, Cache: t.TempDir()}
		p, found, err := d.Fetch("ab", KindSource, "/src/work.c")
		if found || !errors.Is(err, ErrNotSource) {
			t.Errorf("%q: %q %v %v; want refused, not a source", page, p, found, err)
		}
		if files := cacheFiles(t, d.Cache); len(files) != 0 {
			t.Errorf("left in the cache: %q", files)
		}
	}
}

// TestDebuginfodHTMLSourceCachedRefetched (issue 34, finding 3): a web
// page already cached as a source (by an older dwprobe, or another client)
// is removed and the source fetched again; it used to be the answer for
// good ("source file is shorter than expected").
func TestDebuginfodHTMLSourceCachedRefetched(t *testing.T) {
	src := "int work(void) { return 1; }\n"
	u := serveFunc(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(src)) })
	d := &Client{URLs: []string{u}, Cache: t.TempDir()}
	cached := d.CachePath("ab", KindSource, "/src/work.c")
	os.MkdirAll(filepath.Dir(cached), 0o700)
	os.WriteFile(cached, []byte("<!DOCTYPE html><html><body>Sign in</body></html>"), 0o400)
	p, found, err := d.Fetch("ab", KindSource, "/src/work.c")
	if err != nil || !found || p != cached {
		t.Fatalf("%q %v %v", p, found, err)
	}
	if b, _ := os.ReadFile(p); string(b) != src {
		t.Errorf("cached %q, want the source", b)
	}
}

// TestDebuginfodNoHome (issue 34, finding 7): with HOME=/nonexistent and
// no DEBUGINFOD_CACHE_PATH or XDG_CACHE_HOME, there is no cache, with a
// reason, and no directory is made; libdebuginfod fails there too.
func TestDebuginfodNoHome(t *testing.T) {
	home := filepath.Join(t.TempDir(), "nonexistent")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("DEBUGINFOD_CACHE_PATH", "")
	d := New([]string{"http://127.0.0.1:1"})
	_, _, err := d.Debuginfo(strings.Repeat("ab", 20))
	if !errors.Is(err, safefs.ErrNoHome) || !strings.Contains(err.Error(), home) {
		t.Errorf("%v; want no home", err)
	}
	if _, err := os.Lstat(home); err == nil {
		t.Errorf("%s created", home)
	}
}

// TestDebuginfodStaleTempsOfAnyKind (issue 34, finding 7): opening a
// build-id directory for any of its files removes the stale temporaries
// of all of them (a killed download of a source, asked for debuginfo).
func TestDebuginfodStaleTempsOfAnyKind(t *testing.T) {
	elfBytes, id := smallELF(t)
	cache := t.TempDir()
	os.MkdirAll(filepath.Join(cache, id), 0o700)
	os.WriteFile(filepath.Join(cache, id, "debuginfo"), elfBytes, 0o400)
	stale := filepath.Join(cache, id, "source##src##work.c.12345")
	os.WriteFile(stale, []byte("int"), 0o600)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(stale, old, old)
	d := &Client{URLs: []string{"http://127.0.0.1:1"}, Cache: cache, Timeout: time.Second}
	if _, _, err := d.Debuginfo(id); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(stale); err == nil {
		t.Error("stale temporary of a source kept")
	}
}
