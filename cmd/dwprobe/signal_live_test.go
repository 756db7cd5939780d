package main

import (
	"strconv"
	"strings"
	"testing"
)

// startApply is the part of a script that starts --apply of $FILE in the
// background and waits until its first definition is in the kernel (late
// if its last already is) (its
// group's directory appears: reading uprobe_events would wait for the
// writer's mutex).
const startApply = `$DWPROBE --apply "$FILE" 2>"$ERR" & pid=$!
until [ -e "${EVENTS%/*}/events/$G" ]; do
	kill -0 $pid 2>/dev/null || break
done
[ -e "${EVENTS%/*}/events/$G/$LAST" ] && echo late=1
`

// TestSignalApplyLive: SIGTERM, SIGHUP and SIGINT in the middle of a
// --apply of 400 definitions stop it with a non-zero exit and leave none
// of them; Linux 6.1's perf leaves what it wrote, and so did dwprobe for
// all but SIGINT.
func TestSignalApplyLive(t *testing.T) {
	fsys := needLive(t)
	g := liveGroup(t, fsys, "sig")
	file := applyFile(t, g, 1000)
	trials, leftover, lines := 0, 0, 0
	for _, sig := range []string{"TERM", "HUP", "INT"} {
		for done := 0; done < 3; {
			script := startApply + `kill -` + sig + ` $pid || echo late=1; wait $pid; echo "rc=$?"; cat "$ERR"`
			out := privateRun(t, script, "FILE="+file, "G="+g, "LAST=e999", "ERR="+t.TempDir()+"/err")
			if late(t, out) {
				clearGroup(t, fsys, g)
				continue
			}
			done++
			trials++
			n := groupLines(t, fsys, g)
			rc, _ := strconv.Atoi(scriptValue(out, "rc"))
			if n > 0 {
				leftover++
				lines += n
			}
			if n > 0 || rc == 0 || !strings.Contains(out, "interrupted after writing") {
				t.Errorf("SIG%s during --apply: exit %d, %d lines left:\n%s", sig, rc, n, out)
			}
			clearGroup(t, fsys, g)
		}
	}
	t.Logf("signal trials: %d, with leftovers: %d, lines left: %d", trials, leftover, lines)
}

// TestSignalKillLive: a --apply killed with SIGKILL leaves its journal
// next to the lock; the next dwprobe to take the lock says so and deletes
// what the killed one recorded writing, and its own batch goes in. The
// one definition it was killed in the middle of writing, if the kernel
// has it, is left and named with the command that removes it: nothing
// tells it from an event another tracer made since (TestJournalPlantedPerfEvent).
func TestSignalKillLive(t *testing.T) {
	fsys := needLive(t)
	g := liveGroup(t, fsys, "kill")
	file := applyFile(t, g, 1000)
	next := applyFile(t, g+"_next", 1)
	t.Cleanup(func() { clearGroup(t, fsys, g+"_next") })
	trials, leftover, lines := 0, 0, 0
	for done := 0; done < 3; {
		script := startApply + `kill -KILL $pid || echo late=1; wait $pid
echo "killed=$(grep -c "^p:$G/" "$EVENTS")"
ls /run/dwprobe
$DWPROBE --apply "$NEXT"; echo "rc=$?"
ls /run/dwprobe`
		out := privateRun(t, script, "FILE="+file, "NEXT="+next, "G="+g, "LAST=e999", "ERR=/dev/null")
		if late(t, out) {
			clearGroup(t, fsys, g)
			clearGroup(t, fsys, g+"_next")
			continue
		}
		done++
		trials++
		n := groupLines(t, fsys, g)
		if n > 0 {
			leftover++
			lines += n
		}
		killed, _ := strconv.Atoi(scriptValue(out, "killed"))
		want := "Found an interrupted batch: dwprobe (pid "
		inDoubt := n == 1 && strings.Contains(out, "; left "+g+":") && strings.Contains(out, "remove it with dwprobe -d "+g+":")
		if n > 0 && !inDoubt || scriptValue(out, "rc") != "0" || killed == 0 || !strings.Contains(out, want) || !strings.Contains(out, "killed while adding 1000 definitions") {
			t.Errorf("after SIGKILL (%d lines written) and another --apply, %d lines left:\n%s", killed, n, out)
		}
		if groupLines(t, fsys, g+"_next") != 1 {
			t.Errorf("the next --apply did not add its event:\n%s", out)
		}
		clearGroup(t, fsys, g)
		clearGroup(t, fsys, g+"_next")
	}
	t.Logf("SIGKILL trials: %d, with leftovers after the next run: %d, lines left: %d", trials, leftover, lines)
}

// late reports a trial whose dwprobe was done before the signal was sent,
// which proves nothing; after too many the test fails.
var lateTrials int

func late(t *testing.T, out string) bool {
	t.Helper()
	if scriptValue(out, "late") != "1" {
		return false
	}
	if lateTrials++; lateTrials > 5 {
		t.Fatalf("dwprobe was done before the signal %d times:\n%s", lateTrials, out)
	}
	return true
}
