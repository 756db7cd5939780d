package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
)

// A --fleet run checks the -D specs against every build of a fleet file:
// each build's answers, each build's diff against the reference of its
// machine (the first build of that machine in the file), and per spec a
// summary across builds.

// checkFleetOptions: --fleet takes its builds from its file, and -D's specs.
func checkFleetOptions(o *options) error {
	switch {
	case o.fleet == "" && o.junit != "":
		return errors.New("--junit writes the report of a --fleet run: give --fleet BUILDS")
	case o.fleet == "" && o.fleetJobs != 0:
		return errors.New("--fleet-jobs is how many builds of --fleet resolve at once: give --fleet BUILDS")
	case o.fleet == "":
		return nil
	case len(o.defs) == 0:
		return errors.New("--fleet checks the specs of -D (-D @FILE for a file of them) against each build: give -D")
	case o.vmlinux != "" || o.exec != "" || o.module != "" || o.source != "":
		return errors.New("--fleet names its builds (and their sources) in its file: it does not go with -k, -x, -m or -s")
	case o.diffNew != "" || o.bootconfig || o.btf != "":
		return errors.New("--fleet does not go with --diff, --bootconfig or --btf (it diffs each build against its reference)")
	case o.fleetJobs < 0:
		return fmt.Errorf("--fleet-jobs must be positive, not %d", o.fleetJobs)
	}
	return nil
}

// fleetReport is a build's part of a --fleet run.
type fleetReport struct {
	b        fleetBuild
	path     string // the debuginfo read
	machine  string
	ref      string // the reference build's name; "" for a reference
	err      error  // the build could not be checked
	specs    []fleetSpec
	took     time.Duration
	machineM uint16
}

// fleetSpec is one spec's answer in one build.
type fleetSpec struct {
	in       specInput
	resolves bool
	// verdict: at a reference "resolves", "fails" or "invalid"; at
	// another build the diff's change (diff.go) or "invalid".
	verdict string
	details []string // as --diff words them
	errMsg  string   // why it does not resolve here
	suggest string
}

// failed reports whether the spec fails its test in this build: it is
// no probe command, does not resolve, or probes something else than in
// the reference (moved, broken, other points or arguments).
func (s fleetSpec) failed() bool {
	switch s.verdict {
	case "args", "points", "moved", "broken", "invalid", "fails":
		return true
	}
	return !s.resolves
}

// runFleet implements --fleet.
func runFleet(ctx context.Context, o *options, stdout, stderr io.Writer) error {
	if err := checkSpecFiles(ctx, o.defs); err != nil {
		return err
	}
	builds, err := readFleet(o.fleet)
	if err != nil {
		return err
	}
	reps := make([]*fleetReport, len(builds))
	for i, b := range builds {
		reps[i] = &fleetReport{b: b}
	}
	jobs := fleetJobs(o, len(builds))
	// The references first: each build of a machine is diffed against
	// the first build of that machine in the file.
	refs, err := openFleetRefs(ctx, o, reps, jobs, stderr)
	defer func() {
		for _, r := range refs {
			r.f.Close()
		}
	}()
	if err != nil {
		return err
	}
	eachBuild(ctx, reps, jobs, func(r *fleetReport) {
		if r.err == nil {
			r.err = checkFleetBuild(ctx, o, r, refs, stderr)
		}
	})
	if err := ctx.Err(); err != nil {
		return err // nothing was printed: the reports print together
	}
	if err := writeFleetReports(o, stdout, reps); err != nil {
		return err
	}
	return fleetStatus(o, stderr, reps)
}

// fleetJobs is how many builds resolve at once: --fleet-jobs, else as
// many as the cores and the memory allow (a build being checked holds its
// debuginfo's pages and tables, a few hundred MB for a vmlinux).
func fleetJobs(o *options, n int) int {
	j := o.fleetJobs
	if j == 0 {
		j = min(runtime.NumCPU(), int(memAvailable()/fleetBuildMemory))
	}
	return max(1, min(j, n))
}

// fleetBuildMemory is what a build being checked may take.
const fleetBuildMemory = 512 << 20

// memAvailable is /proc/meminfo's MemAvailable in bytes; a build's worth
// when it cannot be read.
func memAvailable() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return fleetBuildMemory
	}
	return parseMemAvailable(string(b))
}

// parseMemAvailable reads MemAvailable of /proc/meminfo's text, in bytes;
// fleetBuildMemory when it is not there.
func parseMemAvailable(meminfo string) int64 {
	for _, l := range strings.Split(meminfo, "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "MemAvailable:" {
			if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				return kb << 10
			}
		}
	}
	return fleetBuildMemory
}

// eachBuild calls fn for each report, on up to jobs goroutines, and
// returns when all are done. A signal starts no more builds.
func eachBuild(ctx context.Context, reps []*fleetReport, jobs int, fn func(*fleetReport)) {
	slots := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for _, r := range reps {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			fn(r)
		}()
	}
	wg.Wait()
}

// openFleetRefs opens every build to learn its machine and keeps open the
// first build of each machine: the reference the others of that machine
// are diffed against. A build that cannot be opened is reported in its
// report, not returned; only a signal is.
// fleetRef is the reference build of a machine, open.
type fleetRef struct {
	f *probegen.Target
	o *options // its options: its vmlinux, its sources
}

func openFleetRefs(ctx context.Context, o *options, reps []*fleetReport, jobs int, stderr io.Writer) (map[uint16]fleetRef, error) {
	files := make([]*probegen.Target, len(reps))
	eachBuild(ctx, reps, jobs, func(r *fleetReport) {
		f, err := openFleetBuild(ctx, o, r)
		if err != nil {
			r.err = err
			return
		}
		for i := range reps {
			if reps[i] == r {
				files[i] = f
			}
		}
	})
	refs := map[uint16]fleetRef{}
	refName := map[uint16]string{}
	for i, r := range reps {
		f := files[i]
		if f == nil {
			continue
		}
		if _, ok := refs[r.machineM]; !ok {
			ro := fleetOptions(o, r.b, r.path)
			refs[r.machineM], refName[r.machineM] = fleetRef{f, ro}, r.b.Name
			useIndex(ro, f, stderr)
			continue
		}
		r.ref = refName[r.machineM]
		f.Close()
	}
	return refs, ctx.Err()
}

// openFleetBuild opens r's build: fetched by build-id through debuginfod,
// or the vmlinux at its path.
func openFleetBuild(ctx context.Context, o *options, r *fleetReport) (*probegen.Target, error) {
	if r.b.BuildID == "" && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	bo := fleetOptions(o, r.b, r.b.Path)
	oo := openOptions(bo)
	oo.BuildID = r.b.BuildID
	oo.Progress = nil // builds fetch at once: their lines would mix
	f, err := probegen.Open(oo)
	if err != nil {
		return nil, openErr(bo, err)
	}
	if err := needsDebuginfo(bo, f); err != nil {
		f.Close()
		return nil, err
	}
	built := f.Built()
	path := r.b.Path
	if r.b.BuildID != "" {
		path = built.Path // the copy fetched
	}
	m := built.Machine
	r.path, r.machineM, r.machine = path, uint16(m), tracefs.MachineName(m)
	return f, nil
}

// fleetOptions are o for one build: its vmlinux and its sources.
func fleetOptions(o *options, b fleetBuild, path string) *options {
	bo := *o
	bo.vmlinux, bo.source = path, b.Source
	bo.symbolsOnly = true // a build's DWARF or symbols, as the reference's
	return &bo
}

// checkFleetBuild resolves every spec in r's build, and diffs it against
// the reference's answer unless r is a reference.
func checkFleetBuild(ctx context.Context, o *options, r *fleetReport, refs map[uint16]fleetRef, stderr io.Writer) error {
	start := time.Now()
	defer func() { r.took = time.Since(start) }()
	ref := refs[r.machineM]
	t := ref.f
	if r.ref != "" {
		f, err := openTarget(fleetOptions(o, r.b, r.path))
		if err != nil {
			return err
		}
		defer f.Close()
		useIndex(fleetOptions(o, r.b, r.path), f, stderr)
		t = f
	}
	bo := fleetOptions(o, r.b, r.path)
	b := newDiffBuild(bo, t)
	var refB *diffBuild
	if r.ref != "" {
		// The reference's File is shared, safe for concurrent use; its
		// caches here are this build's.
		refB = newDiffBuild(ref.o, ref.f)
	}
	n := 0
	err := eachSpec(ctx, o.defs, func(in specInput) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if n++; n%releaseEvery == 0 {
			t.ReleasePages()
		}
		if refB == nil {
			r.specs = append(r.specs, refSpec(in, b))
		} else {
			r.specs = append(r.specs, diffedSpec(diffSpec(in, refB, b)))
		}
		return nil
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// refSpec is a spec's answer in a reference build.
func refSpec(in specInput, b *diffBuild) fleetSpec {
	r, _ := b.resolve(in)
	s := fleetSpec{in: in, resolves: r.err == nil, verdict: "resolves"}
	switch {
	case r.err != nil && r.spec == nil && errors.Is(r.err, grammar.ErrSyntax):
		s.verdict, s.resolves = invalidChange, false
		s.details = []string{syntaxLine(in, r.err)}
		s.errMsg = errLine(in, r.err)
	case r.err != nil:
		s.verdict, s.errMsg = "fails", errLine(in, r.err)
		s.details = []string{s.errMsg}
	}
	return s
}

// diffedSpec is a spec's answer in a build diffed against its reference.
func diffedSpec(sd specDiff) fleetSpec {
	s := fleetSpec{in: sd.in, resolves: !sd.invalid && sd.new.err == nil, verdict: sd.change(), details: diffDetails(sd)}
	if sd.new.err != nil {
		s.errMsg = errLine(sd.in, sd.new.err)
	}
	if sd.suggest != nil {
		s.suggest = sd.suggest.Spec
	}
	return s
}

// fleetStatus prints the run's counts on stderr (unless -q) and returns
// its status: an unresolved-class error when a spec fails in a build
// (does not resolve, moved, broke, is no probe command), an input-class
// one when a build could not be checked, errProbesChanged when specs
// only read differently (args, points), nil when all is well.
func fleetStatus(o *options, stderr io.Writer, reps []*fleetReport) error {
	var checked, broken, fails, changes int
	for _, r := range reps {
		if r.err != nil {
			broken++
			continue
		}
		checked++
		for _, s := range r.specs {
			switch {
			case s.verdict == "args" || s.verdict == "points":
				changes++
			case s.failed():
				fails++
			}
		}
	}
	if !o.quiet {
		fmt.Fprintf(stderr, "%d builds checked, %d not: %d failures, %d changes\n", checked, broken, fails, changes)
	}
	switch {
	case fails > 0:
		return errorWith(dwarfres.ErrNotFound, "%d specs fail in the builds checked (do not resolve, moved or are no probe commands)", fails)
	case broken > 0:
		return errorWith(probegen.ErrFetch, "%d of %d builds could not be checked", broken, len(reps))
	case changes > 0:
		return errorWith(errProbesChanged, "%d specs resolve differently than in their reference build", changes)
	}
	return nil
}
