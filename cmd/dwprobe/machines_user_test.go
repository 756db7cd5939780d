package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs/qemutest"
)

// userMachineSpecs are the uprobes TestKernelMachines has dwprobe define
// on each machine's static app fixture (issue 36), with OPT_ before each
// event name (one group, and the trace names events without theirs):
// entry arguments with a member through a pointer, a line's locals
// (sum_list:7, where sc holds the item's score on every build), a return
// value, a member chain with three bitfields, a string argument,
// compute's three register or stack arguments with its return value, and
// a global and a global string (@+FILEOFFSET, which kernels before
// 6.12.96 read wrong: foffsetDoubled).
var userMachineSpecs = []string{
	"entry=work p->name:string p->id",
	"line=sum_list:7 sc it->name:string",
	"ret=work%return $retval:s32",
	"geo=geometry it->name:string it->flags it->kind it->delta " +
		"minx=it->box.min.x maxx=it->box.max.x miny=it->box.min.y maxy=it->box.max.y",
	"cks=util_checksum s:string",
	"cmp=compute a b c",
	"cmpret=compute%return $retval:s32",
	"glob=report app_counter app_version:string",
}

// foffsetDoubled reports a kernel release that adds a uprobe's
// @+FILEOFFSET twice ("tracing/probes: Fix double addition of offset for
// @+FOFFSET", in 6.12.96): only @+0 reads right there. The corpus's
// ppc64el and s390x kernels are 6.12.95 (Debian 12's backport): their
// guests read the probe's page right (@+0) and every global 0 or
// "(fault)", as the same definitions read right on 6.12.117 (riscv64),
// 6.12.118 (amd64) and the host.
func foffsetDoubled(release string) bool {
	var sub int
	if _, err := fmt.Sscanf(release, "6.12.%d", &sub); err != nil {
		return false
	}
	return sub < 96
}

// userMachineGroup is the uprobes' group in the guests.
const userMachineGroup = "umach"

// userBuilds are the app builds each machine's guest runs.
var userBuilds = []string{"O0", "O2"}

// userMachineDefs resolves userMachineSpecs on the app fixture built for
// machine at opt, with the binary's path in each definition replaced by
// guest, where the guest finds it.
func userMachineDefs(t *testing.T, bin, guest, opt string) []string {
	t.Helper()
	var defs []string
	for _, spec := range userMachineSpecs {
		spec = userMachineGroup + ":" + opt + "_" + spec
		var out, errb bytes.Buffer
		if err := run(context.Background(), []string{"-x", bin, "-D", spec}, &out, &errb); err != nil {
			t.Fatalf("dwprobe -x %s -D %q: %v\n%s", bin, spec, err, errb.String())
		}
		for _, d := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			defs = append(defs, strings.ReplaceAll(d, bin+":", guest+":"))
		}
	}
	return defs
}

// addUserMachine puts machine's app builds in the guest (extra) and
// returns the workload lines that register their uprobe definitions in
// uprobe_events, one write each (a refused one reported with the
// kernel's error_log), run each build with them enabled and print its
// output, each line after "appOPT| ".
func addUserMachine(t *testing.T, key string, extra map[string]string) string {
	t.Helper()
	machine := path.Base(key)
	opts := userBuilds
	const u = "/sys/kernel/tracing"
	var w strings.Builder
	w.WriteString("echo \"uprobes-begin $(cut -d' ' -f1 /proc/uptime)\"\n: >" + u + "/error_log\n")
	var run strings.Builder
	for _, opt := range opts {
		bin := dwarftest.CrossFixture(t, "../..", machine, opt)
		guest := "/bin/app" + opt
		extra[guest] = bin
		defs := userMachineDefs(t, bin, guest, opt)
		t.Logf("%s %s: %d uprobe definitions:\n%s", machine, opt, len(defs), strings.Join(defs, "\n"))
		for _, d := range defs {
			// Definitions hold no single quote.
			fmt.Fprintf(&w, "echo '%s' >>%s/uprobe_events || { echo 'UPROBE-REJECT %s'; cat %s/error_log; }\n", d, u, d, u)
		}
		fmt.Fprintf(&run, "%s >/tmp/app%s.out; echo \"app%s exit $?\"\nsed 's/^/app%s| /' /tmp/app%s.out\n", guest, opt, opt, opt, opt)
	}
	fmt.Fprintf(&w, "echo 1 >%s/events/%s/enable || echo 'UPROBE-REJECT enabling the group'\n", u, userMachineGroup)
	w.WriteString(run.String())
	fmt.Fprintf(&w, "echo 0 >%s/events/%s/enable\necho \"uprobes-end $(cut -d' ' -f1 /proc/uptime)\"\n", u, userMachineGroup)
	return w.String()
}

// checkUserMachine checks the uprobe records of each build of the app
// the guest ran against what that run printed (s390x's differs from
// app.expected where the app prints a union's bytes: big-endian).
func checkUserMachine(t *testing.T, key string, g *qemutest.Guest) {
	t.Helper()
	machine := path.Base(key)
	globals := !foffsetDoubled(dwarftest.CorpusRelease(t, key))
	if !globals {
		t.Logf("%s: %s adds @+FILEOFFSET twice (fixed in 6.12.96): the globals are not checked", key, dwarftest.CorpusRelease(t, key))
	}
	if strings.Contains(g.Workload, "UPROBE-REJECT") {
		t.Errorf("%s: uprobe definitions refused:\n%s", machine, g.Workload)
	}
	t.Logf("%s: the uprobe part of the workload took %.1f s of guest time", machine,
		guestUptime(g.Workload, "uprobes-end")-guestUptime(g.Workload, "uprobes-begin"))
	for _, opt := range userBuilds {
		out := guestOutput(g.Workload, "app"+opt+"| ")
		if !strings.Contains(g.Workload, "app"+opt+" exit 0\n") || out == "" {
			t.Errorf("%s: app%s did not run:\n%s", machine, opt, g.Workload)
			continue
		}
		p := parsePrinted(out)
		scores := printedScores(out)
		byEvent := map[string][]map[string]string{}
		for _, r := range g.Trace {
			if ev, ok := strings.CutPrefix(r.Event, opt+"_"); ok && r.Task == "app"+opt {
				byEvent[ev] = append(byEvent[ev], r.Args)
			}
		}
		var hits []string
		for _, ev := range slices.Sorted(maps.Keys(byEvent)) {
			hits = append(hits, fmt.Sprintf("%s %d (first %v)", ev, len(byEvent[ev]), byEvent[ev][0]))
		}
		t.Logf("%s app%s uprobe hits: %s", machine, opt, strings.Join(hits, "; "))
		for _, m := range userMachineMismatches(p, scores, byEvent, globals) {
			t.Errorf("%s app%s: %s", machine, opt, m)
		}
		if t.Failed() {
			t.Logf("%s app%s trace:\n%s", machine, opt, qemutest.TraceText(g.Trace))
		}
	}
}

// guestUptime is the uptime the workload printed after marker, 0 if none.
func guestUptime(workload, marker string) float64 {
	var v float64
	if i := strings.Index(workload, marker+" "); i >= 0 {
		fmt.Sscanf(workload[i+len(marker)+1:], "%g", &v)
	}
	return v
}

// guestOutput is the lines of workload that start with prefix, without
// it: what one program printed.
func guestOutput(workload, prefix string) string {
	var b strings.Builder
	for _, l := range strings.Split(workload, "\n") {
		if rest, ok := strings.CutPrefix(l, prefix); ok {
			b.WriteString(rest + "\n")
		}
	}
	return b.String()
}

// printedScores are sum_list's lines of the app's output: each item's
// name and score, in list order.
func printedScores(out string) []map[string]string {
	var s []map[string]string
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "sum_list: n="); ok {
			m := map[string]string{}
			for _, a := range traceArg.FindAllStringSubmatch("n="+rest, -1) {
				m[a[1]] = a[2]
			}
			s = append(s, m)
		}
	}
	return s
}

// userMachineMismatches compares the traced values of each event of
// userMachineSpecs (byEvent, without the OPT_ prefix, in trace order)
// with the app's printed values p and scores, the globals' only if
// globals, and says what differs.
func userMachineMismatches(p printed, scores []map[string]string, byEvent map[string][]map[string]string, globals bool) []string {
	var bad []string
	unq := func(s string) string { return strings.Trim(s, `"`) }
	check := func(event string, n int, f func(i int, a map[string]string) []string) {
		got := byEvent[event]
		if len(got) != n {
			bad = append(bad, fmt.Sprintf("%s: %d hits, want %d: %v", event, len(got), n, got))
			return
		}
		if f == nil {
			return
		}
		for i, a := range got {
			pairs := f(i, a)
			for j := 0; j+1 < len(pairs); j += 2 {
				if pairs[j] != pairs[j+1] {
					bad = append(bad, fmt.Sprintf("%s hit %d: traced %q, printed %q (%v)", event, i, pairs[j], pairs[j+1], a))
				}
			}
		}
	}
	n := len(p.work)
	check("entry", n, func(i int, a map[string]string) []string {
		return []string{unq(a["name"]), p.work[i]["name"], a["id"], p.work[i]["id"]}
	})
	check("line", len(scores), func(i int, a map[string]string) []string {
		return []string{unq(a["name"]), scores[i]["name"], a["sc"], scores[i]["score"]}
	})
	check("ret__return", n, func(i int, a map[string]string) []string {
		return []string{a["arg1"], p.work[i]["sum"]}
	})
	check("geo", len(p.geo), func(i int, a map[string]string) []string {
		it := p.items[i]
		// The kernel fetches bitfields unsigned: delta=-3 is 61 in 6 bits.
		delta, _ := strconv.Atoi(it["delta"])
		return []string{unq(a["name"]), it["name"], a["flags"], it["flags"], a["kind"], it["kind"],
			a["delta"], strconv.Itoa(delta & 63), area(a), p.geo[i]["area"]}
	})
	check("cks", len(p.cks), func(i int, a map[string]string) []string {
		return []string{unq(a["s_string"]), p.cks[i]["s"]}
	})
	cmps := byEvent["cmp"]
	check("cmpret__return", len(p.compute), func(i int, a map[string]string) []string {
		pairs := []string{a["arg1"], p.compute[i]["compute"]}
		if i < len(cmps) {
			pairs = append(pairs, a["arg1"], computed(cmps[i]))
		}
		return pairs
	})
	check("cmp", len(p.compute), nil)
	check("glob", n, func(i int, a map[string]string) []string {
		if !globals {
			return nil
		}
		// work, which counts, runs before report for each item.
		return []string{a["app_counter"], strconv.Itoa(i + 1), unq(a["app_version_string"]), p.version}
	})
	return bad
}

// area is (maxx-minx)*(maxy-miny) of a geo record, "" when one is not a
// number.
func area(a map[string]string) string {
	var v [4]int
	for i, k := range []string{"maxx", "minx", "maxy", "miny"} {
		n, err := strconv.Atoi(a[k])
		if err != nil {
			return ""
		}
		v[i] = n
	}
	return strconv.Itoa((v[0] - v[1]) * (v[2] - v[3]))
}

// computed is compute(a, b, c) of a cmp record's traced arguments,
// a*b+c-(a^c) in C's int.
func computed(a map[string]string) string {
	var v [3]int32
	for i, k := range []string{"a", "b", "c"} {
		n, err := strconv.ParseInt(a[k], 10, 32)
		if err != nil {
			return ""
		}
		v[i] = int32(n)
	}
	return strconv.Itoa(int(v[0]*v[1] + v[2] - (v[0] ^ v[2])))
}

func TestFoffsetDoubled(t *testing.T) {
	for rel, want := range map[string]bool{
		"6.12.95+deb12-powerpc64le": true, "6.12.95+deb12-s390x": true, "6.12.9": true,
		"6.12.96": false, "6.12.117+deb13-riscv64": false, "6.12.118+deb13-cloud-amd64": false,
		"7.3.4+deb13-amd64": false, "6.1.0-57-cloud-amd64": false,
	} {
		if got := foffsetDoubled(rel); got != want {
			t.Errorf("foffsetDoubled(%q) = %v, want %v", rel, got, want)
		}
	}
}
