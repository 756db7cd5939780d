package main

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// gcc's location views: the views fixture's inlined vw_fixup(off, phys)
// has its parameters described only at its entry, [X, X) with views,
// once at the entry of vw_setup and once in the middle of vw_again. perf
// 6.1 (and dwprobe before it read views) says they are optimized out.

// viewsFixtures are the fixture in each encoding of views: DWARF 5 and 4
// with DW_AT_GNU_locviews, DWARF 5 with DW_LLE_GNU_view_pair.
var viewsFixtures = []string{"views-gcc-O2-dwarf5", "views-gcc-O2-dwarf4", "views-gcc-O2-incompat5"}

var viewsDef = regexp.MustCompile(`^p:probe_[\w-]+/vw_fixup \S+:0x[0-9a-f]+ off=%\w+:x64 phys=%\w+:x64$`)

// TestViewsDefineAndList: -D writes both parameters as registers at both
// inlined instances and -V lists them there.
func TestViewsDefineAndList(t *testing.T) {
	for _, name := range viewsFixtures {
		t.Run(name, func(t *testing.T) {
			bin := fixture(t, name)
			out, errOut, err := dw("-x", bin, "-D", "vw_fixup off phys")
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if err != nil || len(lines) != 2 {
				t.Fatalf("-D: %v\n%s%s", err, out, errOut)
			}
			for _, l := range lines {
				if !viewsDef.MatchString(l) {
					t.Errorf("-D: %q: want off and phys in registers", l)
				}
			}
			out, errOut, err = dw("-x", bin, "-V", "vw_fixup")
			if err != nil || strings.Count(out, "\t@<") != 2 || strings.Count(out, "\t\tlong unsigned int\toff\n") != 2 ||
				strings.Count(out, "\t\tlong unsigned int\tphys\n") != 2 || strings.Contains(errOut, "optimized out") {
				t.Errorf("-V: %v\n%s%s", err, out, errOut)
			}
		})
	}
}

// TestUprobeLiveViews traces vw_fixup's parameters at both inlined
// instances and compares them with what the program prints.
func TestUprobeLiveViews(t *testing.T) {
	fsys := needLive(t)
	want, err := os.ReadFile("../../testdata/fixtures/views.expected")
	if err != nil {
		t.Fatal(err)
	}
	// vw_setup runs first, then vw_again: the hits come in that order.
	var printed []map[string]string
	for _, l := range strings.Split(string(want), "\n") {
		if m := traceArg.FindAllStringSubmatch(l, -1); strings.Contains(l, " off=") {
			kv := map[string]string{}
			for _, a := range m {
				kv[a[1]] = a[2]
			}
			printed = append(printed, kv)
		}
	}
	if len(printed) != 2 {
		t.Fatalf("views.expected: %d lines with off=, want 2", len(printed))
	}
	for _, name := range viewsFixtures {
		t.Run(name, func(t *testing.T) {
			app := copyBinary(t, fixture(t, name))
			g := liveGroup(t, fsys, strings.NewReplacer("views-gcc-O2-", "views_", "-", "_").Replace(name))
			in := newInstance(t, fsys, g)
			if _, errOut, err := dw("-x", app, "-a", g+":fixup=vw_fixup off=off:u64 phys=phys:u64"); err != nil {
				t.Fatalf("dwprobe -a: %v\n%s", err, errOut)
			}
			in.enable(t, g, true)
			evs := in.events(t, runPrinting(t, app, want))
			if len(evs) != len(printed) {
				t.Fatalf("%d hits, want %d: %v", len(evs), len(printed), evs)
			}
			for i, e := range evs {
				for _, p := range []string{"off", "phys"} {
					if e.args[p] != printed[i][p] {
						t.Errorf("hit %d (%s): traced %s=%s, printed %s", i, e.event, p, e.args[p], printed[i][p])
					}
				}
			}
			in.enable(t, g, false)
			if _, errOut, err := dw("-d", g+":*"); err != nil {
				t.Errorf("-d %s:*: %v\n%s", g, err, errOut)
			}
			noneLeft(t, fsys, g)
		})
	}
}

// runPrinting runs app and fails the test unless it prints want; it
// returns the process id, whose events the trace holds.
func runPrinting(t *testing.T, app string, want []byte) int {
	t.Helper()
	cmd := exec.Command(app)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != string(want) {
		t.Fatalf("%s printed\n%s\nwant\n%s", t.Name(), stdout.String(), want)
	}
	return cmd.Process.Pid
}
