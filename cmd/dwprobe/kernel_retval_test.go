package main

import (
	"testing"

	"github.com/dwprobe/dwprobe/tracefs/qemutest"
)

// retvalSpecs read members of a return value, typed by the function's
// DWARF return type, through +OFF($retval) on every kernel (6.1 has no
// BTF arguments): the name getname_flags returned (ls's fstatat), and
// the name of the dentry d_alloc_parallel made for the file
// retvalWorkload creates. TestQEMUNonUniqueGlobal boots them.
var retvalSpecs = []string{
	"jd_rvname=getname_flags%return $retval->name:string",
	"jd_rvd=d_alloc_parallel%return $retval->d_name.name:string",
}

const retvalWorkload = "echo x >/tmp/dwprobe-retval\nls -l /tmp/dwprobe-retval\n"

// checkRetvalMembers: each of retvalSpecs traced the workload's file.
func checkRetvalMembers(t *testing.T, g *qemutest.Guest) {
	t.Helper()
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
}
