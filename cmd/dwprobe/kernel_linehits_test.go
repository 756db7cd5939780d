package main

import (
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs/qemutest"
)

// lineHitCases pair a line probe with a reference that runs exactly as
// often: the entries of the function's copies (-D FUNC), for a line that
// is the first statement of every copy. cap_capable:3's row shares each
// inlined copy's entry with line 0 (issue 31: dwprobe probed the out-of-
// line copy only, 3 hits to the entries' 999); vfs_setpos_cookie:3 has
// five copies. The reference drops the copies -D FUNC:RLN names as
// having no code at the line (cap_capset's).
//
// The shapes every kernel generation boots (lineHitShapes): a line behind
// a jump label, kernel_clone's trace_sched_process_fork (its static key
// turned on by the workload, which enables the event: the NOP jumps to
// the tracepoint's out-of-line block), as often as wake_up_new_task
// runs, once per fork: on 6.12 and 7.3 the line starts at the NOP, which
// the kernel refuses probes on ("Failed to register probe event"), so
// it is probed after it, where the block comes back (a run: 21 and 21,
// 5 of them with the event on; the NOP's block probed too made 26); a line of a header inlined in many units,
// fsnotify_access:2, as often as fsnotify_access's copies are entered
// (the copy in __do_sys_vmsplice, a notrace function the kernel refuses
// probes in, left out of both).
var lineHitCases612 = append([]lineHitCase{
	{"cap", "cap_capable:3", "cap_capable", "cap_capset+"},
	{"setpos", "vfs_setpos_cookie:3", "vfs_setpos_cookie", ""},
	// After an inlined call: line 39 follows the nested inlined
	// spinlock guard, whose row comes first at +87 (dwprobe said "no
	// code"); line 40 runs in the same block.
	{"ttwu", "try_to_wake_up:39", "try_to_wake_up:40", ""},
}, lineHitShapes("kernel_clone:51")...)

// lineHitCases61: ksys_read:11 calls vfs_read on two paths (with ppos,
// at +102, whose row shares its address with line 9's; without, at
// +167), and line 12 follows each: as many hits. dwprobe probed +167
// only, perf refuses the line. A run: 9 hits, all at +102, to 9.
var lineHitCases61 = append([]lineHitCase{
	{"ksysread", "ksys_read:11", "ksys_read:12", ""},
}, lineHitShapes("kernel_clone:51")...)

// lineHitCases73 are the shapes on 7.3, whose trace_sched_process_fork
// is kernel_clone:64.
var lineHitCases73 = lineHitShapes("kernel_clone:64")

// lineHitShapes are the cases every generation boots, forkTrace naming
// kernel_clone's trace_sched_process_fork line.
func lineHitShapes(forkTrace string) []lineHitCase {
	return []lineHitCase{
		{"jumplabel", forkTrace, "wake_up_new_task", ""},
		{"header", "fsnotify_access:2", "fsnotify_access", "__do_sys_vmsplice+"},
	}
}

// lineHitCase is a line probe and a reference probe that runs as often;
// skip leaves out the points of both at a target with that prefix.
type lineHitCase struct{ name, line, ref, skip string }

// TestQEMULineHits612 boots the 6.12 amd64 kernel and counts the hits of
// each line probe against its reference's, over a workload that checks
// capabilities, seeks in and reads files and forks with the
// sched_process_fork event on (a run: 126 and 126, 10 and 10).
func TestQEMULineHits612(t *testing.T) { testLineHits(t, "6.12/amd64", lineHitCases612) }

// TestQEMULineHits61 is TestQEMULineHits612 on the 6.1 amd64 kernel.
func TestQEMULineHits61(t *testing.T) { testLineHits(t, "amd64", lineHitCases61) }

// TestQEMULineHits73 is TestQEMULineHits612 on the 7.3 amd64 kernel.
func TestQEMULineHits73(t *testing.T) { testLineHits(t, "7.3/amd64", lineHitCases73) }

func testLineHits(t *testing.T, arch string, cases []lineHitCase) {
	qemutest.NeedQEMU(t, arch)
	vml := dwarftest.NeedCorpus(t, arch+"/vmlinux")
	var defs []string
	for _, c := range cases {
		for _, d := range append(dwprobeDefs(t, "-k", vml, "-D", "lh:"+c.name+"_line="+c.line),
			dwprobeDefs(t, "-k", vml, "-D", "lh:"+c.name+"_ref="+c.ref)...) {
			if c.skip == "" || !strings.Contains(d, " "+c.skip) {
				defs = append(defs, d)
			}
		}
	}
	t.Logf("definitions:\n%s", strings.Join(defs, "\n"))
	const workload = `set -e
seq 1 2000 >/tmp/f
for i in 1 2 3 4 5; do tail -c 20 /tmp/f >/dev/null; head -c 10 /tmp/f >/dev/null; done
cat /proc/self/status >/dev/null
mkdir -p /tmp/d && chmod 700 /tmp/d && ls -l /tmp >/dev/null
echo 1 >/sys/kernel/tracing/events/sched/sched_process_fork/enable
for i in 1 2 3 4 5; do sh -c 'cat /tmp/f >/dev/null'; done
echo 0 >/sys/kernel/tracing/events/sched/sched_process_fork/enable
`
	g := qemutest.Boot(t, arch, defs, workload, nil)
	if g.WorkloadExit != 0 {
		t.Fatalf("workload exit %d:\n%s", g.WorkloadExit, g.Workload)
	}
	for _, r := range g.Rejected {
		t.Errorf("the kernel rejected:\n%s", r)
	}
	for _, c := range cases {
		recs := qemutest.FilterEvent(g.Trace, "lh/"+c.name+"_line")
		line := len(recs)
		ref := len(qemutest.FilterEvent(g.Trace, "lh/"+c.name+"_ref"))
		at := map[string]int{}
		for _, r := range recs {
			at[strings.Split(r.Loc, "/")[0]]++
		}
		t.Logf("%s: %d hits (%v), %s: %d", c.line, line, at, c.ref, ref)
		if line != ref || ref == 0 {
			t.Errorf("%s: %d hits, want %d, as %s's copies ran (and not 0)", c.line, line, ref, c.ref)
		}
	}
}
