package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs"
)

// The live tests add uprobes on this host's kernel with dwprobe -a, run the
// probed program and compare what the probes fetched with what the
// program printed. They need root and uprobe_events; without them they
// skip, saying why, except under make test (DWPROBE_REQUIRE_ALL=1), where
// that is a failure. Every test uses groups of its own (dwtest_PID_…),
// traces into a tracing instance of its own, probes a private copy of the
// binary and deletes its events however it ends.

// needLive returns the host's tracefs, or skips (fails under make test).
func needLive(t *testing.T) *tracefs.FS {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		dwarftest.Skip(t, "live uprobe test: "+format, args...)
	}
	if os.Geteuid() != 0 {
		fail("needs root to write uprobe_events")
	}
	fsys, err := tracefs.Find()
	if err != nil {
		fail("no tracefs: %v", err)
	}
	if _, err := fsys.List(tracefs.UProbe); err != nil {
		fail("no uprobes: %v", err)
	}
	return fsys
}

// liveGroup returns a group name for this test and deletes its events
// when the test ends.
func liveGroup(t *testing.T, fsys *tracefs.FS, tag string) string {
	t.Helper()
	group := fmt.Sprintf("dwtest_%d_%s", os.Getpid(), tag)
	t.Cleanup(func() {
		if _, err := fsys.Delete(tracefs.UProbe, []string{group + ":*"}); err != nil && !errors.Is(err, tracefs.ErrNoMatch) {
			t.Errorf("cleanup of %s: %v", group, err)
		}
	})
	return group
}

// instance is a tracing instance of the test's own, so that no other
// tracing on the host and no other test mixes into what it reads.
type instance struct{ dir string }

func newInstance(t *testing.T, fsys *tracefs.FS, name string) *instance {
	t.Helper()
	dir := filepath.Join(fsys.Root(), "instances", name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatalf("tracing instance: %v", err)
	}
	// Each line names its thread group too: a Go program's goroutines run
	// on threads other than the process's first, whose pid the tests know.
	if err := os.WriteFile(filepath.Join(dir, "options", "record-tgid"), []byte("1\n"), 0o644); err != nil {
		t.Fatalf("tracing instance: %v", err)
	}
	t.Cleanup(func() {
		// Disabled first: the events can't be deleted while enabled.
		os.WriteFile(filepath.Join(dir, "events", "enable"), []byte("0\n"), 0o644)
		if err := os.Remove(dir); err != nil {
			t.Errorf("removing tracing instance: %v", err)
		}
	})
	return &instance{dir}
}

// enable turns the events of group on or off in the instance.
func (in *instance) enable(t *testing.T, group string, on bool) {
	t.Helper()
	v := "0\n"
	if on {
		v = "1\n"
	}
	if err := os.WriteFile(filepath.Join(in.dir, "events", group, "enable"), []byte(v), 0o644); err != nil {
		t.Fatal(err)
	}
}

// traced is one event in the trace.
type traced struct {
	event string
	args  map[string]string // strings without their quotes
}

var (
	// TASK-PID, then (TGID) when record-tgid is on.
	traceLine = regexp.MustCompile(`^\s*(.*)-(\d+)\s+(?:\(\s*([\d-]+)\)\s+)?\[\d+\][^:]*:\s+(\w+):\s+\(0x[0-9a-f]+(?: <- 0x[0-9a-f]+)?\)(.*)$`)
	traceArg  = regexp.MustCompile(`(\w+)=("[^"]*"|\S+)`)
)

// events returns what process pid (any of its threads) traced into the
// instance, in order.
func (in *instance) events(t *testing.T, pid int) []traced {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(in.dir, "trace"))
	if err != nil {
		t.Fatal(err)
	}
	var out []traced
	for _, l := range strings.Split(string(b), "\n") {
		m := traceLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if proc := m[3]; proc != strconv.Itoa(pid) && (proc != "" || m[2] != strconv.Itoa(pid)) {
			continue
		}
		ev := traced{event: m[4], args: map[string]string{}}
		for _, a := range traceArg.FindAllStringSubmatch(m[5], -1) {
			ev.args[a[1]] = strings.Trim(a[2], `"`)
		}
		out = append(out, ev)
	}
	return out
}

// printed is the app fixture's output, by line kind.
type printed struct {
	version string
	work    []map[string]string // work: p->name=alpha id=3 sum=42
	items   []map[string]string // main: i=0 name=alpha ival=7 …
	compute []map[string]string // main: i=0 compute=123 …
	geo     []map[string]string // geometry: name=alpha area=20 …
	cks     []map[string]string // util_checksum: s=alpha c=27691
}

func parsePrinted(out string) printed {
	var p printed
	kv := func(l string) map[string]string {
		m := map[string]string{}
		for _, a := range traceArg.FindAllStringSubmatch(l, -1) {
			m[a[1]] = a[2]
		}
		return m
	}
	for _, l := range strings.Split(out, "\n") {
		switch m := kv(l); {
		case strings.HasPrefix(l, "main: version="):
			p.version = m["version"]
		case strings.HasPrefix(l, "work: "):
			p.work = append(p.work, m)
		case strings.HasPrefix(l, "main: ") && m["ival"] != "":
			p.items = append(p.items, m)
		case strings.HasPrefix(l, "main: ") && m["compute"] != "":
			p.compute = append(p.compute, m)
		case strings.HasPrefix(l, "geometry: "):
			p.geo = append(p.geo, m)
		case strings.HasPrefix(l, "util_checksum: "):
			p.cks = append(p.cks, m)
		}
	}
	return p
}

// copyBinary copies a fixture to a private path: uprobes fire in every
// process that maps the probed file, and other test binaries run the
// fixtures too.
func copyBinary(t *testing.T, src string) string {
	t.Helper()
	return dwarftest.CopyFile(t, src, filepath.Join(t.TempDir(), "app"), 0o755)
}

// TestUprobeLive adds probes with line numbers, locals, members through
// pointers, strings, globals, bitfields and $retval to the app fixture of
// each compiler at -O0 and -O2, runs it, and checks every traced value
// against the program's own output.
func TestUprobeLive(t *testing.T) {
	fsys := needLive(t)
	want, err := os.ReadFile("../../testdata/fixtures/app.expected")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"app-gcc-O0-dwarf5", "app-gcc-O2-dwarf5", "app-clang-O0-dwarf5", "app-clang-O2-dwarf5"} {
		t.Run(name, func(t *testing.T) {
			app := copyBinary(t, fixture(t, name))
			tag := strings.NewReplacer("app-", "", "-dwarf5", "", "-", "_").Replace(name)
			g := liveGroup(t, fsys, tag)
			in := newInstance(t, fsys, g)
			specs := []string{
				g + ":entry=work p->name:string p->id app_counter",
				g + ":line=work:8 sum app_counter",
				g + ":ret=work%return $retval:s32", // perf names it ret__return
				g + ":geo=geometry it->name:string it->flags it->kind it->delta it->ival it->uval it->raw[0] " +
					"minx=it->box.min.x maxx=it->box.max.x miny=it->box.min.y maxy=it->box.max.y",
				g + ":cks=util_checksum s:string",
				g + ":cksret=util_checksum%return $retval:s32",
				g + ":cmp=compute%return $retval:s32",
				g + ":ver=report app_version:string",
			}
			args := []string{"-x", app}
			for _, s := range specs {
				args = append(args, "-a", s)
			}
			_, errOut, err := dw(args...)
			if err != nil {
				t.Fatalf("dwprobe -a: %v\n%s", err, errOut)
			}
			if !strings.Contains(errOut, "Added new events:\n  "+g+":entry ") {
				t.Errorf("-a output:\n%s", errOut)
			}
			// -l maps probes back to source lines (clang writes no
			// .debug_aranges; dwprobe uses the units' ranges, perf shows
			// symbol+offset there).
			at := "(on work:8@"
			list, _, err := dw("-l", g+":*")
			if err != nil || strings.Count(list, "\n") != len(specs) || !strings.Contains(list, "  "+g+":line "+at) {
				t.Errorf("-l %s:*: %v\n%s", g, err, list)
			}
			in.enable(t, g, true)

			pid := runPrinting(t, app, want)
			p := parsePrinted(string(want))
			byEvent := map[string][]map[string]string{}
			for _, e := range in.events(t, pid) {
				byEvent[e.event] = append(byEvent[e.event], e.args)
			}
			check := func(event string, n int, f func(i int, a map[string]string) []string) {
				t.Helper()
				got := byEvent[event]
				if len(got) != n {
					t.Errorf("%s: %d hits, want %d: %v", event, len(got), n, got)
					return
				}
				for i, a := range got {
					if pairs := f(i, a); len(pairs) > 0 {
						for j := 0; j+1 < len(pairs); j += 2 {
							if pairs[j] != pairs[j+1] {
								t.Errorf("%s hit %d: traced %s, printed %s (%v)", event, i, pairs[j], pairs[j+1], a)
							}
						}
					}
				}
			}
			n := len(p.work)
			if n != 4 || len(p.items) != n || len(p.geo) != n || len(p.cks) != n || len(p.compute) != n {
				t.Fatalf("unexpected program output:\n%s", want)
			}
			check("entry", n, func(i int, a map[string]string) []string {
				return []string{a["name"], p.work[i]["name"], a["id"], p.work[i]["id"], a["app_counter"], strconv.Itoa(i)}
			})
			check("line", n, func(i int, a map[string]string) []string {
				return []string{a["sum"], p.work[i]["sum"], a["app_counter"], strconv.Itoa(i + 1)}
			})
			check("ret__return", n, func(i int, a map[string]string) []string {
				return []string{a["arg1"], p.work[i]["sum"]}
			})
			check("geo", n, func(i int, a map[string]string) []string {
				it := p.items[i]
				area := num(t, a["maxx"], a["minx"], a["maxy"], a["miny"])
				// The kernel fetches bitfields unsigned: delta=-3 is 61 in 6 bits.
				delta, _ := strconv.Atoi(it["delta"])
				uval, _ := strconv.ParseUint(it["uval"], 10, 32)
				raw0, _ := strconv.ParseUint(it["raw0"], 10, 8)
				return []string{
					a["name"], it["name"], a["flags"], it["flags"], a["kind"], it["kind"],
					a["delta"], strconv.Itoa(delta & 63), a["ival"], it["ival"],
					a["uval"], "0x" + strconv.FormatUint(uval, 16), a["raw"], "0x" + strconv.FormatUint(raw0, 16),
					area, p.geo[i]["area"],
				}
			})
			check("cks", n, func(i int, a map[string]string) []string {
				return []string{a["s_string"], p.cks[i]["s"]}
			})
			check("cksret__return", n, func(i int, a map[string]string) []string {
				return []string{a["arg1"], p.cks[i]["c"]}
			})
			check("cmp__return", n, func(i int, a map[string]string) []string {
				return []string{a["arg1"], p.compute[i]["compute"]}
			})
			check("ver", n, func(i int, a map[string]string) []string {
				return []string{a["app_version_string"], p.version}
			})

			// -d takes them all away, from uprobe_events and events/
			// (an event enabled in an instance is busy: -d disables only
			// the top-level enable, as perf does).
			in.enable(t, g, false)
			_, errOut, err = dw("-d", g+":*")
			if err != nil || strings.Count(errOut, "Removed event: "+g+":") != len(specs) {
				t.Errorf("-d %s:*: %v\n%s", g, err, errOut)
			}
			noneLeft(t, fsys, g)
		})
	}
}

// num computes (maxx-minx)*(maxy-miny) from traced decimal strings.
func num(t *testing.T, maxx, minx, maxy, miny string) string {
	t.Helper()
	var v [4]int
	for i, s := range []string{maxx, minx, maxy, miny} {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Errorf("traced %q: %v", s, err)
		}
		v[i] = n
	}
	return strconv.Itoa((v[0] - v[1]) * (v[2] - v[3]))
}

// TestApplyLive: on the real uprobe_events, one definition the kernel
// refuses among ten (a missing binary) leaves none of them, and a name with a newline is
// refused before anything is written.
func TestApplyLive(t *testing.T) {
	fsys := needLive(t)
	app := copyBinary(t, fixture(t, "app-gcc-O2-dwarf5"))
	g := liveGroup(t, fsys, "apply")
	defs, _, err := dw("-x", app, "-D", "work p->id")
	if err != nil {
		t.Fatal(err)
	}
	_, target, _ := strings.Cut(strings.TrimSpace(defs), " ")
	var lines []string
	for i := range 10 {
		l := fmt.Sprintf("p:%s/e%d %s", g, i, target)
		if i == 6 {
			// Valid offline; the kernel finds no such file.
			l = fmt.Sprintf("p:%s/e%d /nonexistent/dwprobe:0x10 x=%%di", g, i)
		}
		lines = append(lines, l)
	}
	file := filepath.Join(t.TempDir(), "defs.txt")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(fsys.Root(), "uprobe_events"))
	if err != nil {
		t.Fatal(err)
	}
	_, errOut, err := dw("--apply", file)
	if err == nil || !strings.Contains(err.Error(), file+":7: the kernel refused uprobe") || !strings.Contains(err.Error(), "nothing was added") {
		t.Errorf("--apply with a missing binary: %v", err)
	}
	// The kernel's reason, with the caret under the file.
	if !caretAt(errOut, "/nonexistent/") {
		t.Errorf("stderr:\n%s", errOut)
	} else {
		t.Logf("stderr:\n%s%v", errOut, err)
	}
	noneLeft(t, fsys, g)
	if _, err := os.Stat(filepath.Join(fsys.Root(), "events", g)); err == nil {
		t.Errorf("events/%s left", g)
	}

	for _, spec := range []string{g + ":e\nx=work", g + ":e=work x=p->id\n", g + ":e\x00=work"} {
		if _, _, err := dw("-x", app, "-a", spec); err == nil {
			t.Errorf("-a %q accepted", spec)
		}
	}
	after, err := os.ReadFile(filepath.Join(fsys.Root(), "uprobe_events"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("uprobe_events changed:\n%s\nto\n%s", before, after)
	}
}

// TestPerfShellUprobeFromDifferentCU runs perf's own shell test
// tools/perf/tests/shell/test_uprobe_from_different_cu.sh (it builds a
// program with gcc -flto and probes a function of another unit) with
// "perf probe" running dwprobe.
func TestPerfShellUprobeFromDifferentCU(t *testing.T) {
	needLive(t)
	script := dwarftest.NeedCorpus(t, "linux/tools/perf/tests/shell/test_uprobe_from_different_cu.sh")
	if _, err := exec.LookPath("gcc"); err != nil {
		dwarftest.Skip(t, "live uprobe test: no gcc for the script to build its program with")
	}
	bin := dwprobeBin(t)
	dir := t.TempDir()
	// "perf probe ARGS" runs dwprobe; the script uses no other perf command.
	wrapper := "#!/bin/sh\nif [ \"$1\" = probe ]; then shift; exec " + bin + " \"$@\"; fi\n" +
		"echo \"perf $1: not provided by the dwprobe test wrapper\" >&2; exit 127\n"
	if err := os.WriteFile(filepath.Join(dir, "perf"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script)
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	if !strings.Contains(string(out), "probe_testfile:foo") || !strings.Contains(string(out), "Removed event: probe_testfile:foo") {
		t.Errorf("the script's probe was not added and removed:\n%s", out)
	}
}

// noneLeft fails the test if uprobe_events still lists events of group g.
func noneLeft(t *testing.T, fsys *tracefs.FS, g string) {
	t.Helper()
	evs, err := fsys.List(tracefs.UProbe)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Group == g {
			t.Errorf("left in uprobe_events: %s", e.Raw)
		}
	}
}

// caretAt reports whether stderr has a line with a caret under text in the
// line before it (other lines, such as a note that the lock is being waited
// for, may come first).
func caretAt(stderr, text string) bool {
	lines := strings.Split(stderr, "\n")
	for i := 1; i < len(lines); i++ {
		c := strings.IndexByte(lines[i], '^')
		if c >= 0 && c < len(lines[i-1]) && strings.HasPrefix(lines[i-1][c:], text) {
			return true
		}
	}
	return false
}
