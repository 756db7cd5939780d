package main

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs"
)

// TestRaceForceLive: two dwprobe -f -a of the same event at the same time
// both succeed, one as EVENT and the other as EVENT_1: the numbered name
// is chosen under the lock.
func TestRaceForceLive(t *testing.T) {
	fsys := needLive(t)
	g := liveGroup(t, fsys, "force")
	app := copyBinary(t, fixture(t, "app-gcc-O2-dwarf5"))
	const rounds = 30
	failed := 0
	for range rounds {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, errs[i] = dw("-q", "-f", "-x", app, "-a", g+":e=work")
			}()
		}
		wg.Wait()
		if errs[0] != nil || errs[1] != nil {
			failed++
			t.Errorf("two -f -a at once: %v; %v", errs[0], errs[1])
		} else if names := eventNames(t, fsys, g); strings.Join(names, " ") != "e e_1" {
			t.Errorf("two -f -a at once added %q", names)
		}
		clearGroup(t, fsys, g)
	}
	t.Logf("-f race rounds: %d, failed: %d", rounds, failed)
}

// eventNames returns the event names of group's probes, in listing order.
func eventNames(t *testing.T, fsys *tracefs.FS, group string) []string {
	var out []string
	for _, e := range groupProbes(t, fsys, group) {
		out = append(out, e.Name)
	}
	return out
}

// raceOutcome classifies a round of dwprobe -a racing a tracer that
// takes no lock, from dwprobe's error and the event's probes in the
// kernel's order (ours marks dwprobe's). The kernel lists the probes of
// one event in the order they were added.
func raceOutcome(err error, ours []bool) string {
	mine := 0
	for _, o := range ours {
		if o {
			mine++
		}
	}
	switch {
	case err == nil && len(ours) > 0 && ours[0] && mine == len(ours):
		return "dwprobe added, alone"
	case err == nil && len(ours) > 0 && ours[0]:
		return "dwprobe added, then the other tracer extended it"
	case err == nil:
		return "VIOLATION: dwprobe extended the other tracer's event"
	case mine > 0:
		return "VIOLATION: dwprobe failed and left its probe"
	case strings.Contains(err.Error(), "already exists"):
		return "dwprobe refused before writing"
	case strings.Contains(err.Error(), "another tracer"):
		return "dwprobe wrote, saw the race and rolled back"
	}
	return "dwprobe failed: " + err.Error()
}

// TestRacePerfLive: a tracer that takes no lock (a goroutine writing
// three probes of one event straight to uprobe_events, as perf probe
// does, as soon as dwprobe holds its lock) races dwprobe -a of the same
// event over 30 rounds. dwprobe never appends its probe to the other's
// event: it refuses, or rolls back with a message when the race shows
// after its write.
func TestRacePerfLive(t *testing.T) {
	fsys := needLive(t)
	g := liveGroup(t, fsys, "race")
	app := copyBinary(t, fixture(t, "app-gcc-O2-dwarf5"))
	perf := otherProbes(t, app, g)
	ourTarget := workTarget(t, app)
	events := uprobeEvents(t)
	const rounds = 30
	outcomes := map[string]int{}
	for range rounds {
		// The other tracer writes as soon as dwprobe (this process)
		// holds its lock.
		var added atomic.Bool
		done := make(chan struct{})
		go func() {
			defer close(done)
			for !added.Load() && !holdsFlock(os.Getpid()) {
			}
			for _, d := range perf {
				if f, err := os.OpenFile(events, os.O_WRONLY|os.O_APPEND, 0); err == nil {
					f.WriteString(d + "\n")
					f.Close()
				}
			}
		}()
		_, _, err := dw("-q", "-x", app, "-a", g+":e=work")
		added.Store(true)
		<-done
		outcomes[raceOutcome(err, probeOwners(t, fsys, g, ourTarget))]++
		clearGroup(t, fsys, g)
	}
	logOutcomes(t, outcomes, rounds)
}

// logOutcomes logs how many rounds had each outcome, and fails the test
// for a violation.
func logOutcomes(t *testing.T, outcomes map[string]int, rounds int) {
	t.Helper()
	for o, n := range outcomes {
		t.Logf("%2d of %d rounds: %s", n, rounds, o)
		if strings.HasPrefix(o, "VIOLATION") {
			t.Errorf("%d of %d rounds: %s", n, rounds, o)
		}
	}
}

// otherProbes are the other tracer's three probes of GROUP/e, on other
// functions than dwprobe's work.
func otherProbes(t *testing.T, app, group string) []string {
	t.Helper()
	var defs []string
	for _, fn := range []string{"compute", "item_score", "main"} {
		def, _, err := dw("-x", app, "-D", group+":e="+fn)
		if err != nil {
			t.Fatal(err)
		}
		defs = append(defs, strings.TrimSpace(strings.Split(def, "\n")[0]))
	}
	return defs
}

// holdsFlock reports whether pid holds a flock, from /proc/locks.
func holdsFlock(pid int) bool {
	b, _ := os.ReadFile("/proc/locks")
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) > 4 && f[1] == "FLOCK" && f[4] == strconv.Itoa(pid) {
			return true
		}
	}
	return false
}

// probeOwners says, for each probe of group's events in listing order,
// whether it is dwprobe's (its target is ours).
func probeOwners(t *testing.T, fsys *tracefs.FS, group, ours string) []bool {
	var out []bool
	for _, e := range groupProbes(t, fsys, group) {
		out = append(out, sameTarget(e.Target, ours))
	}
	return out
}

// sameTarget compares uprobe targets whatever the offset's width.
func sameTarget(listed, ours string) bool {
	lp, lo, _ := strings.Cut(listed, ":0x")
	op, oo, _ := strings.Cut(ours, ":0x")
	return lp == op && strings.TrimLeft(lo, "0") == strings.TrimLeft(oo, "0")
}

// raceSetup finds tool, skipping without it (what says what it is for),
// and returns the live tracefs, the tool, a group named after the tool
// and a private copy of the app fixture.
func raceSetup(t *testing.T, tool, what string) (*tracefs.FS, string, string, string) {
	t.Helper()
	fsys := needLive(t)
	path, err := exec.LookPath(tool)
	if err != nil {
		dwarftest.Skip(t, "live race test: no %s", what)
	}
	return fsys, path, liveGroup(t, fsys, tool), copyBinary(t, fixture(t, "app-gcc-O2-dwarf5"))
}

// TestRaceRealPerfLive: perf probe -x and dwprobe -a add the same event
// at the same time over 20 rounds; dwprobe never extends perf's event.
func TestRaceRealPerfLive(t *testing.T) {
	fsys, perfBin, g, app := raceSetup(t, "perf", "perf to race")
	ourTarget := workTarget(t, app)
	bin := dwprobeBin(t)
	// perf takes longer to start: dwprobe starts at a random moment of
	// perf's run, to meet it in every phase.
	start := time.Now()
	if out, err := exec.Command(perfBin, "probe", "-q", "-x", app, "-a", g+":e=compute").CombinedOutput(); err != nil {
		t.Fatalf("perf probe: %v\n%s", err, out)
	}
	span := time.Since(start)
	clearGroup(t, fsys, g)
	const rounds = 20
	outcomes := map[string]int{}
	for range rounds {
		pc := exec.Command(perfBin, "probe", "-q", "-x", app, "-a", g+":e=compute")
		if err := pc.Start(); err != nil {
			t.Fatalf("perf probe: %v", err)
		}
		time.Sleep(rand.N(span))
		out, err := exec.Command(bin, "-q", "-x", app, "-a", g+":e=work").CombinedOutput()
		pc.Wait()
		if err != nil {
			err = &perfRaceError{string(out)}
		}
		outcomes[raceOutcome(err, probeOwners(t, fsys, g, ourTarget))]++
		clearGroup(t, fsys, g)
	}
	logOutcomes(t, outcomes, rounds)
}

type perfRaceError struct{ out string }

func (e *perfRaceError) Error() string { return e.out }

// TestRaceWindowLive is TestRacePerfLive with the race made certain:
// strace holds each of dwprobe's opens of uprobe_events for 300 ms, and
// the other tracer writes its three probes 450 ms after dwprobe takes its
// lock: after dwprobe has read the names in use, before its write lands.
func TestRaceWindowLive(t *testing.T) {
	fsys, strace, g, app := raceSetup(t, "strace", "strace to widen the window")
	ourTarget := workTarget(t, app)
	events := uprobeEvents(t)
	perf := otherProbes(t, app, g)
	bin := dwprobeBin(t)
	const rounds = 5
	outcomes := map[string]int{}
	for range rounds {
		cmd := exec.Command(strace, "-f", "-qq", "-o", "/dev/null", "-P", events,
			"-e", "trace=openat", "-e", "inject=openat:delay_enter=300000",
			bin, "-q", "-x", app, "-a", g+":e=work")
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for !dwprobeHoldsFlock() && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(450 * time.Millisecond)
		for _, d := range perf {
			if f, err := os.OpenFile(events, os.O_WRONLY|os.O_APPEND, 0); err == nil {
				f.WriteString(d + "\n")
				f.Close()
			}
		}
		err := cmd.Wait()
		if err != nil {
			err = &perfRaceError{out.String()}
		}
		outcomes[raceOutcome(err, probeOwners(t, fsys, g, ourTarget))]++
		clearGroup(t, fsys, g)
	}
	logOutcomes(t, outcomes, rounds)
}

// dwprobeHoldsFlock reports whether a process named dwprobe holds a flock.
func dwprobeHoldsFlock() bool {
	b, _ := os.ReadFile("/proc/locks")
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) > 4 && f[1] == "FLOCK" {
			if comm, _ := os.ReadFile("/proc/" + f[4] + "/comm"); strings.TrimSpace(string(comm)) == "dwprobe" {
				return true
			}
		}
	}
	return false
}
