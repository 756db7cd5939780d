package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// sepQueries are asked of every form of separate debuginfo; the answers
// must be those of the same program with its DWARF built in.
var sepQueries = [][]string{
	{"-D", "work p->name:string p->id app_counter"},
	{"-D", "work:8 sum"},
	{"-D", "compute%return $retval:s32"},
	{"-D", "item_score"},
	{"-L", "work"},
	{"-V", "work:8"},
}

// sepAnswers runs every query with args and the binary seen as path, the
// path replaced by APP in the answers.
func sepAnswers(t *testing.T, path string, args ...string) []string {
	t.Helper()
	return queryAnswers(t, sepQueries, path, args...)
}

// nsProcess starts a process in a mount namespace of its own where a tmpfs
// over dir holds copies of files (dir is empty outside); it returns its
// pid. The process ends with the test.
func nsProcess(t *testing.T, dir string, files ...string) int {
	t.Helper()
	if os.Geteuid() != 0 {
		dwarftest.Skip(t, "a mount namespace needs root")
	}
	unshare := dwarftest.NeedTool(t, "unshare")
	script := `mount -t tmpfs dwprobe-ns "$1" && shift_dir=$1 && shift && cp "$@" "$shift_dir"/ && echo ready && exec sleep 600`
	cmd := exec.Command(unshare, append([]string{"-m", "--propagation", "private", "sh", "-c", script, "sh", dir}, files...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if l, _ := bufio.NewReader(out).ReadString('\n'); l != "ready\n" {
		t.Fatalf("namespace process: %q", l)
	}
	return cmd.Process.Pid
}

// TestSeparateDebuginfoForms: -D with arguments, -L and -V give the
// answers of the built-in DWARF build for each place separate debuginfo
// is found: .gnu_debuglink beside the binary, in .debug/, under
// /usr/lib/debug/DIR of a --symfs root, perf's build-id cache (by
// build-id in $PERF_BUILDID_DIR, by path in ~/.debug),
// $DWPROBE_DEBUGINFO_PATH, and a binary inside a container's mount
// namespace (--target-ns) found through its debuglink.
func TestSeparateDebuginfoForms(t *testing.T) {
	whole := fixture(t, "app-gcc-O2-dwarf5")
	link := fixture(t, "app-gcc-O2-debuglink")
	linkDbg := filepath.Join(filepath.Dir(link), "debuglink", "app-gcc-O2-debuglink.debug")
	split, bid, splitDbg := dwarftest.SplitDebug(t, filepath.Dir(link))
	t.Setenv("PERF_BUILDID_DIR", t.TempDir()) // not the host's ~/.debug

	base := t.TempDir()
	dwarftest.PlaceFile(t, whole, filepath.Join(base, "app"))
	want := sepAnswers(t, filepath.Join(base, "app"), "-x", filepath.Join(base, "app"))

	forms := []struct {
		name  string
		setup func(t *testing.T, dir string) (path string, args []string)
	}{
		{"debuglink beside", func(t *testing.T, dir string) (string, []string) {
			dwarftest.PlaceFile(t, link, filepath.Join(dir, "app"))
			dwarftest.PlaceFile(t, linkDbg, filepath.Join(dir, filepath.Base(linkDbg)))
			return filepath.Join(dir, "app"), []string{"-x", filepath.Join(dir, "app")}
		}},
		{"debuglink .debug", func(t *testing.T, dir string) (string, []string) {
			dwarftest.PlaceFile(t, link, filepath.Join(dir, "app"))
			dwarftest.PlaceFile(t, linkDbg, filepath.Join(dir, ".debug", filepath.Base(linkDbg)))
			return filepath.Join(dir, "app"), []string{"-x", filepath.Join(dir, "app")}
		}},
		{"debuglink global, --symfs", func(t *testing.T, dir string) (string, []string) {
			dwarftest.PlaceFile(t, link, filepath.Join(dir, "usr/bin/app"))
			dwarftest.PlaceFile(t, linkDbg, filepath.Join(dir, "usr/lib/debug/usr/bin", filepath.Base(linkDbg)))
			return "/usr/bin/app", []string{"--symfs", dir, "-x", "/usr/bin/app"}
		}},
		{"perf build-id cache", func(t *testing.T, dir string) (string, []string) {
			dwarftest.PlaceFile(t, split, filepath.Join(dir, "app"))
			dwarftest.PlaceFile(t, splitDbg, filepath.Join(os.Getenv("PERF_BUILDID_DIR"), ".build-id", bid[:2], bid[2:], "debug"))
			return filepath.Join(dir, "app"), []string{"-x", filepath.Join(dir, "app")}
		}},
		{"~/.debug by path", func(t *testing.T, dir string) (string, []string) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("PERF_BUILDID_DIR", "")
			app := filepath.Join(dir, "app")
			dwarftest.PlaceFile(t, split, app)
			dwarftest.PlaceFile(t, splitDbg, filepath.Join(home, ".debug", app, bid, "debug"))
			return app, []string{"-x", app}
		}},
		{"DWPROBE_DEBUGINFO_PATH", func(t *testing.T, dir string) (string, []string) {
			dwarftest.PlaceFile(t, split, filepath.Join(dir, "app"))
			t.Setenv("DWPROBE_DEBUGINFO_PATH", filepath.Join(filepath.Dir(split), "debug"))
			return filepath.Join(dir, "app"), []string{"-x", filepath.Join(dir, "app")}
		}},
		{"--target-ns", func(t *testing.T, dir string) (string, []string) {
			stage := t.TempDir()
			dwarftest.PlaceFile(t, link, filepath.Join(stage, "app"))
			pid := nsProcess(t, dir, filepath.Join(stage, "app"), linkDbg)
			p := "/proc/" + strconv.Itoa(pid) + "/root" + dir + "/app"
			return p, []string{"--target-ns", strconv.Itoa(pid), "-x", dir + "/app"}
		}},
	}
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			path, args := f.setup(t, t.TempDir())
			got := sepAnswers(t, path, args...)
			for i, q := range sepQueries {
				if got[i] != want[i] {
					t.Errorf("%v:\n%s\nbuilt in:\n%s", q, got[i], want[i])
				}
			}
		})
	}
}

// TestSeparateDebuginfoRefused: each bad input is one line with exit 4:
// a debuglink of another CRC, debuginfo of another build-id, no
// debuginfo anywhere (every place named), a --target-ns process that
// does not exist, a -x missing under --symfs.
func TestSeparateDebuginfoRefused(t *testing.T) {
	link := fixture(t, "app-gcc-O2-debuglink")
	linkDbg := filepath.Join(filepath.Dir(link), "debuglink", "app-gcc-O2-debuglink.debug")
	split, bid, _ := dwarftest.SplitDebug(t, filepath.Dir(link))
	t.Setenv("PERF_BUILDID_DIR", t.TempDir())
	dir := t.TempDir()
	dwarftest.PlaceFile(t, link, filepath.Join(dir, "crc/app"))
	dwarftest.PlaceFile(t, linkDbg, filepath.Join(dir, "crc", filepath.Base(linkDbg)))
	fh, err := os.OpenFile(filepath.Join(dir, "crc", filepath.Base(linkDbg)), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.Write([]byte("x"))
	fh.Close()
	tree := filepath.Join(dir, "tree")
	dwarftest.PlaceFile(t, linkDbg, filepath.Join(tree, ".build-id", bid[:2], bid[2:]+".debug"))
	dwarftest.PlaceFile(t, link, filepath.Join(dir, "none/app"))

	for _, c := range []struct {
		name string
		env  string
		args []string
		want []string
	}{
		{"debuglink CRC", "", []string{"-x", filepath.Join(dir, "crc/app")}, []string{"CRC", filepath.Base(linkDbg)}},
		{"build-id mismatch", tree, []string{"-x", split}, []string{bid, "does not match"}},
		{"nowhere", "", []string{"-x", filepath.Join(dir, "none/app")}, []string{filepath.Join(dir, "none/app-gcc-O2-debuglink.debug"), "/usr/lib/debug" + dir + "/none/", ".debug/app-gcc-O2-debuglink.debug"}},
		{"no such process", "", []string{"--target-ns", "999999999", "-x", "/bin/true"}, []string{"--target-ns 999999999"}},
		{"not under --symfs", "", []string{"--symfs", dir, "-x", "/usr/bin/app"}, []string{"/usr/bin/app under " + dir}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("DWPROBE_DEBUGINFO_PATH", c.env)
			_, _, err := dw(append(c.args, "-V", "work")...)
			if err == nil || exitCode(err) != exitInput {
				t.Fatalf("err %v (exit %d); want exit %d", err, exitCode(err), exitInput)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("more than one line: %q", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not name %q", msg, w)
				}
			}
		})
	}
}

// TestTargetNSLive adds a uprobe with --target-ns on a program at a path
// that exists only inside a mount namespace (its debuginfo beside it,
// through .gnu_debuglink), runs the program inside that namespace, and
// checks what it traced against what it printed.
func TestTargetNSLive(t *testing.T) {
	fsys := needLive(t)
	t.Setenv("PERF_BUILDID_DIR", t.TempDir())
	nsenter := dwarftest.NeedTool(t, "nsenter")
	want, err := os.ReadFile("../../testdata/fixtures/app.expected")
	if err != nil {
		t.Fatal(err)
	}
	link := fixture(t, "app-gcc-O2-debuglink")
	stage, dir := t.TempDir(), t.TempDir()
	dwarftest.PlaceFile(t, link, filepath.Join(stage, "app"))
	pid := strconv.Itoa(nsProcess(t, dir, filepath.Join(stage, "app"), filepath.Join(filepath.Dir(link), "debuglink", "app-gcc-O2-debuglink.debug")))
	if _, err := os.Stat(filepath.Join(dir, "app")); err == nil {
		t.Fatalf("%s/app is visible outside the namespace", dir)
	}
	g := liveGroup(t, fsys, "targetns")
	in := newInstance(t, fsys, g)
	if _, stderr, err := dw("--target-ns", pid, "-x", dir+"/app", "-a", g+":entry=work p->name:string p->id"); err != nil {
		t.Fatalf("-a: %v\n%s", err, stderr)
	}
	in.enable(t, g, true)
	cmd := exec.Command(nsenter, "-t", pid, "-m", dir+"/app")
	out, err := cmd.Output()
	if err != nil || string(out) != string(want) {
		t.Fatalf("app in the namespace: %v\n%s", err, out)
	}
	p := parsePrinted(string(want))
	evs := in.events(t, cmd.Process.Pid)
	if len(evs) != len(p.work) || len(evs) == 0 {
		t.Fatalf("%d hits, want %d: %v", len(evs), len(p.work), evs)
	}
	for i, e := range evs {
		if e.args["name"] != p.work[i]["name"] || e.args["id"] != p.work[i]["id"] {
			t.Errorf("hit %d: traced %v, printed %v", i, e.args, p.work[i])
		}
	}
}
