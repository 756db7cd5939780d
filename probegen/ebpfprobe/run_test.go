package ebpfprobe_test

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/probegen/ebpfprobe"
)

// TestLiveRun runs visit (built at -O2) under a Tracer at visit:4 three
// times: Run delivers the hits of the one process it is told (PID), stops
// at Count, and stops at Done once the ring's records are read, each
// hit's Line being the kernel trace's line of the event.
func TestLiveRun(t *testing.T) {
	needLive(t)
	bin := buildVisit(t, "-O2")
	probes, a := resolve(t, bin, "visit:4 local")
	tr, err := ebpfprobe.Trace(a, probes, ebpfprobe.ProgramOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()

	start := func() (*exec.Cmd, chan error) {
		cmd := exec.Command(bin)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		return cmd, done
	}
	// Another process's hits first: they must not be delivered.
	other, otherDone := start()
	<-otherDone
	cmd, done := start()
	var lines []string
	err = tr.Run(context.Background(), ebpfprobe.RunOptions{PID: uint32(cmd.Process.Pid), Done: done}, func(r ebpfprobe.Record) error {
		lines = append(lines, tr.Line(r))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 8 {
		t.Fatalf("%d hits of pid %d (other pid %d), want visit's 8:\n%s", len(lines), cmd.Process.Pid, other.Process.Pid, strings.Join(lines, "\n"))
	}
	for _, l := range lines {
		if !strings.Contains(l, "-"+itoa(cmd.Process.Pid)+" ") || !strings.Contains(l, ": "+probes[0].Group+"/"+probes[0].Name+": ("+ebpfprobe.PointText(probes[0])+") local=") {
			t.Errorf("line %q: not a hit of pid %d at %s", l, cmd.Process.Pid, ebpfprobe.PointText(probes[0]))
		}
	}

	// Count stops the run, before the command ends.
	_, done = start()
	n := 0
	err = tr.Run(context.Background(), ebpfprobe.RunOptions{Count: 3}, func(ebpfprobe.Record) error { n++; return nil })
	<-done
	if err != nil || n != 3 {
		t.Errorf("Count 3: %d records, %v", n, err)
	}
	// Drain what that run left, then a function's error ends a run.
	tr.Run(context.Background(), ebpfprobe.RunOptions{Duration: 300 * time.Millisecond}, func(ebpfprobe.Record) error { return nil })
	stop := errors.New("stop")
	_, done = start()
	err = tr.Run(context.Background(), ebpfprobe.RunOptions{Done: done}, func(ebpfprobe.Record) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("a function's error: Run returned %v", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
