package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs"
)

// Helpers of the live tests of signals, the lock and races: they run the
// dwprobe binary from bash scripts, in a mount namespace of their own
// where the test needs its own lock directory.

// privateRun runs script with bash in a mount namespace of its own whose
// /run is an empty tmpfs with a world-writable /run/lock, as on the host:
// the lock and journals of the dwprobe it runs ($DWPROBE) are its own,
// and what the script plants there touches nothing outside. It returns
// the script's output.
func privateRun(t *testing.T, script string, env ...string) string {
	t.Helper()
	if _, err := exec.LookPath("unshare"); err != nil {
		dwarftest.Skip(t, "live test: no unshare(1) for a private mount namespace")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pre := "set -u\nmount -t tmpfs tmpfs /run && mkdir -m 1777 /run/lock || exit 99\n"
	cmd := exec.CommandContext(ctx, "unshare", "--mount", "--propagation", "private", "bash", "-c", pre+script)
	cmd.Env = append(append(os.Environ(), "DWPROBE="+dwprobeBin(t), "EVENTS="+uprobeEvents(t)), env...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() != 99) {
		t.Fatalf("private namespace script: %v\n%s", err, out)
	}
	return string(out)
}

// uprobeEvents is the host's uprobe_events.
func uprobeEvents(t *testing.T) string {
	return filepath.Join(needLive(t).Root(), "uprobe_events")
}

// applyFile writes n definitions GROUP/e0 … on work of a private copy of
// the app fixture to a file and returns its path.
func applyFile(t *testing.T, group string, n int) string {
	t.Helper()
	target := workTarget(t, copyBinary(t, fixture(t, "app-gcc-O2-dwarf5")))
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "p:%s/e%d %s\n", group, i, target)
	}
	path := filepath.Join(t.TempDir(), "defs.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// workTarget is the uprobe target of function work of app.
func workTarget(t *testing.T, app string) string {
	t.Helper()
	def, _, err := dw("-x", app, "-D", "work")
	if err != nil {
		t.Fatal(err)
	}
	_, target, _ := strings.Cut(strings.TrimSpace(def), " ")
	return target
}

// groupProbes returns the probes of group in uprobe_events.
func groupProbes(t *testing.T, fsys *tracefs.FS, group string) []tracefs.Event {
	t.Helper()
	evs, err := fsys.List(tracefs.UProbe)
	if err != nil {
		t.Fatal(err)
	}
	var out []tracefs.Event
	for _, e := range evs {
		if e.Group == group {
			out = append(out, e)
		}
	}
	return out
}

// groupLines counts the probes of group in uprobe_events.
func groupLines(t *testing.T, fsys *tracefs.FS, group string) int {
	return len(groupProbes(t, fsys, group))
}

// clearGroup deletes the events of group, if any.
func clearGroup(t *testing.T, fsys *tracefs.FS, group string) {
	t.Helper()
	if _, err := fsys.Delete(tracefs.UProbe, []string{group + ":*"}); err != nil && !errors.Is(err, tracefs.ErrNoMatch) {
		t.Fatal(err)
	}
}

// scriptValue returns the value of "KEY=VALUE" on a line of out.
func scriptValue(out, key string) string {
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, key+"="); ok {
			return v
		}
	}
	return ""
}
