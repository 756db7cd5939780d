package ebpfprobe_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/features"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/ebpfprobe"
	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// The live test resolves a line in a loop of testdata/visit.c through the
// probegen API, reads p->name:string, a local, a parameter and a global
// (by file offset, @+OFFS, in the PIE) there with
// a cilium/ebpf program of this package's, and with the uprobe_events
// definition of the same spec, runs the program and compares both with
// what it printed. It needs root, uprobes, the BPF syscall and gcc; without
// them it skips, saying why, except under make test
// (DWPROBE_REQUIRE_ALL=1), where that is a failure.

// needLive returns the host's tracefs, or skips (fails under make test).
func needLive(t *testing.T) *tracefs.FS {
	t.Helper()
	if os.Geteuid() != 0 {
		dwarftest.Skip(t, "live BPF test: needs root for the BPF syscall and uprobe_events")
	}
	fsys, err := tracefs.Find()
	if err != nil {
		dwarftest.Skip(t, "live BPF test: no tracefs: %v", err)
	}
	if _, err := fsys.List(tracefs.UProbe); err != nil {
		dwarftest.Skip(t, "live BPF test: no uprobes: %v", err)
	}
	if err := features.HaveMapType(ebpf.RingBuf); err != nil {
		dwarftest.Skip(t, "live BPF test: no BPF ring buffers: %v", err)
	}
	return fsys
}

// buildVisit compiles testdata/visit.c with gcc -g and flags.
func buildVisit(t *testing.T, flags ...string) string {
	t.Helper()
	src, err := os.ReadFile("testdata/visit.c")
	if err != nil {
		t.Fatal(err)
	}
	return dwarftest.Compile(t, "gcc", "visit.c", string(src), append([]string{"-g"}, flags...)...)
}

// resolve resolves spec in bin through the library API, returning its
// probe points and the binary's machine.
func resolve(t *testing.T, bin, spec string) ([]answer.Probe, *arch.Arch) {
	t.Helper()
	tg, err := probegen.Open(probegen.OpenOptions{Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	_, res, err := tg.Resolver(probegen.ResolveOptions{}).Resolve(spec)
	if err != nil {
		t.Fatal(err)
	}
	a, ok := arch.For(tg.File.ELF.Machine)
	if !ok || len(res.Probes) == 0 {
		t.Fatalf("%s: %d points on machine %v", spec, len(res.Probes), tg.File.ELF.Machine)
	}
	return res.Probes, a
}

func TestLiveBPFReadsAsPrintedAndTraced(t *testing.T) {
	fsys := needLive(t)
	for _, opt := range []string{"-O0", "-O2"} {
		bin := buildVisit(t, opt)
		for _, fn := range []string{"visit", "visit_inl"} {
			t.Run(opt+"/"+fn, func(t *testing.T) {
				liveCase(t, fsys, bin, fn)
			})
		}
	}
}

// liveCase probes fn's printf line (FUNC:4) in bin with BPF and tracefs.
func liveCase(t *testing.T, fsys *tracefs.FS, bin, fn string) {
	probes, a := resolve(t, bin, fn+":4 p->name:string local scale calls")
	if fn == "visit_inl" && probes[0].InlinedInto != "main" {
		t.Errorf("%s: point in %q, want an inline copy in main", fn, probes[0].InlinedInto)
	}
	tr, err := ebpfprobe.Trace(a, probes, ebpfprobe.ProgramOptions{})
	if err != nil {
		t.Fatalf("loading or attaching: %v", err)
	}
	defer tr.Close()
	group := fmt.Sprintf("dwebpf_%d_%s", os.Getpid(), strings.NewReplacer("-", "", "/", "_").Replace(filepath.Base(bin)+fn))
	in := traceDefinitions(t, fsys, group, probes)

	cmd := exec.Command(bin)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	in.enable(t, group, false)
	want := printedBy(stdout.String(), fn)
	if len(want) != 8 {
		t.Fatalf("%s printed %d %s lines:\n%s", bin, len(want), fn, stdout.String())
	}
	bpf := records(t, tr, pid, len(probes))
	traced := in.events(t, pid, len(probes))
	for i := range probes {
		t.Logf("point %d at %s+%d (file offset %#x): BPF read %v", i, probes[i].ELFSymbol, probes[i].ELFOffset, probes[i].Attach.FileOffset, bpf[i])
		if !equal(bpf[i], want) {
			t.Errorf("point %d: BPF read\n%v\nthe program printed\n%v", i, bpf[i], want)
		}
		if !equal(traced[i], want) {
			t.Errorf("point %d: uprobe_events traced\n%v\nthe program printed\n%v", i, traced[i], want)
		}
	}
}

func equal(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") }

// printedBy is what the program printed for fn, as the kernel's trace
// prints the arguments: `name="alpha" local=11 scale=2 calls=1`, and
// `name=(fault)` for a NULL name (printed "(null)").
func printedBy(out, fn string) []string {
	re := regexp.MustCompile(`(?m)^` + fn + `: name=(\w+|\(null\)) local=(-?\d+) scale=(-?\d+) calls=(\d+)$`)
	var lines []string
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		name := strconv.Quote(m[1])
		if m[1] == "(null)" {
			name = "(fault)"
		}
		lines = append(lines, fmt.Sprintf("name=%s local=%s scale=%s calls=%s", name, m[2], m[3], m[4]))
	}
	return lines
}

// records drains tr of process pid's records, by point, each printed as
// the kernel's trace prints its arguments.
func records(t *testing.T, tr *ebpfprobe.Tracer, pid, points int) [][]string {
	t.Helper()
	out := make([][]string, points)
	tr.SetDeadline(time.Now().Add(time.Second))
	for {
		rec, err := tr.Read()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.PID != uint32(pid) || rec.Cookie >= uint64(points) {
			continue
		}
		var args []string
		for _, v := range rec.Values {
			args = append(args, v.Field.Name+"="+v.String())
		}
		out[rec.Cookie] = append(out[rec.Cookie], strings.Join(args, " "))
	}
}

// instance is a tracing instance of the test's own, so that no other
// tracing on the host mixes into what it reads.
type instance struct{ dir string }

// traceDefinitions writes the definitions of probes (point i as event
// p<i> of group) to uprobe_events and enables them in a tracing instance
// of their own; both are removed when the test ends.
func traceDefinitions(t *testing.T, fsys *tracefs.FS, group string, probes []answer.Probe) *instance {
	t.Helper()
	var evs []tracefs.Event
	for i, p := range probes {
		ev := p.Definition()
		ev.Group, ev.Name, ev.Raw = group, fmt.Sprintf("p%d", i), ""
		evs = append(evs, ev)
	}
	if _, err := fsys.Add(evs); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := fsys.Delete(tracefs.UProbe, []string{group + ":*"}); err != nil {
			t.Errorf("cleanup of %s: %v", group, err)
		}
	})
	in := &instance{filepath.Join(fsys.Root(), "instances", group)}
	if err := os.Mkdir(in.dir, 0o755); err != nil {
		t.Fatalf("tracing instance: %v", err)
	}
	// Cleanups run last first: the instance goes before the events.
	t.Cleanup(func() {
		os.WriteFile(filepath.Join(in.dir, "events", "enable"), []byte("0\n"), 0o644)
		if err := os.Remove(in.dir); err != nil {
			t.Errorf("removing tracing instance: %v", err)
		}
	})
	if err := os.WriteFile(filepath.Join(in.dir, "options", "record-tgid"), []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in.enable(t, group, true)
	return in
}

func (in *instance) enable(t *testing.T, group string, on bool) {
	t.Helper()
	v := map[bool]string{true: "1\n", false: "0\n"}[on]
	if err := os.WriteFile(filepath.Join(in.dir, "events", group, "enable"), []byte(v), 0o644); err != nil {
		t.Fatal(err)
	}
}

// traceLine is one event of the trace: TASK-PID (TGID) [CPU] … EVENT:
// (ADDR) ARGS.
var traceLine = regexp.MustCompile(`^\s*.*-(\d+)\s+\(\s*([\d-]+)\)\s+\[\d+\][^:]*:\s+p(\d+):\s+\(0x[0-9a-f]+\)\s?(.*)$`)

// events returns what process pid traced, by point, each line's
// arguments as the kernel printed them.
func (in *instance) events(t *testing.T, pid, points int) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(in.dir, "trace"))
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]string, points)
	for _, l := range strings.Split(string(b), "\n") {
		m := traceLine.FindStringSubmatch(l)
		if m == nil || m[2] != strconv.Itoa(pid) {
			continue
		}
		if i, _ := strconv.Atoi(m[3]); i < points {
			out[i] = append(out[i], m[4])
		}
	}
	return out
}

// TestLiveBPFOtherPID: a Tracer of another process's uprobes reads
// nothing of the fixture's hits (ProgramOptions.PID).
func TestLiveBPFOtherPID(t *testing.T) {
	needLive(t)
	bin := buildVisit(t, "-O0")
	probes, a := resolve(t, bin, "visit:4 scale")
	tr, err := ebpfprobe.Trace(a, probes, ebpfprobe.ProgramOptions{PID: os.Getpid()})
	if err != nil {
		t.Fatalf("loading or attaching: %v", err)
	}
	defer tr.Close()
	cmd := exec.Command(bin)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if got := records(t, tr, cmd.Process.Pid, len(probes)); len(got[0]) != 0 {
		t.Errorf("a tracer of pid %d read %d hits of pid %d", os.Getpid(), len(got[0]), cmd.Process.Pid)
	}
}
