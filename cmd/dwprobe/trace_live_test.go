package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// buildVisit compiles ebpfprobe's live fixture (a loop calling visit, out
// of line, and visit_inl, always inlined, printing what the probes read)
// with compiler cc and flags.
func buildVisit(t *testing.T, cc string, flags ...string) string {
	t.Helper()
	src, err := os.ReadFile("../../probegen/ebpfprobe/testdata/visit.c")
	if err != nil {
		t.Fatal(err)
	}
	return dwarftest.Compile(t, cc, "visit.c", string(src), append([]string{"-g"}, flags...)...)
}

var (
	visitPrinted = regexp.MustCompile(`(?m)^(visit|visit_inl): name=(\S+) local=(-?\d+) scale=(-?\d+) calls=(\d+)$`)
	visitTraced  = regexp.MustCompile(`(?m)^\s*(\S+)-(\d+)\s+\[(\d+)\]\s+\d+\.\d{6}: probe_visit/(visit|visit_inl)_L4: \(\S+\) name=(\S+) local=(-?\d+) scale=(-?\d+) calls=(\d+)$`)
)

// TestTraceLive runs dwprobe trace on the live fixture built by gcc at
// -O0 and -O2 and by clang at -O2, with the fixture as its command, and
// compares every hit with what the program printed at that line, hit for
// hit, in order (a NULL name, printed "(null)", is a fault to a probe).
// It needs root, uprobes and BPF; it skips without, failing under make
// test.
func TestTraceLive(t *testing.T) {
	needLive(t)
	for _, c := range []struct{ cc, opt string }{{"gcc", "-O0"}, {"gcc", "-O2"}, {"clang", "-O2"}} {
		t.Run(c.cc+c.opt, func(t *testing.T) {
			bin := buildVisit(t, c.cc, c.opt)
			stdout, stderr, err := dw("trace", "-x", bin,
				"probe_visit:visit_L4=visit:4 p->name:string local scale calls",
				"probe_visit:visit_inl_L4=visit_inl:4 p->name:string local scale calls", "--", bin)
			if err != nil {
				t.Fatalf("dwprobe trace: %v\n%s", err, stderr)
			}
			checkVisitTrace(t, stdout, stderr)
		})
	}
}

// checkVisitTrace compares the hits dwprobe trace printed (stdout) of
// the live fixture's visit:4 and visit_inl:4 with what the fixture
// printed (stderr), hit for hit, in order.
func checkVisitTrace(t *testing.T, stdout, stderr string) {
	t.Helper()
	var want, got []string
	for _, m := range visitPrinted.FindAllStringSubmatch(stderr, -1) {
		name := `"` + m[2] + `"`
		if m[2] == "(null)" {
			name = "(fault)"
		}
		want = append(want, fmt.Sprintf("%s name=%s local=%s scale=%s calls=%s", m[1], name, m[3], m[4], m[5]))
	}
	for _, m := range visitTraced.FindAllStringSubmatch(stdout, -1) {
		if m[1] != "visit" {
			t.Errorf("hit by task %q, want the fixture's visit", m[1])
		}
		got = append(got, fmt.Sprintf("%s name=%s local=%s scale=%s calls=%s", m[4], m[5], m[6], m[7], m[8]))
	}
	if len(want) != 16 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("traced\n%s\nprinted\n%s\nstdout:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), stdout)
	}
}

// TestTracePointsFile resolves the live fixture's points with
// --write-points and traces them from the file with --points (what a
// machine without the debuginfo runs): every hit as the fixture printed.
func TestTracePointsFile(t *testing.T) {
	needLive(t)
	bin := buildVisit(t, "gcc", "-O2")
	pts := filepath.Join(t.TempDir(), "points.json")
	if _, stderr, err := dw("trace", "-x", bin, "--write-points", pts,
		"probe_visit:visit_L4=visit:4 p->name:string local scale calls",
		"probe_visit:visit_inl_L4=visit_inl:4 p->name:string local scale calls"); err != nil {
		t.Fatalf("dwprobe trace --write-points: %v\n%s", err, stderr)
	}
	stdout, stderr, err := dw("trace", "--points", pts, "--", bin)
	if err != nil {
		t.Fatalf("dwprobe trace --points: %v\n%s", err, stderr)
	}
	checkVisitTrace(t, stdout, stderr)
	for _, args := range [][]string{
		{"trace", "--points", pts, "visit:4"},
		{"trace", "--points", pts, "-x", bin},
		{"trace", "--points", filepath.Join(t.TempDir(), "none.json")},
		{"trace", "--points", bin},
	} {
		if _, _, err := dw(args...); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("dwprobe %s: %v, want an error of one line", strings.Join(args, " "), err)
		}
	}
}

// TestTraceKilledLeavesNothing kills dwprobe trace with SIGKILL while it
// is attached and checks that nothing of it is left in uprobe_events (its
// probes are perf events of its own, which the kernel drops with the
// process) and that the fixture then runs without hits to anyone. Other
// tests may add and remove their own probes meanwhile: only the lines
// naming the fixture count.
func TestTraceKilledLeavesNothing(t *testing.T) {
	fsys := needLive(t)
	bin := buildVisit(t, "gcc", "-O2")
	before, err := os.ReadFile(filepath.Join(fsys.Root(), "uprobe_events"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(dwprobeBin(t), "trace", "-x", bin, "visit:4 p->name:string local")
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	attached := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "tracing ") {
				attached <- sc.Text()
			}
		}
		close(attached)
	}()
	select {
	case l, ok := <-attached:
		if !ok {
			cmd.Wait()
			t.Fatal("dwprobe trace ended before attaching")
		}
		t.Log(l)
	case <-time.After(time.Minute):
		t.Fatal("dwprobe trace did not attach in a minute")
	}
	if during, err := os.ReadFile(filepath.Join(fsys.Root(), "uprobe_events")); err != nil || strings.Contains(string(during), bin) {
		t.Errorf("while tracing, uprobe_events names the fixture (%v):\n%s", err, during)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	after, err := os.ReadFile(filepath.Join(fsys.Root(), "uprobe_events"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(after), bin) {
		t.Errorf("uprobe_events names the fixture after the kill:\nbefore\n%s\nafter\n%s", before, after)
	}
	if out, err := exec.Command(bin).CombinedOutput(); err != nil {
		t.Errorf("the fixture after the kill: %v\n%s", err, out)
	}
}
