package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/spf13/pflag"

	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/ebpfprobe"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// traceOptions are dwprobe trace's own: what to watch, for how long, and
// how to print it; the target and resolution options are -D's.
type traceOptions struct {
	pid      int
	count    int
	duration time.Duration
	command  []string // after --: run it, trace its process, stop when it ends
	// writePoints: resolve only, writing the points to this file;
	// points: trace the points of such a file instead of resolving.
	writePoints, points string
}

const traceUsage = `usage: dwprobe trace [options] PROBE... [-- COMMAND [ARG...]]

Resolve each PROBE (the spec -D takes) and attach a BPF program at every
point, printing each hit as the kernel's trace prints the event of the
same definition: task-PID [CPU] seconds: GROUP/EVENT: (POINT) ARGS, or
one JSON object per hit with --json. It runs until Ctrl-C, --count hits
or --duration; with COMMAND, it runs COMMAND, traces its process only and
stops when it exits. Nothing is left registered in the kernel, even by
kill -9: the probes are perf events of this process, not tracefs entries.
Needs root (or CAP_BPF and CAP_PERFMON), and kprobes for a kernel probe.

With --write-points FILE it only resolves, writing the points (machine,
places and argument reads) to FILE; --points FILE traces them where the
debuginfo is not (a small machine, a guest): resolve where the vmlinux
is, trace where the kernel runs.

Examples:
  dwprobe trace -x ./app 'work:3 p->name:string' -- ./app
  dwprobe trace -k vmlinux --write-points pts.json 'vfs_read count'
  dwprobe trace --points pts.json --count 5
  dwprobe trace 'do_sys_openat2 filename:string' --count 10
  dwprobe trace -x /usr/bin/python3.11 --pid 4242 'sdt_python:function__entry file=arg1:string'

Options:
`

// runTrace implements dwprobe trace.
func runTrace(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, to, specs, err := parseTrace(args, stderr)
	if err != nil {
		return asUsage(err)
	}
	if o.show != "" {
		return nil // --help, printed by parseTrace
	}
	o.ctx, o.defs, o.points = ctx, specs, true
	return interrupted(ctx, traceSpecs(ctx, o, to, stdout, stderr), false)
}

// parseTrace reads trace's command line: -D's target and resolution
// options, trace's own, the specs, and a command after --.
func parseTrace(args []string, stderr io.Writer) (*options, traceOptions, []string, error) {
	o := &options{maxProbes: probegen.DefaultMaxProbes}
	var to traceOptions
	fs := pflag.NewFlagSet("dwprobe trace", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	fs.StringVarP(&o.vmlinux, "vmlinux", "k", "", "vmlinux with debuginfo (default: the running kernel's)")
	fs.StringVarP(&o.exec, "exec", "x", "", "target executable or shared library (uprobes)")
	fs.StringVarP(&o.module, "module", "m", "", "target kernel module, by name or path")
	fs.StringVarP(&o.source, "source", "s", "", "root of the source tree, for lazy patterns")
	fs.BoolVar(&o.noInlines, "no-inlines", false, "do not probe inlined copies")
	fs.IntVar(&o.maxProbes, "max-probes", probegen.DefaultMaxProbes, "most points one PROBE may have")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "print no notes")
	fs.BoolVar(&o.json, "json", false, "one JSON object per hit")
	fs.IntVarP(&to.pid, "pid", "p", 0, "trace process PID only")
	fs.IntVar(&to.count, "count", 0, "stop after N hits")
	fs.DurationVar(&to.duration, "duration", 0, "stop after this long (10s, 1m)")
	fs.StringVar(&to.writePoints, "write-points", "", "resolve only: write the points to `FILE`")
	fs.StringVar(&to.points, "points", "", "trace the points of `FILE` (from --write-points); no PROBE")
	help := fs.BoolP("help", "h", false, "show this help")
	fs.Usage = func() { fmt.Fprint(stderr, traceUsage+fs.FlagUsages()) }
	if err := fs.Parse(args); err != nil {
		return nil, to, nil, fmt.Errorf("%w (see dwprobe trace --help)", err)
	}
	if *help {
		fs.Usage()
		o.show = "help"
		return o, to, nil, nil
	}
	specs := fs.Args()
	if at := fs.ArgsLenAtDash(); at >= 0 {
		specs, to.command = specs[:at], specs[at:]
		if len(to.command) == 0 {
			return nil, to, nil, errors.New("nothing after --: give the command to run and trace")
		}
	}
	switch {
	case to.points != "" && (len(specs) > 0 || to.writePoints != "" || o.exec != "" || o.vmlinux != "" || o.module != ""):
		return nil, to, nil, errors.New("--points takes resolved points: no PROBE, -x, -k, -m or --write-points beside it")
	case to.points != "":
	case len(specs) == 0:
		return nil, to, nil, errors.New("dwprobe trace: give at least one PROBE")
	case to.writePoints != "" && (to.pid != 0 || to.count != 0 || to.duration != 0 || len(to.command) > 0):
		return nil, to, nil, errors.New("--write-points only resolves: no --pid, --count, --duration or command beside it")
	case o.exec != "" && o.vmlinux != "":
		return nil, to, nil, errors.New("-x and -k are exclusive: probe a user binary or a kernel, not both")
	case to.pid != 0 && len(to.command) > 0:
		return nil, to, nil, errors.New("--pid and a command are exclusive: the command's process is the one traced")
	case to.pid < 0 || to.count < 0 || to.duration < 0:
		return nil, to, nil, errors.New("--pid, --count and --duration must not be negative")
	case o.maxProbes <= 0:
		return nil, to, nil, fmt.Errorf("--max-probes must be positive, not %d", o.maxProbes)
	}
	if err := checkModuleOptions(o); err != nil {
		return nil, to, nil, err
	}
	return o, to, specs, checkSourceDir(o.source)
}

// traceSpecs resolves o.defs as -D does, attaches them and prints hits.
func traceSpecs(ctx context.Context, o *options, to traceOptions, stdout, stderr io.Writer) error {
	var probes []answer.Probe
	var a *arch.Arch
	var err error
	if to.points != "" {
		probes, a, err = readPoints(to.points)
	} else {
		probes, a, err = traceProbes(ctx, o, stderr)
	}
	if err != nil {
		return err
	}
	if to.writePoints != "" {
		return writePoints(to.writePoints, a, probes)
	}
	if host, ok := arch.Host(); !ok || host != a {
		return fmt.Errorf("the probes are for %s, and this machine is %s: trace them there (dwprobe -D prints their definitions)", a.Name, runtime.GOARCH)
	}
	tr, err := ebpfprobe.Trace(a, probes, ebpfprobe.ProgramOptions{PID: to.pid, SkipUnreadable: true})
	if err != nil {
		return traceAttachError(probes, err)
	}
	defer tr.Close()
	if !o.quiet {
		// Said once everything is attached: a caller (or a test) may
		// start the workload from here on.
		if len(o.defs) > 0 {
			fmt.Fprintf(stderr, "tracing %s of %s; Ctrl-C to stop\n", plural(len(probes), "point"), plural(len(o.defs), "probe"))
		} else {
			fmt.Fprintf(stderr, "tracing %s of %s; Ctrl-C to stop\n", plural(len(probes), "point"), to.points)
		}
	}
	var cmd *exec.Cmd
	pid := uint32(to.pid)
	if len(to.command) > 0 {
		cmd = exec.CommandContext(ctx, to.command[0], to.command[1:]...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stderr, stderr
		if err := cmd.Start(); err != nil {
			return err
		}
		pid = uint32(cmd.Process.Pid)
	}
	done := make(chan error, 1)
	if cmd != nil {
		go func() { done <- cmd.Wait() }()
	}
	return tr.Run(ctx, ebpfprobe.RunOptions{PID: pid, Count: to.count, Duration: to.duration, Done: done}, hitPrinter(o, tr, stdout))
}

// traceProbes resolves the specs of o.defs as -D does and returns their
// points and machine.
func traceProbes(ctx context.Context, o *options, stderr io.Writer) ([]answer.Probe, *arch.Arch, error) {
	tgt, done, err := openFor(o)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	// A kernel without DWARF fails to open (openErr says why): trace
	// reads arguments where the debuginfo puts them.
	a, ok := tgt.Arch()
	if !ok {
		return nil, nil, fmt.Errorf("no machine model for %s", arch.MachineName(tgt.Built().Machine))
	}
	useIndex(o, tgt, stderr)
	rs, err := resolveAll(ctx, o, tgt, o.defs, stderr)
	if err != nil {
		return nil, nil, err
	}
	var probes []answer.Probe
	for _, r := range rs {
		probes = append(probes, r.res.Probes...)
	}
	return probes, a, nil
}

// pointsFile is what --write-points writes and --points reads: the
// machine the points are for and the points.
type pointsFile struct {
	Machine string         `json:"machine"`
	Points  []answer.Probe `json:"points"`
}

// writePoints writes probes for machine a to file, whole or not at all.
func writePoints(file string, a *arch.Arch, probes []answer.Probe) error {
	b, err := json.Marshal(pointsFile{Machine: a.Name, Points: probes})
	if err != nil {
		return err
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// readPoints reads a file writePoints wrote.
func readPoints(file string) ([]answer.Probe, *arch.Arch, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	var pf pointsFile
	if err := json.Unmarshal(b, &pf); err != nil {
		return nil, nil, fmt.Errorf("%s: not a file of --write-points: %w", file, err)
	}
	for _, a := range []*arch.Arch{arch.X86_64, arch.ARM64} {
		if a.Name == pf.Machine && len(pf.Points) > 0 {
			return pf.Points, a, nil
		}
	}
	return nil, nil, fmt.Errorf("%s: not a file of --write-points (machine %q, %d points)", file, pf.Machine, len(pf.Points))
}

// traceAttachError says what failed to load or attach, and what would
// work instead.
func traceAttachError(probes []answer.Probe, err error) error {
	kernel := len(probes) > 0 && !probes[0].User
	switch {
	case errors.Is(err, os.ErrPermission):
		return fmt.Errorf("loading BPF programs: %w: run as root (or with CAP_BPF and CAP_PERFMON)", err)
	case kernel && (errors.Is(err, os.ErrNotExist) || errors.Is(err, errors.ErrUnsupported)):
		return fmt.Errorf("attaching kprobes: %w: this kernel has no kprobes (CONFIG_KPROBES); dwprobe -D prints the definitions for a kernel that has them", err)
	}
	return fmt.Errorf("loading or attaching the probes: %w", err)
}

// hitPrinter prints a record as the kernel's trace line of its event, or
// as JSON.
func hitPrinter(o *options, tr *ebpfprobe.Tracer, w io.Writer) func(ebpfprobe.Record) error {
	enc := json.NewEncoder(w)
	return func(r ebpfprobe.Record) error {
		p := tr.Probes[r.Cookie]
		if o.json {
			return enc.Encode(hitJSON(p, r))
		}
		_, err := fmt.Fprintln(w, tr.Line(r))
		return err
	}
}

// jsonHit is one hit in --json.
type jsonHit struct {
	TimeNS uint64    `json:"time_ns"`
	CPU    uint32    `json:"cpu"`
	Comm   string    `json:"comm"`
	PID    uint32    `json:"pid"`
	TID    uint32    `json:"tid"`
	Event  string    `json:"event"`
	Point  string    `json:"point"`
	File   string    `json:"source_file,omitempty"`
	Line   int       `json:"source_line,omitempty"`
	Args   []jsonVal `json:"args"`
}

// jsonVal is one argument of a hit: its name and its value as the
// kernel's trace prints it, or why it could not be read.
type jsonVal struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Fault bool   `json:"fault,omitempty"`
}

func hitJSON(p answer.Probe, r ebpfprobe.Record) jsonHit {
	h := jsonHit{TimeNS: r.Time, CPU: r.CPU, Comm: r.Comm, PID: r.PID, TID: r.TID,
		Event: p.Group + "/" + p.Name, Point: ebpfprobe.PointText(p), File: p.File, Line: p.Line, Args: []jsonVal{}}
	for _, v := range r.Values {
		h.Args = append(h.Args, jsonVal{Name: v.Field.Name, Value: v.String(), Fault: v.Fault})
	}
	return h
}
