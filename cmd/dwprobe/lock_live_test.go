package main

import (
	"strconv"
	"strings"
	"testing"
)

// nobody runs a command as an unprivileged user.
const nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups "

// TestLockWaitLive: while another process holds the lock, -a says after a
// second who holds it, and Ctrl-C ends the wait at once with nothing
// added, also once the holder lets go.
func TestLockWaitLive(t *testing.T) {
	fsys := needLive(t)
	g := liveGroup(t, fsys, "wait")
	app := copyBinary(t, fixture(t, "app-gcc-O2-dwarf5"))
	// The holder holds the lock of this dwprobe and that of dwprobe
	// before issue 11 (/run/lock/dwprobe.lock).
	script := `mkdir -m 700 /run/dwprobe
flock /run/dwprobe/lock flock /run/lock/dwprobe.lock sleep 2.5 & holder=$!
sleep 0.2
start=$(date +%s%N)
$DWPROBE -x "$APP" -a "$G:w=work" & pid=$!
sleep 1.5
kill -INT $pid
for i in $(seq 50); do kill -0 $pid 2>/dev/null || break; sleep 0.02; done
echo "stopped_ms=$(( ($(date +%s%N) - start) / 1000000 ))"
wait $pid; echo "rc=$?"
echo "holder=$holder"
wait $holder
`
	out := privateRun(t, script, "APP="+app, "G="+g)
	holder := scriptValue(out, "holder")
	ms, _ := strconv.Atoi(scriptValue(out, "stopped_ms"))
	t.Logf("Ctrl-C after 1.5 s of waiting: stopped after %d ms, exit %s, %d probes added", ms, scriptValue(out, "rc"), groupLines(t, fsys, g))
	if n := groupLines(t, fsys, g); n != 0 || scriptValue(out, "rc") == "0" {
		t.Errorf("Ctrl-C while waiting for the lock: exit %s, %d probes added:\n%s", scriptValue(out, "rc"), n, out)
	}
	if ms > 2500 {
		t.Errorf("Ctrl-C ended the wait after %d ms", ms)
	}
	for _, want := range []string{
		"Waiting for the lock /run/dwprobe/lock, held by pid " + holder + " (Ctrl-C stops waiting)",
		"dwprobe: interrupted while waiting for the lock /run/dwprobe/lock, held by pid " + holder + "; nothing was added",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// TestLockPlantedLive: what an unprivileged user can plant where the lock
// used to be (/run/lock is world-writable) does not stop or delay root's
// -a; what only root could put in the lock's directory instead of the
// lock is refused at once, never followed or waited on.
func TestLockPlantedLive(t *testing.T) {
	fsys := needLive(t)
	g := liveGroup(t, fsys, "plant")
	app := copyBinary(t, fixture(t, "app-gcc-O2-dwarf5"))
	old := "/run/lock/dwprobe.lock"
	cases := []struct {
		name, plant string
		ok          bool
	}{
		{"user symlink", nobody + "ln -s /run/lock/elsewhere " + old, true},
		{"user directory", nobody + "mkdir " + old, true},
		{"user FIFO", nobody + "mkfifo " + old, true},
		{"user-held lock", nobody + "flock " + old + " sleep 6 >/dev/null 2>&1 & sleep 0.2", true},
		{"symlink", "mkdir -m 700 /run/dwprobe; ln -s /run/lock/x /run/dwprobe/lock", false},
		{"directory", "mkdir -p -m 700 /run/dwprobe/lock", false},
		{"FIFO", "mkdir -m 700 /run/dwprobe; mkfifo /run/dwprobe/lock", false},
		{"foreign file", "mkdir -m 700 /run/dwprobe; touch /run/dwprobe/lock; chown 65534 /run/dwprobe/lock", false},
		{"foreign directory", "mkdir -m 700 /run/dwprobe; chown 65534 /run/dwprobe", false},
		{"open directory", "mkdir -m 777 /run/dwprobe", false},
	}
	unaffected := 0
	for _, c := range cases {
		script := c.plant + `
timeout 5 $DWPROBE -q -x "$APP" -a "$G:w=work"; echo "rc=$?"`
		out := privateRun(t, script, "APP="+app, "G="+g)
		rc, n := scriptValue(out, "rc"), groupLines(t, fsys, g)
		clearGroup(t, fsys, g)
		if c.ok {
			if rc == "0" && n == 1 {
				unaffected++
			} else {
				t.Errorf("%s at %s: exit %s, %d probes added:\n%s", c.name, old, rc, n, out)
			}
			continue
		}
		if rc != "1" || n != 0 || !strings.Contains(out, "unsafe lock file") {
			t.Errorf("%s at /run/dwprobe/lock: exit %s, %d probes added:\n%s", c.name, rc, n, out)
		}
	}
	t.Logf("unprivileged plants that left -a unaffected: %d of 4", unaffected)
}
