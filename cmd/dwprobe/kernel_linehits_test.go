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
	// __set_current_state(TASK_RUNNING) after the loop: after its
	// tracepoint's NOP, and in the tracepoint's block, which does not
	// come back (the key is off here: the NOP's point fires).
	{"nsleep", "do_nanosleep:16", "do_nanosleep", ""},
}, lineHitShapes("kernel_clone:51")...)

// lineHitCases61: ksys_read:11 calls vfs_read on two paths (with ppos,
// at +102, whose row shares its address with line 9's; without, at
// +167), and line 12 follows each: as many hits. dwprobe probed +167
// only, perf refuses the line. A run: 9 hits, all at +102, to 9.
var lineHitCases61 = append([]lineHitCase{
	{"ksysread", "ksys_read:11", "ksys_read:12", ""},
	// After an inlined call: `if (ppos)` follows the inlined
	// file_ppos, whose row (read_write.c:599) comes first at +76;
	// line 12 runs once per read too.
	{"ksysppos", "ksys_read:7", "ksys_read:12", ""},
	// Sharing the copy's entry: line 2's row shares the entry of each
	// copy inlined in generic_file_llseek_size (+37, +183) with line
	// 0's; line 4 follows it whenever the offset is not negative.
	{"setpos", "vfs_setpos:2", "vfs_setpos:4", ""},
}, lineHitShapes("kernel_clone:51")...)

// lineHitCases73 are the shapes on 7.3, whose trace_sched_process_fork
// is kernel_clone:64 and whose try_to_wake_up has line 39's guard at 42
// (line 44 in the same block).
var lineHitCases73 = append([]lineHitCase{
	{"ttwu", "try_to_wake_up:42", "try_to_wake_up:44", ""},
	// Sharing the copy's entry: line 3's row shares the entry of each
	// of vfs_setpos_cookie's six inlined copies (vfs_setpos+9, two in
	// generic_llseek_cookie, three in generic_file_llseek_size) with
	// line 0's; line 5 follows it whenever the offset is not negative.
	{"setpos", "vfs_setpos_cookie:3", "vfs_setpos_cookie:5", ""},
	{"nsleep", "do_nanosleep:16", "do_nanosleep", ""},
}, lineHitShapes("kernel_clone:64")...)

// lineHitCasesFor are the cases of the kernel at corpus directory dir
// (amd64 or arm64 of each generation).
func lineHitCasesFor(dir string) []lineHitCase {
	switch {
	case strings.HasPrefix(dir, "6.12/"):
		return lineHitCases612
	case strings.HasPrefix(dir, "7.3/"):
		return lineHitCases73
	}
	return lineHitCases61
}

// lineHitCasesArm64 are lineHitCasesFor(dir) on arm64, without the
// cases whose points (line and reference alike) 6.12's arm64 kprobes
// refuse ("Failed to register probe event"): try_to_wake_up+112 and
// +116, generic_llseek_cookie+80 and generic_file_llseek_size+196, each
// soon after an exclusive load of the runtime-patched spinlock or atomic
// code (arm_kprobe_decode_insn's is_probed_address_atomic). 7.3's
// try_to_wake_up:42 boots there. 6.1's refuses vfs_setpos's copy at
// generic_file_llseek_size+240 (line 2) and +248 (line 4) the same way:
// the case keeps the copy at +64 and the out-of-line one.
func lineHitCasesArm64(dir string) []lineHitCase {
	if dir == "arm64" {
		var out []lineHitCase
		for _, c := range lineHitCasesFor(dir) {
			if c.name == "setpos" {
				c.skip = "generic_file_llseek_size+24"
			}
			out = append(out, c)
		}
		return out
	}
	if !strings.HasPrefix(dir, "6.12/") {
		return lineHitCasesFor(dir)
	}
	var out []lineHitCase
	for _, c := range lineHitCasesFor(dir) {
		if c.name != "ttwu" && c.name != "setpos" {
			out = append(out, c)
		}
	}
	return out
}

// lineHitShapes are the cases every generation boots, forkTrace naming
// kernel_clone's trace_sched_process_fork line. security_file_open:2
// (`return call_int_hook(file_open, file)`) is one straight-line run of
// the line, whatever the LSMs return: once per open (6.12 had 13 points
// in it, one after each LSM's static call).
func lineHitShapes(forkTrace string) []lineHitCase {
	return []lineHitCase{
		{"jumplabel", forkTrace, "wake_up_new_task", ""},
		{"header", "fsnotify_access:2", "fsnotify_access", "__do_sys_vmsplice+"},
		{"sfopen", "security_file_open:2", "security_file_open", ""},
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
	defs := lineHitDefs(t, vml, cases)
	t.Logf("definitions:\n%s", strings.Join(defs, "\n"))
	g := qemutest.Boot(t, arch, defs, lineHitWorkload, nil)
	if g.WorkloadExit != 0 {
		t.Fatalf("workload exit %d:\n%s", g.WorkloadExit, g.Workload)
	}
	for _, r := range g.Rejected {
		t.Errorf("the kernel rejected:\n%s", r)
	}
	checkLineHits(t, g, cases)
}

// lineHitDefs are the definitions of cases' line and reference probes
// on vmlinux vml.
func lineHitDefs(t *testing.T, vml string, cases []lineHitCase) []string {
	var defs []string
	for _, c := range cases {
		for _, d := range append(dwprobeDefs(t, "-k", vml, "-D", "lh:"+c.name+"_line="+c.line),
			dwprobeDefs(t, "-k", vml, "-D", "lh:"+c.name+"_ref="+c.ref)...) {
			if c.skip == "" || !strings.Contains(d, " "+c.skip) {
				defs = append(defs, d)
			}
		}
	}
	return defs
}

// lineHitWorkload checks capabilities, seeks in, opens and reads files,
// sleeps and forks with the sched_process_fork event on.
const lineHitWorkload = `set -e
seq 1 2000 >/tmp/f
for i in 1 2 3 4 5; do tail -c 20 /tmp/f >/dev/null; head -c 10 /tmp/f >/dev/null; done
cat /proc/self/status >/dev/null
mkdir -p /tmp/d && chmod 700 /tmp/d && ls -l /tmp >/dev/null
sleep 0.1 || sleep 1
sleep 0.1 || sleep 1
echo 1 >/sys/kernel/tracing/events/sched/sched_process_fork/enable
for i in 1 2 3 4 5; do sh -c 'cat /tmp/f >/dev/null'; done
echo 0 >/sys/kernel/tracing/events/sched/sched_process_fork/enable
`

// checkLineHits: each case's line probe fired as often as its reference,
// and not never.
func checkLineHits(t *testing.T, g *qemutest.Guest, cases []lineHitCase) {
	t.Helper()
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
