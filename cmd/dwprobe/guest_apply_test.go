package main

import (
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs/qemutest"
)

// applySpecs are the probes TestGuestApply has dwprobe define on the host
// and apply in the guest. The default event names serve both kernels.
var applySpecs = []string{
	// Several points under one event: the out-of-line copies and the
	// instances inlined into getname, getname_uflags and the
	// unlink/rmdir/mkdir/mknod syscalls. AddMulti appends them to one
	// event.
	"getname_flags filename:ustring",
	"do_sys_openat2 dfd filename:ustring how->flags",
	"vfs_read name=file->f_path.dentry->d_name.name:string count",
	// The kernel names the unnamed $retval arg1.
	"ksys_read%return $retval:s64",
	// An inline function only: one point per instance, vfs_read's among
	// them.
	"fsnotify_access file->f_pos",
	// Another group, and two points (the compiler duplicated the line).
	"dwapply:read_ret=ksys_read:12 ret",
}

// The guest paths of TestGuestApply's files.
const (
	applyMarker = "/etc/dwprobe-marker"
	applyGood   = "/defs-apply.txt"
	applyBadReg = "/defs-bad-reg.txt"
	applyBadSym = "/defs-bad-sym.txt"
)

// applyWorkload is TestGuestApply's /workload.sh. step runs a command and
// prints its stdout, its stderr and its exit status between APPLY-*
// markers. The events stay enabled for -d, which must disable them before
// deleting (the kernel refuses to delete an enabled event with EBUSY).
// The trace is printed and cleared before -d: deleting an event that was
// enabled resets the ring buffer, and records of a deleted event could no
// longer be printed.
const applyWorkload = `T=/sys/kernel/tracing
# Keep kernel messages out of the sections.
echo 1 >/proc/sys/kernel/printk
# show FILE: print FILE, ending its last line.
show() {
	cat "$1"
	[ -z "$(tail -c 1 "$1")" ] || echo
}
step() {
	name=$1
	shift
	"$@" >/tmp/step.out 2>/tmp/step.err
	rc=$?
	echo "APPLY-STDOUT $name"
	show /tmp/step.out
	echo "APPLY-STDERR $name"
	show /tmp/step.err
	echo "APPLY-END $name $rc"
}
events() { cat $T/kprobe_events; }

step bad-reg dwprobe --apply ` + applyBadReg + `
step after-bad-reg events
step apply dwprobe --apply ` + applyGood + `
step applied events
echo 1 >$T/events/probe/enable
echo 1 >$T/events/dwapply/enable
cat ` + applyMarker + ` >/dev/null
dd if=` + applyMarker + ` of=/dev/null bs=7 count=1 2>/dev/null
echo 0 >$T/tracing_on
step trace cat $T/trace
: >$T/trace
step bad-sym dwprobe --apply ` + applyBadSym + `
step again dwprobe --apply ` + applyGood + `
step after-bad-sym events
step list dwprobe -l
step del dwprobe -d 'probe:*' -d 'dwapply:*'
step after-del events
`

// guestStep is what one step of applyWorkload printed.
type guestStep struct {
	stdout, stderr string
	rc             int
}

// parseSteps splits the output of applyWorkload into its steps, by name.
func parseSteps(out string) (map[string]*guestStep, error) {
	steps := map[string]*guestStep{}
	var name string
	var bufs [2]strings.Builder // the stdout and stderr of the open step
	cur := -1                   // the one of bufs taking lines; -1 between steps
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "APPLY-STDOUT "):
			name, cur = strings.TrimPrefix(line, "APPLY-STDOUT "), 0
			bufs[0].Reset()
			bufs[1].Reset()
		case cur == 0 && line == "APPLY-STDERR "+name:
			cur = 1
		case cur == 1 && strings.HasPrefix(line, "APPLY-END "+name+" "):
			rc, err := strconv.Atoi(strings.TrimPrefix(line, "APPLY-END "+name+" "))
			if err != nil {
				return nil, fmt.Errorf("bad marker %q", line)
			}
			steps[name] = &guestStep{stdout: bufs[0].String(), stderr: bufs[1].String(), rc: rc}
			cur = -1
		case cur >= 0:
			bufs[cur].WriteString(line + "\n")
		}
	}
	if cur >= 0 {
		return nil, fmt.Errorf("output ends inside step %s", name)
	}
	return steps, nil
}

// guestBuild is dwprobe built for one guest architecture.
type guestBuild struct {
	once sync.Once
	path string
	err  error
}

var (
	guestBuildMu sync.Mutex
	guestBuilds  = map[string]*guestBuild{}
)

// guestDwprobe builds a static dwprobe for arch once per test binary and
// checks that it is one: an ELF for arch without an interpreter.
func guestDwprobe(t *testing.T, arch string) string {
	t.Helper()
	guestBuildMu.Lock()
	b := guestBuilds[arch]
	if b == nil {
		b = &guestBuild{}
		guestBuilds[arch] = b
	}
	guestBuildMu.Unlock()
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "dwprobe-guest-"+arch)
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, "dwprobe")
		cmd := exec.Command("bash", "../../testdata/scripts/build.sh", b.path)
		cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+arch)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = &buildError{fmt.Sprintf("GOARCH=%s: %v\n%s", arch, err, out)}
			return
		}
		f, err := elf.Open(b.path)
		if err != nil {
			b.err = err
			return
		}
		defer f.Close()
		machine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[arch]
		if f.Machine != machine {
			b.err = fmt.Errorf("%s: machine %v, want %v", b.path, f.Machine, machine)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				b.err = fmt.Errorf("%s: not static (it has an interpreter)", b.path)
			}
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// renameDef returns def with its GROUP/EVENT replaced by id.
func renameDef(def, id string) string {
	head, rest, _ := strings.Cut(def, " ")
	typ, _, _ := strings.Cut(head, ":")
	return typ + ":" + id + " " + rest
}

// defKey is a kprobe definition as the kernel keeps it, for comparing what
// was written with what kprobe_events lists: the MAXACTIVE the kernel adds
// to a kretprobe ("r10:") dropped, the offset always given, every argument
// named (unnamed ones are arg1, arg2, ... by position).
func defKey(line string) string {
	f := strings.Fields(line)
	if len(f) < 2 {
		return line
	}
	typ, id, _ := strings.Cut(f[0], ":")
	typ = strings.TrimRight(typ, "0123456789")
	target := f[1]
	if !strings.Contains(target, "+") {
		target += "+0"
	}
	key := []string{typ + ":" + id, target}
	for i, a := range f[2:] {
		if !strings.Contains(a, "=") {
			a = fmt.Sprintf("arg%d=%s", i+1, a)
		}
		key = append(key, a)
	}
	return strings.Join(key, " ")
}

// lines splits text into its lines, without the empty last one.
func lines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// sameMultiset reports whether a and b hold the same strings as often.
func sameMultiset(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestGuestApply runs a static dwprobe inside the amd64 and arm64 corpus
// kernels: it applies the definitions dwprobe -D made on the host from the
// vmlinux (--apply), lists them (-l, without debuginfo in the guest),
// traces a cat and a dd of a marker file with them and deletes them (-d),
// and checks that two files with a line the kernel refuses leave nothing
// behind, before and beside the applied events.
func TestGuestApply(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			t.Parallel()
			qemutest.NeedQEMU(t, arch)
			vml := dwarftest.NeedCorpus(t, arch+"/vmlinux")
			bin := guestDwprobe(t, arch)

			args := []string{"-q", "-k", vml}
			for _, s := range applySpecs {
				args = append(args, "-D", s)
			}
			var out, errb bytes.Buffer
			if err := run(context.Background(), args, &out, &errb); err != nil {
				t.Fatalf("dwprobe -D: %v\n%s", err, errb.String())
			}
			defs := lines(out.String())
			byEvent := map[string][]string{} // GROUP/EVENT -> definitions
			for _, d := range defs {
				_, id, _ := strings.Cut(strings.Fields(d)[0], ":")
				byEvent[id] = append(byEvent[id], d)
			}
			for _, id := range []string{"probe/getname_flags", "probe/fsnotify_access", "dwapply/read_ret"} {
				if len(byEvent[id]) < 2 {
					t.Fatalf("%s: %d definitions, want several:\n%s", id, len(byEvent[id]), out.String())
				}
			}
			t.Logf("%s: %d definitions of %d events", arch, len(defs), len(byEvent))

			// The refused line comes last: the events before it, one
			// of them with two probes and one a kretprobe, are in the
			// kernel when it is written and must be deleted again.
			badReg := []string{
				"# TestGuestApply: the kernel knows no register %nosuchreg",
				renameDef(byEvent["probe/getname_flags"][0], "probe/bad_multi"),
				renameDef(byEvent["probe/getname_flags"][1], "probe/bad_multi"),
				renameDef(byEvent["probe/ksys_read__return"][0], "probe/bad_ret__return"),
				"",
				"p:probe/bad_reg vfs_write x=%nosuchreg",
			}
			const badRegLine = 6
			// Applied beside the good events: those must stay.
			badSym := []string{
				renameDef(byEvent["probe/vfs_read"][0], "probe/bad_first"),
				"p:probe/bad_sym no_such_function_dwprobe",
				renameDef(byEvent["probe/do_sys_openat2"][0], "probe/bad_last"),
			}
			const badSymLine = 2

			extra := map[string]string{"/bin/dwprobe": bin}
			qemutest.GuestFiles(t, extra, map[string]string{
				applyMarker: "dwprobe marker file\n",
				applyGood:   strings.Join(defs, "\n") + "\n",
				applyBadReg: strings.Join(badReg, "\n") + "\n",
				applyBadSym: strings.Join(badSym, "\n") + "\n",
			})
			g := qemutest.Boot(t, arch, nil, applyWorkload, extra)
			if g.WorkloadExit != 0 {
				t.Errorf("workload exit %d", g.WorkloadExit)
			}
			steps, err := parseSteps(g.Workload)
			if err != nil {
				t.Fatalf("%v\nworkload output:\n%s", err, g.Workload)
			}
			for _, name := range []string{"bad-reg", "after-bad-reg", "apply", "applied", "trace",
				"bad-sym", "again", "after-bad-sym", "list", "del", "after-del"} {
				if steps[name] == nil {
					t.Fatalf("no step %s in the workload output:\n%s", name, g.Workload)
				}
			}
			t.Logf("%s guest workload output:\n%s", arch, g.Workload)

			// The file with a bad register: refused before anything is
			// written (the register tables are the kernel's), with the
			// line and column, and nothing of it registered.
			s := steps["bad-reg"]
			for _, want := range []string{
				fmt.Sprintf("dwprobe: %s:%d:", applyBadReg, badRegLine),
				"the kernel has no register %nosuchreg on " + map[string]string{"amd64": "x86_64", "arm64": "arm64"}[arch],
				"; nothing was added\n",
			} {
				if s.rc == 0 || !strings.Contains(s.stderr, want) {
					t.Errorf("--apply %s: exit %d, stderr lacks %q:\n%s", applyBadReg, s.rc, want, s.stderr)
				}
			}
			if s := steps["after-bad-reg"]; s.stdout != "" {
				t.Errorf("after the refused %s, kprobe_events holds:\n%s", applyBadReg, s.stdout)
			}

			// The good file: every definition registered as written.
			s = steps["apply"]
			if s.rc != 0 || !strings.HasPrefix(s.stderr, "Added new events:\n") {
				t.Fatalf("--apply %s: exit %d, stdout %q, stderr:\n%s", applyGood, s.rc, s.stdout, s.stderr)
			}
			if n := len(lines(s.stderr)) - 1; n != len(defs) {
				t.Errorf("--apply %s reported %d events added, want %d:\n%s", applyGood, n, len(defs), s.stderr)
			}
			applied := lines(steps["applied"].stdout)
			var want, got []string
			for _, d := range defs {
				want = append(want, defKey(d))
			}
			for _, l := range applied {
				got = append(got, defKey(l))
			}
			if !sameMultiset(want, got) {
				t.Errorf("kprobe_events after --apply:\n%s\nwant the definitions of %s:\n%s",
					steps["applied"].stdout, applyGood, strings.Join(defs, "\n"))
			}

			checkApplyTrace(t, steps["trace"].stdout, applied)

			// The file with an unknown symbol, and the good file again
			// (its events exist): refused, the good events untouched.
			s = steps["bad-sym"]
			for _, want := range []string{
				fmt.Sprintf("dwprobe: %s:%d: the kernel refused kprobe %q (no such file or directory: Invalid probed address or symbol) at column 17",
					applyBadSym, badSymLine, badSym[badSymLine-1]),
				"; nothing was added\n",
				"^ Invalid probed address or symbol\n",
			} {
				if s.rc == 0 || !strings.Contains(s.stderr, want) {
					t.Errorf("--apply %s: exit %d, stderr lacks %q:\n%s", applyBadSym, s.rc, want, s.stderr)
				}
			}
			if s := steps["again"]; s.rc == 0 || !strings.Contains(s.stderr, "already exists") {
				t.Errorf("--apply %s a second time: exit %d, stderr:\n%s", applyGood, s.rc, s.stderr)
			}
			if s := steps["after-bad-sym"]; s.stdout != steps["applied"].stdout {
				t.Errorf("after the refused %s and %s, kprobe_events holds:\n%s\nwant what --apply %s left:\n%s",
					applyBadSym, applyGood, s.stdout, applyGood, steps["applied"].stdout)
			}

			// -l without debuginfo: every probe, at its target as
			// listed, with its argument names; kretprobes at
			// FUNC%return as perf shows them.
			s = steps["list"]
			want = nil
			for _, l := range applied {
				f := strings.Fields(l)
				_, id, _ := strings.Cut(f[0], ":")
				point := strings.TrimSuffix(f[1], "+0")
				if f[0][0] == 'r' && !strings.Contains(point, "+") {
					point += "%return"
				}
				line := fmt.Sprintf("  %-20s (on %s", strings.Replace(id, "/", ":", 1), point)
				for i, a := range f[2:] {
					if i == 0 {
						line += " with"
					}
					name, _, _ := strings.Cut(a, "=")
					line += " " + name
				}
				want = append(want, line+")")
			}
			if s.rc != 0 || !sameMultiset(lines(s.stdout), want) {
				t.Errorf("-l: exit %d, stdout:\n%s\nwant (in any order):\n%s\nstderr:\n%s",
					s.rc, s.stdout, strings.Join(want, "\n"), s.stderr)
			}
			if !strings.Contains(s.stderr, "note: kprobes are shown as listed: ") {
				t.Errorf("-l without debuginfo: stderr lacks the note:\n%s", s.stderr)
			}

			// -d: every event once, though still enabled; nothing left.
			s = steps["del"]
			want = nil
			for id := range byEvent {
				want = append(want, "Removed event: "+strings.Replace(id, "/", ":", 1))
			}
			if s.rc != 0 || !sameMultiset(lines(s.stderr), want) {
				t.Errorf("-d: exit %d, stderr:\n%s\nwant (in any order):\n%s", s.rc, s.stderr, strings.Join(want, "\n"))
			}
			if s := steps["after-del"]; s.stdout != "" {
				t.Errorf("after -d, kprobe_events holds:\n%s", s.stdout)
			}
		})
	}
}

// checkApplyTrace checks the records the applied events left of the
// workload's cat and dd of the marker file. applied is kprobe_events.
func checkApplyTrace(t *testing.T, trace string, applied []string) {
	t.Helper()
	events := qemutest.Events{}
	for _, l := range applied {
		events.Add(l)
	}
	recs, lost, err := qemutest.ParseTrace(lines(trace), events)
	if err != nil {
		t.Error(err)
	}
	if lost > 0 {
		t.Errorf("the trace lost %d events", lost)
	}
	const path = `"` + applyMarker + `"`
	checks := []struct {
		what string
		ok   func(r qemutest.Record) bool
	}{
		{"cat's getname_flags of the marker", func(r qemutest.Record) bool {
			return r.Event == "probe/getname_flags" && r.Task == "cat" && r.Args["filename_ustring"] == path
		}},
		{"cat's do_sys_openat2 of the marker at AT_FDCWD, read-only", func(r qemutest.Record) bool {
			flags, err := strconv.ParseUint(r.Args["flags"], 0, 64)
			return r.Event == "probe/do_sys_openat2" && r.Task == "cat" && r.Args["filename_ustring"] == path &&
				r.Args["dfd"] == "-100" && err == nil && flags&oAccMode == 0
		}},
		{"dd's vfs_read of 7 bytes of the marker", func(r qemutest.Record) bool {
			return r.Event == "probe/vfs_read" && r.Task == "dd" &&
				r.Args["name"] == `"dwprobe-marker"` && r.Args["count"] == "0x7"
		}},
		// ksys_read moves f_pos after vfs_read returns: still 0.
		{"dd's fsnotify_access in vfs_read at file position 0", func(r qemutest.Record) bool {
			return r.Event == "probe/fsnotify_access" && r.Task == "dd" &&
				strings.HasPrefix(r.Loc, "vfs_read+") && r.Args["f_pos"] == "0"
		}},
		{"dd's ksys_read returning 7", func(r qemutest.Record) bool {
			return r.Event == "probe/ksys_read__return" && r.Task == "dd" &&
				strings.HasSuffix(r.Loc, " <- ksys_read") && r.Args["arg1"] == "7"
		}},
		{"dd's ret of 7 at ksys_read:12", func(r qemutest.Record) bool {
			return r.Event == "dwapply/read_ret" && r.Task == "dd" && r.Args["ret"] == "7"
		}},
	}
	for _, c := range checks {
		if !slices.ContainsFunc(recs, c.ok) {
			t.Errorf("the trace lacks %s:\n%s", c.what, trace)
		}
	}
}

// TestParseSteps checks the step sections of applyWorkload on output shaped
// like the guests', with an empty stdout and a kernel message between steps.
func TestParseSteps(t *testing.T) {
	out := `APPLY-STDOUT apply
APPLY-STDERR apply
Added new event:
  probe:vfs_read       (on vfs_read with count)
APPLY-END apply 0
[    2.013349] random: crng init done
APPLY-STDOUT applied
p:probe/vfs_read vfs_read count=%dx:x64
APPLY-STDERR applied
APPLY-END applied 1
`
	steps, err := parseSteps(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]guestStep{
		"apply":   {stderr: "Added new event:\n  probe:vfs_read       (on vfs_read with count)\n"},
		"applied": {stdout: "p:probe/vfs_read vfs_read count=%dx:x64\n", rc: 1},
	}
	if len(steps) != len(want) {
		t.Errorf("steps %v, want %v", steps, want)
	}
	for name, w := range want {
		if s := steps[name]; s == nil || *s != w {
			t.Errorf("step %s = %+v, want %+v", name, s, w)
		}
	}
	if _, err := parseSteps(strings.Split(out, "APPLY-END applied")[0]); err == nil {
		t.Error("output cut inside a step parsed")
	}
}

// TestDefKey pins how a definition compares with the kernel's listing of it.
func TestDefKey(t *testing.T) {
	for _, c := range [][2]string{
		{"r:probe/ksys_read__return ksys_read+0 $retval:s64", "r10:probe/ksys_read__return ksys_read arg1=$retval:s64"},
		{"p:probe/x vfs_read+8 %x0 n=%x2:x64  +0(%x1):string", "p:probe/x vfs_read+8 arg1=%x0 n=%x2:x64 arg3=+0(%x1):string"},
	} {
		if a, b := defKey(c[0]), defKey(c[1]); a != b {
			t.Errorf("defKey(%q) = %q, defKey(%q) = %q: want them equal", c[0], a, c[1], b)
		}
	}
	if defKey("p:probe/x vfs_read+8") == defKey("r:probe/x vfs_read+8") {
		t.Error("a kprobe and a kretprobe compare equal")
	}
}
