package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs/qemutest"
)

// getnameSpecs are two multi-point probes on getname_flags, which has an
// out-of-line copy, a .part clone and instances inlined into getname,
// getname_uflags and the mkdir/rmdir/unlink/mknod syscalls.
var getnameSpecs = []string{
	// FUNC:0 on a function with inlined instances: a point at each
	// instance's line 0 (the declaration), none shared with another line.
	"gn_line0=getname_flags:0 fn=filename:ustring",
	// flags has no readable location at getname_uflags' instance (its
	// value is a DW_OP_shl of the caller's): that point gets an immediate
	// the kernel must accept, the others the real value.
	"gn_flags=getname_flags fn=filename:ustring fl=flags",
}

const (
	evGnLine0 = "probe/gn_line0"
	evGnFlags = "probe/gn_flags"
)

// getnameCall is one lookup of the workload: the path it passes and the
// flags getname_flags receives (-1: a caller TestKernelGetnameFlags does
// not check, through getname, whose flags are the immediate 0).
type getnameCall struct {
	cmd, path string
	flags     int64
}

// getnameCalls: chdir passes LOOKUP_FOLLOW|LOOKUP_DIRECTORY, chmod
// LOOKUP_FOLLOW (user_path_at, out of line); mkdir, mknod, rmdir, rm and
// cat go through the inlined instances (getname: flags 0).
var getnameCalls = []getnameCall{
	{"mkdir /tmp/gn-dir", "/tmp/gn-dir", 0},
	{"cd /tmp/gn-dir && cd /", "/tmp/gn-dir", 3},
	{"echo x >/tmp/gn-file", "/tmp/gn-file", -1},
	{"chmod 600 /tmp/gn-file", "/tmp/gn-file", 1},
	{"cat /tmp/gn-file >/dev/null", "/tmp/gn-file", -1},
	{"mknod /tmp/gn-fifo p", "/tmp/gn-fifo", 0},
	{"rm /tmp/gn-fifo", "/tmp/gn-fifo", 0},
	{"rmdir /tmp/gn-dir", "/tmp/gn-dir", 0},
}

// TestKernelGetnameFlags boots the amd64 and arm64 corpus kernels with
// getnameSpecs: every definition of both probes must register (FUNC:0 on
// inlined instances; an argument unreadable at one point), and the paths
// and flags the workload passed come back at the points that read them.
func TestKernelGetnameFlags(t *testing.T) {
	for _, arch := range qemutest.Arches {
		t.Run(arch, func(t *testing.T) {
			t.Parallel()
			qemutest.NeedQEMU(t, arch)
			vml := dwarftest.NeedCorpus(t, arch+"/vmlinux")
			defs, perSpec, _ := e2eDefinitions(t, vml, getnameSpecs)
			for _, ev := range []string{"gn_line0", "gn_flags"} {
				if len(perSpec[ev]) < 2 {
					t.Fatalf("%s: %d definitions, want one per instance:\n%s", ev, len(perSpec[ev]), strings.Join(perSpec[ev], "\n"))
				}
			}
			t.Logf("%s: %d definitions:\n%s", arch, len(defs), strings.Join(defs, "\n"))
			var workload strings.Builder
			for _, c := range getnameCalls {
				workload.WriteString(c.cmd + "\n")
			}
			g := qemutest.Boot(t, arch, defs, workload.String(), nil)
			for _, r := range g.Rejected {
				t.Errorf("the kernel rejected a definition:\n%s", r)
			}
			if g.WorkloadExit != 0 {
				t.Errorf("workload exit %d:\n%s", g.WorkloadExit, g.Workload)
			}
			if t.Failed() {
				t.FailNow()
			}
			checkGetnameLine0(t, g.Trace)
			checkGetnameFlags(t, g.Trace, immediates(perSpec["gn_flags"], "fl"))
		})
	}
}

// checkGetnameLine0 checks that the FUNC:0 probe saw every path of the
// workload.
func checkGetnameLine0(t *testing.T, trace []qemutest.Record) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range qemutest.FilterEvent(trace, evGnLine0) {
		seen[r.Args["fn"]] = true
	}
	for _, c := range getnameCalls {
		if !seen[strconv.Quote(c.path)] {
			t.Errorf("%s: no record of %s with fn=%q in\n%s", c.cmd, evGnLine0, c.path, qemutest.TraceText(qemutest.FilterEvent(trace, evGnLine0)))
		}
	}
}

// checkGetnameFlags checks the two-argument probe: each call's path with
// its flags, and, at the points whose definition holds an immediate
// (imm: by point), that immediate. The point without a location for flags
// holds a placeholder, whose value is not checked.
func checkGetnameFlags(t *testing.T, trace []qemutest.Record, imm map[string]string) {
	t.Helper()
	recs := qemutest.FilterEvent(trace, evGnFlags)
	for _, c := range getnameCalls {
		found := false
		for _, r := range recs {
			found = found || r.Args["fn"] == strconv.Quote(c.path) && (c.flags < 0 || r.Args["fl"] == fmt.Sprint(c.flags))
		}
		if !found {
			t.Errorf("%s: no record of %s with fn=%q and fl=%d in\n%s", c.cmd, evGnFlags, c.path, c.flags, qemutest.TraceText(recs))
		}
	}
	for _, r := range recs {
		if v, ok := imm[tracePoint(r.Loc)]; ok && r.Args["fl"] != v {
			t.Errorf("fl=%s at %s, whose definition has the immediate %s:\n%s", r.Args["fl"], r.Loc, v, r.Raw)
		}
	}
}

// immediates returns, by point (SYMBOL+DECIMAL), the immediate value of
// argument name in defs, for the definitions that give it as \IMM, except
// perf's placeholder \deade12d.
func immediates(defs []string, name string) map[string]string {
	m := map[string]string{}
	for _, d := range defs {
		f := strings.Fields(d)
		for _, a := range f[2:] {
			val, ok := strings.CutPrefix(a, name+`=\`)
			if !ok {
				continue
			}
			val, _, _ = strings.Cut(val, ":")
			if n, err := strconv.ParseInt(val, 0, 64); err == nil {
				m[f[1]] = fmt.Sprint(n)
			}
		}
	}
	return m
}

// tracePoint turns a kprobe's location in the trace (getname+0x5/0x20) into
// the SYMBOL+DECIMAL of its definition.
func tracePoint(loc string) string {
	sym, off, ok := strings.Cut(loc, "+")
	if !ok {
		return loc
	}
	off, _, _ = strings.Cut(off, "/")
	n, err := strconv.ParseUint(off, 0, 64)
	if err != nil {
		return loc
	}
	return fmt.Sprintf("%s+%d", sym, n)
}
