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
var lineHitCases612 = []lineHitCase{
	{"cap", "cap_capable:3", "cap_capable", "cap_capset+"},
	{"setpos", "vfs_setpos_cookie:3", "vfs_setpos_cookie", ""},
}

// lineHitCases61: ksys_read:11 calls vfs_read on two paths (with ppos,
// at +102, whose row shares its address with line 9's; without, at
// +167), and line 12 follows each: as many hits. dwprobe probed +167
// only, perf refuses the line. A run: 9 hits, all at +102, to 9.
var lineHitCases61 = []lineHitCase{
	{"ksysread", "ksys_read:11", "ksys_read:12", ""},
}

// lineHitCase is a line probe and a reference probe that runs as often;
// skipRef leaves out the reference's points at a target with that prefix.
type lineHitCase struct{ name, line, ref, skipRef string }

// TestQEMULineHits612 boots the 6.12 amd64 kernel and counts the hits of
// each line probe against its reference's, over a workload that checks
// capabilities and seeks in files (a run: 126 and 126, 10 and 10).
func TestQEMULineHits612(t *testing.T) { testLineHits(t, "6.12/amd64", lineHitCases612) }

// TestQEMULineHits61 is TestQEMULineHits612 on the 6.1 amd64 kernel.
func TestQEMULineHits61(t *testing.T) { testLineHits(t, "amd64", lineHitCases61) }

func testLineHits(t *testing.T, arch string, cases []lineHitCase) {
	qemutest.NeedQEMU(t, arch)
	vml := dwarftest.NeedCorpus(t, arch+"/vmlinux")
	var defs []string
	for _, c := range cases {
		defs = append(defs, dwprobeDefs(t, "-k", vml, "-D", "lh:"+c.name+"_line="+c.line)...)
		for _, d := range dwprobeDefs(t, "-k", vml, "-D", "lh:"+c.name+"_ref="+c.ref) {
			if c.skipRef == "" || !strings.Contains(d, " "+c.skipRef) {
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
