// Package debuginfodtest runs Debian's real debuginfod server for tests:
// started on a free port over directories of ELF files, ready once its
// scan is done, stopped with the test.
package debuginfodtest

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// Options describe a server.
type Options struct {
	// Dirs are scanned for ELF/DWARF files (debuginfod -F), symlinks
	// followed.
	Dirs []string
	// Binds are mounted in the server's own mount namespace only, each
	// source directory over its target: sources the server serves that
	// the test's process cannot see, so that a client must fetch them.
	Binds [][2]string
	// NoSources skips indexing the sources DWARF names (a vmlinux names
	// thousands).
	NoSources bool
	// ScanTimeout bounds the wait for the scan (default one minute).
	ScanTimeout time.Duration
}

// Server is a running debuginfod.
type Server struct {
	URL string // http://127.0.0.1:PORT
	Log string // the server's log file
}

// Start starts debuginfod with o and waits until its scan is done; the
// server stops when t ends. It skips (fails under make test) when
// debuginfod is not installed.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	bin := dwarftest.NeedTool(t, "debuginfod")
	port := freePort(t)
	args := []string{"-d", ":memory:", "-p", strconv.Itoa(port), "-t", "0", "-g", "0", "-c", "1", "-L", "-v"}
	if o.NoSources {
		args = append(args, "--disable-source-scan")
	}
	for _, d := range o.Dirs {
		args = append(args, "-F", d)
	}
	cmd := exec.Command(bin, args...)
	if len(o.Binds) > 0 {
		cmd = bindCommand(t, o.Binds, bin, args)
	}
	log := filepath.Join(t.TempDir(), "debuginfod.log")
	lf, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = lf, lf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); lf.Close() })
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), Log: log}
	limit := o.ScanTimeout
	if limit == 0 {
		limit = time.Minute
	}
	if err := s.waitScan(limit); err != nil {
		b, _ := os.ReadFile(log)
		t.Fatalf("debuginfod: %v\n%s", err, tail(b))
	}
	return s
}

// bindCommand runs debuginfod in a mount namespace of its own with binds
// mounted.
func bindCommand(t testing.TB, binds [][2]string, bin string, args []string) *exec.Cmd {
	t.Helper()
	if os.Geteuid() != 0 {
		dwarftest.Skip(t, "a mount namespace needs root")
	}
	unshare := dwarftest.NeedTool(t, "unshare")
	var script strings.Builder
	var sh []string
	for i, b := range binds {
		fmt.Fprintf(&script, `mount --bind "$%d" "$%d" && `, 2*i+1, 2*i+2)
		sh = append(sh, b[0], b[1])
	}
	n := len(sh)
	fmt.Fprintf(&script, `shift %d && exec "$@"`, n)
	all := append([]string{"-m", "--propagation", "private", "sh", "-c", script.String(), "sh"}, sh...)
	return exec.Command(unshare, append(append(all, bin), args...)...)
}

// freePort is a port nothing listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitScan polls the server's /metrics until the directory traversal has
// run and no scan work is pending or busy (elfutils' own tests wait so).
func (s *Server) waitScan(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		m, err := s.metrics()
		if err == nil && m[`thread_work_total{role="traverse"}`] >= 1 &&
			m[`thread_work_pending{role="scan"}`] == 0 && m[`thread_busy{role="scan"}`] == 0 &&
			m[`thread_busy{role="traverse"}`] == 0 {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("scan not done within %v", limit)
}

// metrics reads the server's Prometheus metrics.
func (s *Server) metrics() (map[string]float64, error) {
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	m := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if f, err := strconv.ParseFloat(v, 64); ok && err == nil {
			m[k] = f
		}
	}
	return m, sc.Err()
}

func tail(b []byte) string {
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}
