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
var lineHitCases612 = []struct{ name, line, ref, skipRef string }{
	{"cap", "cap_capable:3", "cap_capable", "cap_capset+"},
	{"setpos", "vfs_setpos_cookie:3", "vfs_setpos_cookie", ""},
}

// TestQEMULineHits612 boots the 6.12 amd64 kernel and counts the hits of
// each line probe against its reference's, over a workload that checks
// capabilities and seeks in files (a run: 126 and 126, 10 and 10).
func TestQEMULineHits612(t *testing.T) {
	const arch = "6.12/amd64"
	qemutest.NeedQEMU(t, arch)
	vml := dwarftest.NeedCorpus(t, arch+"/vmlinux")
	var defs []string
	for _, c := range lineHitCases612 {
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
	for _, c := range lineHitCases612 {
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
