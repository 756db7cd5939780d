package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// startApply is the part of a script that starts --apply of $FILE in the
// background and waits until its first definition is in the kernel (its
// group's directory appears: reading uprobe_events would wait for the
// writer's mutex).
const startApply = `$DWPROBE --apply "$FILE" 2>"$ERR" & pid=$!
until [ -e "${EVENTS%/*}/events/$G" ]; do
	kill -0 $pid 2>/dev/null || break
done
`

// TestSignalApplyLive: SIGTERM, SIGHUP and SIGINT in the middle of a
// --apply of 400 definitions stop it with a non-zero exit and leave none
// of them; Linux 6.1's perf leaves what it wrote, and so did dwprobe for
// all but SIGINT.
func TestSignalApplyLive(t *testing.T) {
	fsys := needLive(t)
	g := liveGroup(t, fsys, "sig")
	file := applyFile(t, g, 400)
	trials, leftover, lines := 0, 0, 0
	for _, sig := range []string{"TERM", "HUP", "INT"} {
		for range 3 {
			script := startApply + `kill -` + sig + ` $pid; wait $pid; echo "rc=$?"; cat "$ERR"`
			out := privateRun(t, script, "FILE="+file, "G="+g, "ERR="+t.TempDir()+"/err")
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
// what the killed one wrote, and its own batch goes in.
func TestSignalKillLive(t *testing.T) {
	fsys := needLive(t)
	g := liveGroup(t, fsys, "kill")
	file := applyFile(t, g, 400)
	next := applyFile(t, g+"_next", 1)
	t.Cleanup(func() { clearGroup(t, fsys, g+"_next") })
	trials, leftover, lines := 0, 0, 0
	for range 3 {
		script := startApply + `kill -KILL $pid; wait $pid
echo "killed=$(grep -c "^p:$G/" "$EVENTS")"
ls /run/dwprobe
$DWPROBE --apply "$NEXT"; echo "rc=$?"
ls /run/dwprobe`
		out := privateRun(t, script, "FILE="+file, "NEXT="+next, "G="+g, "ERR=/dev/null")
		trials++
		n := groupLines(t, fsys, g)
		if n > 0 {
			leftover++
			lines += n
		}
		killed, _ := strconv.Atoi(scriptValue(out, "killed"))
		want := fmt.Sprintf("Found an interrupted batch: dwprobe (pid ")
		if n > 0 || scriptValue(out, "rc") != "0" || killed == 0 || !strings.Contains(out, want) || !strings.Contains(out, "killed while adding 400 definitions") {
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
