package main

import (
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs/qemutest"
)

// TestQEMURetvalMembers boots the corpus kernels: members of a return
// value, typed by the function's DWARF return type, are read through
// +OFF($retval) on every kernel (6.1 has no BTF arguments): the name
// getname_flags returned (ls's fstatat), and the name of the dentry
// d_alloc_parallel made for the file the workload creates.
func TestQEMURetvalMembers(t *testing.T) {
	for _, arch := range dupGlobalKernels {
		t.Run(arch, func(t *testing.T) {
			qemutest.NeedQEMU(t, arch)
			vml := dwarftest.NeedCorpus(t, arch+"/vmlinux")
			defs := dwprobeDefs(t, "-k", vml, "-D", "jd_rvname=getname_flags%return $retval->name:string",
				"-D", "jd_rvd=d_alloc_parallel%return $retval->d_name.name:string")
			t.Logf("definitions:\n%s", strings.Join(defs, "\n"))
			g := qemutest.Boot(t, arch, defs, "echo x >/tmp/dwprobe-retval\nls -l /tmp/dwprobe-retval\n", nil)
			if len(g.Rejected) != 0 {
				t.Errorf("rejected %q", g.Rejected)
			}
			for ev, want := range map[string]string{"probe/jd_rvname__return": `"/tmp/dwprobe-retval"`, "probe/jd_rvd__return": `"dwprobe-retval"`} {
				recs := qemutest.FilterEvent(g.Trace, ev)
				found := false
				for _, r := range recs {
					found = found || r.Args["name"] == want
				}
				if !found {
					t.Errorf("%s: %d records, none with name=%s:\n%s", ev, len(recs), want, qemutest.TraceText(recs))
				}
			}
		})
	}
}
