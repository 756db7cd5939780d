package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/tracefstest"
)

// The tests of -a, -d, -l and --apply against a modelled tracefs (package
// tracefstest): what is written, in which order, and what is printed.
// They replace package-level hooks, so none of them runs in parallel.

// fakeTracefs puts a modelled tracefs in place of the system's.
func fakeTracefs(t *testing.T) (*tracefs.FS, *tracefstest.Kernel) {
	t.Helper()
	fsys, k := tracefstest.New(t)
	old := openTracefs
	openTracefs = func() (*tracefs.FS, error) { return fsys, nil }
	t.Cleanup(func() { openTracefs = old })
	return fsys, k
}

// dw runs dwprobe in process.
func dw(args ...string) (stdout, stderr string, err error) {
	var out, errb bytes.Buffer
	err = run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), err
}

// eventWrites returns the commands written to kind's events file.
func eventWrites(k *tracefstest.Kernel, file string) []string {
	var out []string
	for _, w := range k.Writes() {
		if c, ok := strings.CutPrefix(w, file+": "); ok {
			out = append(out, c)
		}
	}
	return out
}

// appSpecs are probes on the app fixture: arguments through pointers,
// a multi-point inline function, a return probe, a named event.
var appSpecs = []string{"work:7 p->name:string p->id", "item_score", "compute%return $retval", "g1:e1=compute c"}

// TestAddWritesDefinitions: -a writes exactly the lines -D prints, in one
// batch, and prints what perf prints.
func TestAddWritesDefinitions(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	exe, _ := filepath.EvalSymlinks(app)
	var args []string
	for _, s := range appSpecs {
		args = append(args, "-D", s)
	}
	defs, _, err := dw(append([]string{"-x", app}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(defs, "\n"), "\n")

	_, k := fakeTracefs(t)
	args = []string{"-x", app}
	for _, s := range appSpecs {
		args = append(args, "-a", s)
	}
	out, errOut, err := dw(args...)
	if err != nil {
		t.Fatal(err)
	}
	if got := eventWrites(k, "uprobe_events"); !reflect.DeepEqual(got, want) {
		t.Errorf("-a wrote\n%s\n-D prints\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if out != "" {
		t.Errorf("stdout %q", out)
	}
	// perf probe 6.1 prints these lines for the same command (stderr).
	wantErr := "Added new events:\n" +
		"  probe_app:work_L7    (on work:7 in " + exe + " with name=p->name:string id=p->id)\n" +
		strings.Repeat("  probe_app:item_score (on item_score in "+exe+")\n", 6) +
		"  probe_app:compute__return (on compute%return in " + exe + " with $retval)\n" +
		"  g1:e1                (on compute in " + exe + " with c)\n" +
		"\nYou can now use it in all perf tools, such as:\n\n" +
		"\tperf record -e g1:e1 -aR sleep 1\n\n" +
		"or enable it in tracefs:\n\n" +
		"\techo 1 > " + filepath.Join(k.Root, "events/g1/e1/enable") + "\n\n"
	if errOut != wantErr {
		t.Errorf("stderr\n%s\nwant\n%s", errOut, wantErr)
	}

	// Positional words are one probe; an absolute path first is -x.
	_, k = fakeTracefs(t)
	if _, _, err := dw(exe, "g2:w=work:7", "p->name:string", "p->id"); err != nil {
		t.Fatal(err)
	}
	if got, want := eventWrites(k, "uprobe_events"), []string{strings.Replace(want[0], "probe_app/work_L7", "g2/w", 1)}; !reflect.DeepEqual(got, want) {
		t.Errorf("positional probe wrote %q, want %q", got, want)
	}
	if _, _, err := dw("-q", "-x", app, "compute"); err != nil {
		t.Fatal(err)
	}
	if got := eventWrites(k, "uprobe_events"); len(got) != 1 || !strings.HasPrefix(got[0], "p:probe_app/compute ") {
		t.Errorf("-x app compute wrote %q", got)
	}
}

// TestAddNames: perf's naming against the events that exist, whatever
// their group; -f numbers; a refused name writes nothing.
func TestAddNames(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	_, k := fakeTracefs(t)
	add := func(args ...string) ([]string, error) {
		_, _, err := dw(append([]string{"-q", "-x", app}, args...)...)
		var names []string
		for _, c := range eventWrites(k, "uprobe_events") {
			head, _, _ := strings.Cut(c, " ")
			names = append(names, head)
		}
		return names, err
	}
	steps := []struct {
		args []string
		want []string
		err  string
	}{
		{[]string{"-a", "work"}, []string{"p:probe_app/work"}, ""},
		{[]string{"-a", "work"}, nil, "probe_app:work: event already exists; delete it with -d probe_app:work, add it as probe_app:work_1 with -f, or name it (probe_app:NAME=work)"},
		{[]string{"-f", "-a", "work"}, []string{"p:probe_app/work_1"}, ""},
		{[]string{"-f", "-a", "work", "-a", "work"}, []string{"p:probe_app/work_2", "p:probe_app/work_3"}, ""},
		// perf's names are unique across groups.
		{[]string{"-a", "other:work=work"}, nil, "(as probe_app:work: event names are unique across groups)"},
		{[]string{"-a", "other:w=work", "-a", "other:w=compute"}, nil, "by an earlier probe of this command"},
		// %return: the number replaces the suffix, as in perf 6.1.
		{[]string{"-a", "compute%return"}, []string{"r:probe_app/compute__return"}, ""},
		{[]string{"-f", "-a", "compute%return"}, []string{"r:probe_app/compute_1"}, ""},
		// The points of one probe share the event (the kernel appends).
		{[]string{"-a", "item_score"}, slicesRepeat("p:probe_app/item_score", 6), ""},
		{[]string{"-f", "-a", "item_score"}, slicesRepeat("p:probe_app/item_score_1", 6), ""},
	}
	for i, s := range steps {
		got, err := add(s.args...)
		if s.err == "" && err != nil || s.err != "" && (err == nil || !strings.Contains(err.Error(), s.err)) {
			t.Errorf("step %d %q: error %v, want %q", i, s.args, err, s.err)
		}
		if s.err != "" && !errors.Is(err, tracefs.ErrEventExists) {
			t.Errorf("step %d: %v does not wrap ErrEventExists", i, err)
		}
		if !reflect.DeepEqual(got, s.want) {
			t.Errorf("step %d %q: wrote %q, want %q", i, s.args, got, s.want)
		}
	}

	// A kernel that can't append (no "Create/append" in README): perf
	// gives each point its own name.
	_, k = fakeTracefs(t)
	if err := os.WriteFile(filepath.Join(k.Root, "README"), []byte("tracing mini-HOWTO:\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := add("-a", "item_score")
	want := []string{"p:probe_app/item_score"}
	for i := 1; i < 6; i++ {
		want = append(want, fmt.Sprintf("p:probe_app/item_score_%d", i))
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("item_score without multi-probe events: %q, %v; want %q", got, err, want)
	}
}

func slicesRepeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestAddDryRun: -n writes nothing and needs no tracefs.
func TestAddDryRun(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	defs, _, err := dw("-x", app, "-D", "work", "-D", "item_score")
	if err != nil {
		t.Fatal(err)
	}
	_, k := fakeTracefs(t)
	out, errOut, err := dw("-n", "-x", app, "-a", "work", "-a", "item_score")
	if err != nil || out != defs || len(k.Writes()) != 0 {
		t.Errorf("-n: %v, wrote %q, stdout\n%s\nwant\n%s", err, k.Writes(), out, defs)
	}
	if !strings.HasPrefix(errOut, "Dry run: nothing written to uprobe_events; it would add:\n  probe_app:work ") {
		t.Errorf("-n stderr:\n%s", errOut)
	}
	// Names are still checked against the events that exist.
	if _, _, err := dw("-q", "-x", app, "-a", "work"); err != nil {
		t.Fatal(err)
	}
	k.Writes()
	if out, _, err := dw("-n", "-f", "-x", app, "-a", "work"); err != nil || !strings.HasPrefix(out, "p:probe_app/work_1 ") || len(k.Writes()) != 0 {
		t.Errorf("-n -f with work taken: %q, %v", out, err)
	}

	openTracefs = func() (*tracefs.FS, error) {
		return nil, fmt.Errorf("%w at /sys/kernel/tracing", tracefs.ErrNotMounted)
	}
	out, errOut, err = dw("-n", "-x", app, "-a", "work", "-a", "item_score")
	if err != nil || out != defs || !strings.Contains(errOut, "names not checked") {
		t.Errorf("-n without tracefs: %v, stdout %q, stderr %q", err, out, errOut)
	}
	if _, _, err := dw("-x", app, "-a", "work"); !errors.Is(err, tracefs.ErrNotMounted) {
		t.Errorf("-a without tracefs: %v", err)
	}
}

// TestAddRefused: a definition the kernel refuses leaves nothing of the
// command behind, and the error shows the kernel's reason and column.
func TestAddRefused(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	_, k := fakeTracefs(t)
	k.Reject = func(kind tracefs.Kind, cmd string) (string, int) {
		if i := strings.Index(cmd, "name="); i >= 0 && strings.Contains(cmd, "work_L7") {
			return "Invalid fetch argument", i + len("name=")
		}
		return "", 0
	}
	_, errOut, err := dw("-x", app, "-a", "item_score", "-a", "compute", "-a", "work:7 p->name:string p->id")
	if err == nil || !strings.Contains(err.Error(), "definition 8 of 8: the kernel refused uprobe") ||
		!strings.Contains(err.Error(), "invalid argument: Invalid fetch argument") || !strings.Contains(err.Error(), "nothing was added") {
		t.Fatalf("error %v", err)
	}
	def := strings.SplitN(errOut, "\n", 2)[0]
	caret := strings.SplitN(errOut, "\n", 3)[1]
	if i := strings.IndexByte(caret, '^'); i < 0 || !strings.HasPrefix(def[i:], "+0(+0(%di)):string") {
		t.Errorf("caret not under the fetcharg:\n%s", errOut)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("at column %d", strings.IndexByte(caret, '^')-1)) {
		t.Errorf("column in %v, caret line %q", err, caret)
	}
	if got := k.File("uprobe_events"); got != "" {
		t.Errorf("uprobe_events after the refusal:\n%s", got)
	}
	if ents, _ := os.ReadDir(filepath.Join(k.Root, "events")); len(ents) != 0 {
		t.Errorf("events left: %v", ents)
	}

	// Refused before anything is written: a newline in a name, bytes the
	// kernel would cut at.
	k.Writes()
	for _, spec := range []string{"g:e\nx=work", "work\n", "g:e\rx=work", "work x=p->name:string\n"} {
		if _, _, err := dw("-x", app, "-a", spec); err == nil {
			t.Errorf("-a %q accepted", spec)
		}
	}
	if w := k.Writes(); len(w) != 0 {
		t.Errorf("refused specs wrote %q", w)
	}
}

// TestApply: --apply is all or nothing, with errors naming file and line.
func TestApply(t *testing.T) {
	dir := t.TempDir()
	ten := []string{"# ten uprobes", ""}
	for i := range 10 {
		ten = append(ten, fmt.Sprintf("p:dwapply/e%d /bin/true:0x%x x=%%di", i, 0x10*(i+1)))
	}
	write := func(name string, lines []string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	_, k := fakeTracefs(t)
	k.Reject = func(kind tracefs.Kind, cmd string) (string, int) {
		if i := strings.Index(cmd, "/nonexistent/"); i >= 0 {
			return "File not found", i
		}
		return "", 0
	}

	// One binary missing among ten: the kernel refuses the 7th, the six
	// before are deleted again.
	bad := append([]string(nil), ten...)
	bad[8] = "p:dwapply/e6   /nonexistent/true:0x70 x=%di"
	p := write("bad.txt", bad)
	_, errOut, err := dw("--apply", p)
	if err == nil || !strings.Contains(err.Error(), p+":9: the kernel refused uprobe") || !strings.Contains(err.Error(), "File not found") ||
		!strings.Contains(err.Error(), "at column 16") {
		t.Errorf("--apply with a missing binary: %v", err)
	}
	if want := "  " + bad[8] + "\n  " + strings.Repeat(" ", 15) + "^ File not found\n"; errOut != want {
		t.Errorf("stderr\n%s\nwant\n%s", errOut, want)
	}
	if got := k.File("uprobe_events"); got != "" {
		t.Errorf("uprobe_events after the refusal:\n%s", got)
	}
	if w := eventWrites(k, "uprobe_events"); len(w) != 13 || w[6] != "p:dwapply/e6 /nonexistent/true:0x70 x=%di" || w[7] != "-:dwapply/e5" || w[12] != "-:dwapply/e0" {
		t.Errorf("writes %q", w)
	}

	// Lines refused before any write, with file and line.
	for _, c := range []struct {
		line, msg string
	}{
		{"p:dwapply/e3\r /bin/true:0x40", "control character"},
		{"p:dwapply/e3 /bin/true:0x40 x=%di # comment", "comment"},
		{"p:dwapply/e3", "no probe point"},
		{"p:dwapply/e3 /bin/true:main", "PATH:OFFSET"},
		{"-:dwapply/e3", "delete command"},
		{"p:e3 vfs_read", "GROUP/EVENT"},
		{"p:dwapply/e3\x00 /bin/true:0x40", "NUL"},
		// The kernel's language, checked before writing: column 33 is
		// the '%' of the register, 32 the '\\' of perf's placeholder.
		{"p:dwapply/e3   /bin/true:0x40 x=%nosuchreg", ":6:33: argument \"x=%nosuchreg\": the kernel has no register %nosuchreg"},
		{"p:dwapply/e3 /bin/true:0x40 x=\\deade12d:s32", ":6:32: bad probe definition"},
		{"p:dwapply/e3 /bin/true:0x40 $arg1", "kernel probes only"},
		{"p:dwapply/e3 vfs_read+4 $arg1", "entry only"},
	} {
		l := append([]string(nil), ten...)
		l[5] = c.line
		p := write("refused.txt", l)
		if _, _, err := dw("--apply", p); err == nil || !strings.Contains(err.Error(), p+":6:") || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("--apply with %q: %v", c.line, err)
		}
	}
	if w := k.Writes(); len(w) != 0 {
		t.Errorf("refused files wrote %q", w)
	}

	// All ten, from stdin; a kprobe file and a uprobe file in one: one
	// batch, and a refused uprobe takes the kprobes back.
	stdin = strings.NewReader(strings.Join(ten, "\n"))
	t.Cleanup(func() { stdin = os.Stdin })
	_, errOut, err = dw("--apply", "-")
	if err != nil || strings.Count(k.File("uprobe_events"), "\n") != 10 || !strings.HasPrefix(errOut, "Added new events:\n  dwapply:e0           (on 0x10 in /bin/true with x)\n") {
		t.Errorf("--apply -: %v\n%s\n%s", err, errOut, k.File("uprobe_events"))
	}
	if _, _, err := dw("-q", "-d", "dwapply:*"); err != nil {
		t.Fatal(err)
	}
	k.Writes()
	mixed := []string{"p:dwk/a vfs_read+0", "p:dwu/a /bin/true:0x10", "p:dwk/b vfs_write+0 x=%di", "p:dwu/b /nonexistent/true:0x20"}
	_, _, err = dw("--apply", write("mixed.txt", mixed))
	if err == nil || !strings.Contains(err.Error(), "mixed.txt:4:") {
		t.Errorf("mixed --apply: %v", err)
	}
	want := []string{"kprobe_events: p:dwk/a vfs_read+0", "uprobe_events: p:dwu/a /bin/true:0x10",
		"kprobe_events: p:dwk/b vfs_write+0 x=%di", "uprobe_events: p:dwu/b /nonexistent/true:0x20",
		"kprobe_events: -:dwk/b", "uprobe_events: -:dwu/a", "kprobe_events: -:dwk/a"}
	if w := k.Writes(); !reflect.DeepEqual(w, want) {
		t.Errorf("mixed --apply wrote\n%s\nwant\n%s", strings.Join(w, "\n"), strings.Join(want, "\n"))
	}
	if k.File("kprobe_events")+k.File("uprobe_events") != "" {
		t.Errorf("left after mixed --apply:\n%s%s", k.File("kprobe_events"), k.File("uprobe_events"))
	}

	// Dry run: checked, not written.
	if _, errOut, err := dw("-n", "--apply", write("ok.txt", ten)); err != nil || len(k.Writes()) != 0 || !strings.Contains(errOut, "10 definitions") {
		t.Errorf("--apply -n: %v, %q", err, errOut)
	}
	if _, _, err := dw("--apply", write("empty.txt", []string{"# nothing"})); err == nil || !strings.Contains(err.Error(), "no definitions") {
		t.Errorf("empty --apply: %v", err)
	}
}

// TestDelete: -d with perf's globs and filters, on both kinds of probe.
func TestDelete(t *testing.T) {
	fsys, k := fakeTracefs(t)
	var lines []string
	for _, id := range []string{"probe/vfs_read", "probe/vfs_write", "other/vfs_read", "probe/a1", "probe/b1", "probe/c1"} {
		lines = append(lines, "p:"+id+" vfs_read+0")
	}
	k.Writes()
	add := func(kind tracefs.Kind, defs ...string) {
		t.Helper()
		if _, err := fsys.AddMulti(parsedDefs(t, kind, defs...)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		pats []string
		want []string // Removed event: lines, sorted as perf prints them
	}{
		{[]string{"vfs_read"}, []string{"other:vfs_read", "probe:vfs_read", "probe_app:vfs_read"}},
		{[]string{"probe:vfs_read"}, []string{"probe:vfs_read"}},
		{[]string{"*:vfs_*"}, []string{"other:vfs_read", "probe:vfs_read", "probe:vfs_write", "probe_app:vfs_read"}},
		{[]string{"probe:[ab]1"}, []string{"probe:a1", "probe:b1"}},
		{[]string{"probe:[!a-b]1", "other:*"}, []string{"other:vfs_read", "probe:c1"}},
		{[]string{"probe:* & !probe:vfs_*"}, []string{"probe:a1", "probe:b1", "probe:c1"}},
		{[]string{"*"}, []string{"other:vfs_read", "probe:a1", "probe:b1", "probe:c1", "probe:vfs_read", "probe:vfs_write", "probe_app:vfs_read"}},
	} {
		add(tracefs.KProbe, lines...)
		add(tracefs.UProbe, "p:probe_app/vfs_read /bin/true:0x10", "p:probe_app/vfs_read /bin/true:0x20")
		var args []string
		for _, p := range c.pats {
			args = append(args, "-d", p)
		}
		_, errOut, err := dw(args...)
		var want string
		for _, n := range c.want {
			want += "Removed event: " + n + "\n"
		}
		if err != nil || errOut != want {
			t.Errorf("-d %q: %v\n%s\nwant\n%s", c.pats, err, errOut, want)
		}
		for _, kind := range []tracefs.Kind{tracefs.KProbe, tracefs.UProbe} {
			if _, err := fsys.DeleteFunc(kind, func(tracefs.Event) bool { return true }); err != nil && !errors.Is(err, tracefs.ErrNoMatch) {
				t.Fatal(err)
			}
		}
	}
	if _, _, err := dw("-d", "nosuch", "-d", "probe:x*"); err == nil || err.Error() != `"nosuch|probe:x*" does not hit any event` {
		t.Errorf("-d nosuch: %v", err)
	}
	if _, _, err := dw("-d", "a)"); err == nil {
		t.Error("-d with a bad filter accepted")
	}

	// A kernel without kprobe_events: -d and -l work on uprobes alone.
	if err := os.Remove(filepath.Join(k.Root, "kprobe_events")); err != nil {
		t.Fatal(err)
	}
	add(tracefs.UProbe, "p:probe_app/w /bin/true:0x10")
	if out, _, err := dw("-l"); err != nil || out != "  probe_app:w          (on 0x10 in /bin/true)\n" {
		t.Errorf("-l without kprobe_events: %q, %v", out, err)
	}
	if _, errOut, err := dw("-d", "w"); err != nil || errOut != "Removed event: probe_app:w\n" {
		t.Errorf("-d without kprobe_events: %q, %v", errOut, err)
	}
	for _, f := range []string{"uprobe_events", "dynamic_events"} {
		if err := os.Remove(filepath.Join(k.Root, f)); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := dw("-d", "w"); !errors.Is(err, tracefs.ErrNotSupported) {
		t.Errorf("-d without probe files: %v", err)
	}
}

// TestDeleteEnabled: -d disables an enabled event first (the kernel
// refuses to delete it otherwise).
func TestDeleteEnabled(t *testing.T) {
	fsys, k := fakeTracefs(t)
	if _, err := fsys.Add(parsedDefs(t, tracefs.UProbe, "p:dw/e /bin/true:0x10")); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Enable("dw", "e", true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := dw("-d", "dw:e"); err != nil || k.File("uprobe_events") != "" {
		t.Errorf("-d of an enabled event: %v", err)
	}
}

// TestList: -l in perf's format, probes mapped back to their source lines
// with the binary's debuginfo; the expected lines are perf 6.1's for the
// same probes.
func TestList(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	exe, _ := filepath.EvalSymlinks(app)
	_, k := fakeTracefs(t)
	args := []string{"-q", "-x", app}
	for _, s := range appSpecs {
		args = append(args, "-a", s)
	}
	if _, _, err := dw(args...); err != nil {
		t.Fatal(err)
	}
	// A probe without debuginfo at its place, one with a module, one on
	// a binary that does not exist.
	fsys, _ := openTracefs()
	if _, err := fsys.Add(parsedDefs(t, tracefs.UProbe, "p:raw/gone /nonexistent/app:0x1139 x=%di")); err != nil {
		t.Fatal(err)
	}
	if _, err := fsys.Add(parsedDefs(t, tracefs.KProbe, "p:probe/vfs_read_L12 vfs_read+114 f_mode=+68(%bp):x32 buf=%r12:x64", "r:probe/m ext4:ext4_sync_fs")); err != nil {
		t.Fatal(err)
	}
	in := " in " + exe
	want := "" +
		"  probe:vfs_read_L12   (on vfs_read+114 with f_mode buf)\n" +
		"  probe:m              (on ext4_sync_fs%return in ext4)\n" +
		"  g1:e1                (on compute@testdata/fixtures/app_util.c" + in + " with c)\n" +
		"  probe_app:item_score (on main:10@testdata/fixtures/app_main.c" + in + ")\n" +
		"  probe_app:item_score (on main:18@testdata/fixtures/app_main.c" + in + ")\n" +
		"  probe_app:item_score (on item_score@APP_H" + in + ")\n" +
		"  probe_app:item_score (on sum_list:6@testdata/fixtures/app_util.c" + in + ")\n" +
		"  probe_app:item_score (on geometry:5@testdata/fixtures/app_util2.c" + in + ")\n" +
		"  probe_app:item_score (on report:5@testdata/fixtures/app_util2.c" + in + ")\n" +
		"  probe_app:work_L7    (on work:7@testdata/fixtures/app_util.c" + in + " with name id)\n" +
		"  raw:gone             (on 0x1139 in /nonexistent/app with x)\n" +
		"  probe_app:compute__return (on compute%return@testdata/fixtures/app_util.c" + in + " with arg1)\n"
	// The kernel's debuginfo: none here (the kprobes show as listed).
	// app.h is named by its full path, which depends on where the
	// fixtures were built.
	out, errOut, err := dw("-k", filepath.Join(t.TempDir(), "no-vmlinux"), "-l")
	out = regexp.MustCompile(`item_score@\S*/app\.h `).ReplaceAllString(out, "item_score@APP_H ")
	if err != nil || out != want {
		t.Errorf("-l: %v\n%s\nwant\n%s", err, out, want)
	}
	if !strings.Contains(errOut, "note: kprobes are shown as listed") {
		t.Errorf("-l stderr: %q", errOut)
	}
	for _, c := range []struct{ filter, want string }{
		{"probe_app:work*", "  probe_app:work_L7 "},
		{"e1", "  g1:e1 "},
		{"nosuch", ""},
		{"*:*_L* | g1:*", "  probe:vfs_read_L12 "},
	} {
		out, _, err := dw("-q", "-k", "/nonexistent", "-l", c.filter)
		if err != nil || !strings.HasPrefix(out, c.want) || c.want == "" && out != "" {
			t.Errorf("-l %q: %v\n%s", c.filter, err, out)
		}
	}
	if _, _, err := dw("-x", app, "-l"); err == nil {
		t.Error("-l with -x accepted")
	}
	k.Writes()
}

// TestTracefsErrors: what to do when tracefs is missing or root-only.
func TestTracefsErrors(t *testing.T) {
	notMounted := fmt.Errorf("%w at /sys/kernel/tracing or /sys/kernel/debug/tracing; as root, run: mount -t tracefs nodev /sys/kernel/tracing", tracefs.ErrNotMounted)
	old := openTracefs
	t.Cleanup(func() { openTracefs = old })
	openTracefs = func() (*tracefs.FS, error) { return nil, notMounted }
	apply := filepath.Join(t.TempDir(), "apply.txt")
	if err := os.WriteFile(apply, []byte("p:g/e vfs_read\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-l"}, {"-d", "x"}, {"--apply", apply}} {
		if _, _, err := dw(args...); !errors.Is(err, tracefs.ErrNotMounted) || !strings.Contains(err.Error(), "mount -t tracefs nodev /sys/kernel/tracing") {
			t.Errorf("%q without tracefs: %v", args, err)
		}
	}
	perm := fmt.Errorf("%w: %w", tracefs.ErrPermission, &os.PathError{Op: "open", Path: "/sys/kernel/tracing/uprobe_events", Err: syscall.EACCES})
	err := tracefsErr(perm)
	if os.Geteuid() == 0 {
		if err != perm {
			t.Errorf("root: %v", err)
		}
	} else if !strings.Contains(err.Error(), "/sys/kernel/tracing/uprobe_events") || !strings.Contains(err.Error(), "needs root") {
		t.Errorf("not root: %v", err)
	}
}

// TestOptionsLive: how the live commands combine with the other options.
func TestOptionsLive(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	fakeTracefs(t)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-x", app, "-a", "work", "-d", "x"}, "exclusive"},
		{[]string{"-l", "-d", "x"}, "exclusive"},
		{[]string{"--apply", "f", "-a", "work"}, "exclusive"},
		{[]string{"-d", "x", "work"}, "unexpected argument"},
		{[]string{"-x", app, "-D", "work", "compute"}, "unexpected argument"},
		{[]string{"/lib/modules/ext4.ko", "ext4_sync_fs"}, "open /lib/modules/ext4.ko"}, // a module, as perf takes it
		{[]string{"/bin/true"}, "no probe after"},
		{[]string{"-x", app, "-"}, "'-' is not a probe"},
		{[]string{"-x", app, "-a", "work", "--bootconfig"}, "--bootconfig goes with -D"},
		{[]string{"-x", app, "-D", "work", "--bootconfig"}, "kprobes only"},
	} {
		if _, _, err := dw(c.args...); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: %v, want an error mentioning %q", c.args, err, c.msg)
		}
	}
}

// TestKernelAdd: kprobes from the corpus vmlinux, refused when it is not
// the running kernel's, and --bootconfig against perf 6.1's output.
func TestKernelAdd(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	_, k := fakeTracefs(t)
	old := runningBuildID
	t.Cleanup(func() { runningBuildID = old })
	runningBuildID = func() string { return "0123" }
	if _, _, err := dw("-k", vml, "-a", "vfs_read"); err == nil || !strings.Contains(err.Error(), "not the running kernel's") {
		t.Errorf("-a with another kernel's vmlinux: %v", err)
	}
	if _, _, err := dw("-n", "-k", vml, "-a", "vfs_read"); err != nil {
		t.Errorf("-n with another kernel's vmlinux: %v", err)
	}
	runningBuildID = func() string { return "" }
	defs, _, err := dw("-k", vml, "-D", "vfs_read:12 file->f_mode buf", "-D", "vfs_read%return $retval")
	if err != nil {
		t.Fatal(err)
	}
	k.Writes()
	if _, _, err := dw("-q", "-k", vml, "-a", "vfs_read:12 file->f_mode buf", "-a", "vfs_read%return $retval"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(eventWrites(k, "kprobe_events"), "\n") + "\n"; got != defs {
		t.Errorf("-k -a wrote\n%s\nwant\n%s", got, defs)
	}
	out, _, err := dw("-k", vml, "-l")
	if want := "" +
		"  probe:vfs_read_L12   (on vfs_read:12@fs/read_write.c with f_mode buf)\n" +
		"  probe:vfs_read__return (on vfs_read%return@fs/read_write.c with arg1)\n"; err != nil || out != want {
		t.Errorf("-k -l: %v\n%s\nwant\n%s", err, out, want)
	}

	// perf 6.1 prints the same with ".probe = " and 'vfs_read+0 $retval'.
	out, _, err = dw("-k", vml, "--bootconfig", "-D", "vfs_read", "-D", "vfs_read:12 file->f_mode buf", "-D", "vfs_read%return $retval", "-D", "getname_flags")
	want := "ftrace.event.kprobes.vfs_read.probes = 'vfs_read+0'\n" +
		"ftrace.event.kprobes.vfs_read_L12.probes = 'vfs_read+114 f_mode=+68(%bp):x32 buf=%r12:x64'\n" +
		"ftrace.event.kprobes.vfs_read__return.probes = 'vfs_read+0%return $retval'\n" +
		"ftrace.event.kprobes.getname_flags.probes = '__ia32_sys_unlink+9', '__x64_sys_unlink+10', '__ia32_sys_rmdir+9', '__x64_sys_rmdir+10', '__ia32_sys_mkdir+30', '__x64_sys_mkdir+31', '__x64_sys_mkdirat+36', '__x64_sys_mknod+36', 'getname_flags.part.0+0', 'getname_flags+0', 'getname_uflags+12', 'getname+5'\n"
	if err != nil || out != want {
		t.Errorf("--bootconfig: %v\n%s\nwant\n%s", err, out, want)
	}
}

// parsedDefs parses definition lines of kind for tracefs.FS.Add.
func parsedDefs(t *testing.T, kind tracefs.Kind, lines ...string) []tracefs.Event {
	t.Helper()
	var evs []tracefs.Event
	for _, l := range lines {
		ev, err := tracefs.ParseDefinition(kind, l)
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}
