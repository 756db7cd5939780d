package main

import (
	"bytes"
	"encoding/binary"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/debuginfod"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest/debuginfodtest"
)

// TestMain keeps the host's debuginfod servers out of every test (a
// stripped fixture would be fetched from them); a test that wants a
// server sets DEBUGINFOD_URLS itself.
func TestMain(m *testing.M) {
	os.Unsetenv("DEBUGINFOD_URLS")
	os.Exit(runWithIndexDir(m))
}

// debuginfodQueries add a lazy pattern, which reads the source, to
// sepQueries.
var debuginfodQueries = append(append([][]string{}, sepQueries...), []string{"-D", "main;util_checksum(*"})

// hiddenSourceApp builds the app fixture's sources in dir/src (gcc -O2,
// DWARF 5) and returns the whole binary, the binary with its debug
// sections stripped (build-id kept, no debuglink) and its debuginfo in
// dir/srv (which the server scans).
func hiddenSourceApp(t *testing.T, dir string) (whole, stripped, debug string) {
	t.Helper()
	gcc := dwarftest.NeedTool(t, "gcc")
	objcopy := dwarftest.NeedTool(t, "objcopy")
	src := filepath.Join(dir, "src")
	for _, f := range []string{"app_main.c", "app_util.c", "app_util2.c", "app.h"} {
		dwarftest.PlaceFile(t, filepath.Join("../../testdata/fixtures", f), filepath.Join(src, f))
	}
	whole = filepath.Join(dir, "whole", "app") // the same name, for the same event names
	stripped = filepath.Join(dir, "srv", "app")
	debug = filepath.Join(dir, "srv", "app.debug")
	os.MkdirAll(filepath.Dir(debug), 0o755)
	os.MkdirAll(filepath.Dir(whole), 0o755)
	for _, c := range [][]string{
		{gcc, "-g", "-gdwarf-5", "-O2", "-fno-omit-frame-pointer", "-Wl,--build-id", "-o", whole, "app_main.c", "app_util.c", "app_util2.c"},
		{objcopy, "--only-keep-debug", whole, debug},
		{objcopy, "--strip-debug", whole, stripped},
	} {
		cmd := exec.Command(c[0], c[1:]...)
		cmd.Dir = src
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, out)
		}
	}
	return whole, stripped, debug
}

// answers runs queries on -x path, path replaced by APP in the answers.
func answers(t *testing.T, queries [][]string, path string, args ...string) []string {
	t.Helper()
	return queryAnswers(t, queries, path, append([]string{"-x", path}, args...)...)
}

// queryAnswers runs every query after args, path replaced by APP in the
// answers.
func queryAnswers(t *testing.T, queries [][]string, path string, args ...string) []string {
	t.Helper()
	var out []string
	for _, q := range queries {
		stdout, stderr, err := dw(append(append([]string{}, args...), q...)...)
		if err != nil {
			t.Fatalf("%v %v: %v\n%s", args, q, err, stderr)
		}
		out = append(out, strings.ReplaceAll(stdout, path, "APP"))
	}
	return out
}

// noLocalDebuginfo keeps the host's debuginfo places and caches out.
func noLocalDebuginfo(t *testing.T) {
	t.Setenv("PERF_BUILDID_DIR", t.TempDir())
	t.Setenv("DWPROBE_DEBUGINFO_PATH", "")
	t.Setenv("DEBUGINFOD_URLS", "")
	t.Setenv("DEBUGINFOD_CACHE_PATH", t.TempDir())
}

// TestDebuginfodServer: Debian's debuginfod serves a program's
// debuginfo and its sources, which only the server can see (a mount in
// its own namespace): -D with arguments, a lazy pattern, -L without -s
// and -V on the stripped program give the answers of the program with
// its DWARF built in and its sources in place, through
// $DEBUGINFOD_URLS and through --debuginfod=URLS alike; the cache is
// libdebuginfod's, reused by debuginfod-find and the other way round; a
// program the server does not have names its URL among the places tried.
func TestDebuginfodServer(t *testing.T) {
	dir := t.TempDir()
	whole, app, _ := hiddenSourceApp(t, dir)
	want := answers(t, debuginfodQueries, whole)

	hidden := filepath.Join(dir, "hidden")
	if err := os.Rename(filepath.Join(dir, "src"), hidden); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	srv := debuginfodtest.Start(t, debuginfodtest.Options{
		Dirs:  []string{filepath.Join(dir, "srv")},
		Binds: [][2]string{{hidden, filepath.Join(dir, "src")}},
	})
	noLocalDebuginfo(t)

	t.Run("DEBUGINFOD_URLS", func(t *testing.T) {
		t.Setenv("DEBUGINFOD_CACHE_PATH", t.TempDir())
		t.Setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1 "+srv.URL) // the first one down, passed over
		compareAnswers(t, debuginfodQueries, want, answers(t, debuginfodQueries, app))
	})
	t.Run("--debuginfod=URLS", func(t *testing.T) {
		t.Setenv("DEBUGINFOD_CACHE_PATH", t.TempDir())
		compareAnswers(t, debuginfodQueries, want, answers(t, debuginfodQueries, app, "--debuginfod="+srv.URL))
	})
	t.Run("not on the server", func(t *testing.T) {
		t.Setenv("DEBUGINFOD_CACHE_PATH", t.TempDir())
		t.Setenv("DEBUGINFOD_URLS", srv.URL)
		nodbg := fixture(t, "app_nodbg")
		_, _, err := dw("-x", nodbg, "-V", "work")
		if err == nil || exitCode(err) != exitInput || !strings.Contains(err.Error(), ", "+srv.URL+"/buildid/") {
			t.Errorf("%v (exit %d): want exit %d, the server's URL among the places tried", err, exitCode(err), exitInput)
		}
	})
	t.Run("cache shared with debuginfod-find", func(t *testing.T) {
		find := dwarftest.NeedTool(t, "debuginfod-find")
		f, err := dwarfres.OpenAny(app)
		if err != nil {
			t.Fatal(err)
		}
		id := f.BuildID()
		f.Close()
		source := filepath.Join(dir, "src", "app_main.c")
		theirs, ours := t.TempDir(), t.TempDir()
		for _, kind := range [][]string{{"debuginfo"}, {"executable"}, {"source", source}} {
			cmd := exec.Command(find, append([]string{kind[0], id}, kind[1:]...)...)
			cmd.Env = append(os.Environ(), "DEBUGINFOD_URLS="+srv.URL, "DEBUGINFOD_CACHE_PATH="+theirs)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("debuginfod-find %v: %v", kind, err)
			}
			d := &debuginfod.Client{URLs: []string{srv.URL}, Cache: ours}
			src := ""
			if len(kind) > 1 {
				src = kind[1]
			}
			p, found, err := d.Fetch(id, kind[0], src)
			if err != nil || !found {
				t.Fatalf("Fetch %v: %v", kind, err)
			}
			if rel, _ := filepath.Rel(ours, p); filepath.Join(theirs, rel) != strings.TrimSpace(string(out)) {
				t.Errorf("%v: ours %s, debuginfod-find's %s", kind, p, out)
			}
			// Each reads the other's cache with no server up.
			down := &debuginfod.Client{URLs: []string{"http://127.0.0.1:1"}, Cache: theirs}
			if p, found, err := down.Fetch(id, kind[0], src); err != nil || !found || !strings.HasPrefix(p, theirs) {
				t.Errorf("%v from debuginfod-find's cache: %s %v", kind, p, err)
			}
			cmd = exec.Command(find, append([]string{kind[0], id}, kind[1:]...)...)
			cmd.Env = append(os.Environ(), "DEBUGINFOD_URLS=http://127.0.0.1:1", "DEBUGINFOD_CACHE_PATH="+ours)
			if out, err := cmd.Output(); err != nil || strings.TrimSpace(string(out)) != p {
				t.Errorf("debuginfod-find %v from our cache: %q %v", kind, out, err)
			}
		}
	})
}

func compareAnswers(t *testing.T, queries [][]string, want, got []string) {
	t.Helper()
	for i, q := range queries {
		if got[i] != want[i] {
			t.Errorf("%v:\n%s\nbuilt in:\n%s", q, got[i], want[i])
		}
	}
}

// TestDebuginfodRefused: a server down, one that never answers
// (DEBUGINFOD_TIMEOUT), an HTTP error, garbage and a file of another
// build-id are each one line with exit 4 naming the URL, and leave
// nothing in the cache.
func TestDebuginfodRefused(t *testing.T) {
	split, _, _ := dwarftest.SplitDebug(t, filepath.Dir(fixture(t, "app-gcc-O2-dwarf5")))
	noLocalDebuginfo(t)
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	serve := func(h http.HandlerFunc) string {
		s := httptest.NewServer(h)
		t.Cleanup(s.Close)
		return s.URL
	}
	other, err := os.ReadFile("/bin/true") // an ELF of another build-id
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, url, want string }{
		{"down", "http://127.0.0.1:1", "connection refused"},
		{"slow", "http://" + silent.Addr().String(), "(DEBUGINFOD_TIMEOUT): timer expired"},
		{"HTTP error", serve(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) }), "HTTP 500 Internal Server Error"},
		{"garbage", serve(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("garbage")) }), "not an ELF file"},
		{"web page", serve(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }), "web page (text/html)"},
		{"wrong file", serve(func(w http.ResponseWriter, r *http.Request) { w.Write(other) }), "the server sent a file of build-id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cache := t.TempDir()
			t.Setenv("DEBUGINFOD_CACHE_PATH", cache)
			t.Setenv("DEBUGINFOD_TIMEOUT", "1")
			_, _, err := dw("-x", split, "--debuginfod="+c.url, "-V", "work")
			if err == nil || exitCode(err) != exitInput {
				t.Fatalf("err %v (exit %d); want exit %d", err, exitCode(err), exitInput)
			}
			msg := err.Error()
			for _, w := range []string{split + ": debuginfod " + c.url + "/buildid/", c.want} {
				if !strings.Contains(msg, w) || strings.Contains(msg, "\n") {
					t.Errorf("%q: want one line naming %q", msg, w)
				}
			}
			if ents, _ := os.ReadDir(cache); len(ents) != 0 {
				t.Errorf("cache holds %v", ents)
			}
		})
	}
}

// imageVmlinux extracts the vmlinux of the corpus's amd64 kernel image
// into dir, as the kernel's scripts/extract-vmlinux does but finding the
// payload by the bzImage header (payload_offset) rather than by scanning
// for magics: an ELF without symbol table nor DWARF, with the build-id of
// the -dbg vmlinux.
func imageVmlinux(t *testing.T, dir string) string {
	t.Helper()
	img, err := os.ReadFile(dwarftest.NeedCorpus(t, "amd64/vmlinuz"))
	if err != nil || len(img) < 0x250 {
		t.Fatalf("vmlinuz: %v", err)
	}
	setup := int(img[0x1f1])
	if setup == 0 {
		setup = 4
	}
	start := (setup+1)*512 + int(binary.LittleEndian.Uint32(img[0x248:]))
	payload := img[start:]
	var tool []string
	for _, c := range []struct {
		magic []byte
		cmd   []string
	}{
		{[]byte{0x02, 0x21, 0x4c, 0x18}, []string{"lz4", "-dc"}},
		{[]byte{0x28, 0xb5, 0x2f, 0xfd}, []string{"zstd", "-dc"}},
		{[]byte{0xfd, '7', 'z', 'X', 'Z', 0}, []string{"xz", "-dc"}},
		{[]byte{0x1f, 0x8b}, []string{"gzip", "-dc"}},
	} {
		if bytes.HasPrefix(payload, c.magic) {
			tool = c.cmd
		}
	}
	if tool == nil {
		t.Fatalf("vmlinuz: payload % x: no known compression", payload[:8])
	}
	out := filepath.Join(dir, "vmlinux")
	cmd := exec.Command(dwarftest.NeedTool(t, tool[0]), tool[1:]...)
	cmd.Stdin = bytes.NewReader(payload)
	fh, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = fh
	err = cmd.Run() // lz4 and gzip complain of the size word after the data
	fh.Close()
	if _, serr := os.Stat(out); serr != nil || isExtractFailure(out) {
		t.Fatalf("%v: %v", tool, err)
	}
	return out
}

// isExtractFailure reports a decompressed payload that is no ELF.
func isExtractFailure(p string) bool {
	f, err := dwarfres.OpenAny(p)
	if err != nil {
		return true
	}
	f.Close()
	return false
}

// TestDebuginfodImageVmlinux: the vmlinux inside the kernel image (no
// DWARF, no symbol table) is probed with -k through debuginfod, which
// serves the -dbg vmlinux by build-id: -D with arguments and -V answer
// as with the -dbg vmlinux itself.
func TestDebuginfodImageVmlinux(t *testing.T) {
	dbg := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	vml := imageVmlinux(t, t.TempDir())
	srvDir := t.TempDir()
	real, err := filepath.EvalSymlinks(dbg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(srvDir, "vmlinux")); err != nil {
		t.Fatal(err)
	}
	srv := debuginfodtest.Start(t, debuginfodtest.Options{Dirs: []string{srvDir}, NoSources: true, ScanTimeout: 10 * time.Minute})
	noLocalDebuginfo(t)
	t.Setenv("DEBUGINFOD_URLS", srv.URL)
	for _, q := range [][]string{
		{"-D", "vfs_read file->f_pos count"},
		{"-D", "do_sys_openat2%return $retval"},
		{"-V", "vfs_read"},
	} {
		want, _, err := dw(append([]string{"-k", dbg}, q...)...)
		if err != nil {
			t.Fatalf("-dbg vmlinux %v: %v", q, err)
		}
		got, stderr, err := dw(append([]string{"-k", vml}, q...)...)
		if err != nil || got != want {
			t.Errorf("%v: %q, %v (%s); with the -dbg vmlinux %q", q, got, err, stderr, want)
		}
	}
}

// TestDebuginfodDwzCommonFile: a program of a dwz -m set copied alone
// (its relative link to common.debug broken) gets the common file from
// debuginfod by the link's build-id, and answers as the program built
// without dwz.
func TestDebuginfodDwzCommonFile(t *testing.T) {
	plain := fixture(t, "app-gcc-O2-dwarf5")
	set := filepath.Join(filepath.Dir(plain), "dwz-m")
	if _, err := os.Stat(filepath.Join(set, "common.debug")); err != nil {
		dwarftest.Skip(t, "no dwz-m fixtures (dwz not installed)")
	}
	dir := t.TempDir()
	base := filepath.Join(dir, "plain", "app")
	dwarftest.PlaceFile(t, plain, base)
	want := answers(t, sepQueries, base)
	app := filepath.Join(dir, "alone", "app")
	dwarftest.PlaceFile(t, filepath.Join(set, "app-gcc-O2-dwarf5"), app)
	srvDir := t.TempDir()
	if err := os.Symlink(filepath.Join(set, "common.debug"), filepath.Join(srvDir, "common.debug")); err != nil {
		t.Fatal(err)
	}
	srv := debuginfodtest.Start(t, debuginfodtest.Options{Dirs: []string{srvDir}, NoSources: true})
	noLocalDebuginfo(t)
	_, _, err := dw("-x", app, "-V", "work:8")
	if err == nil || !strings.Contains(err.Error(), "dwz supplementary file") {
		t.Fatalf("without a server: %v; want the common file missing", err)
	}
	t.Setenv("DEBUGINFOD_URLS", srv.URL)
	compareAnswers(t, sepQueries, want, answers(t, sepQueries, app))
}
