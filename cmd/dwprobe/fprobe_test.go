package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs/tracefstest"
)

// TestApplyFProbe: --apply takes f: and t: lines and BTF argument names
// where the running kernel's README has them (6.12's), refuses them with
// the reason where it does not (6.1's), and -l and -d see them in
// dynamic_events.
func TestApplyFProbe(t *testing.T) {
	lines := []string{
		"f:dwf/read_entry vfs_read count file->f_mode",
		"f:dwf/read_exit vfs_read%return $arg1 ret=$retval",
		"t:dwt/switch sched_switch next_pid=next->pid",
		"p:dwk/read vfs_read count",
		"r:dwk/read_ret vfs_read $arg3",
	}
	file := filepath.Join(t.TempDir(), "defs.txt")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, k := fakeTracefs(t)
	_, _, err := dw("--apply", file)
	if err == nil || !strings.Contains(err.Error(), file+":1:1: f:GROUP/EVENT is an fprobe event, which the running kernel's README does not have (Linux 6.5 added them)") {
		t.Errorf("--apply on a README without fprobes: %v", err)
	}
	if w := k.Writes(); len(w) != 0 {
		t.Errorf("wrote %q", w)
	}
	if err := os.WriteFile(filepath.Join(k.Root, "README"), []byte(tracefstest.README612), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := dw("--apply", file); err != nil {
		t.Fatalf("--apply on 6.12: %v", err)
	}
	if got := eventWrites(k, "dynamic_events"); len(got) != 3 || got[0] != lines[0] {
		t.Errorf("dynamic_events writes %q", got)
	}
	out, _, err := dw("-l")
	for _, want := range []string{"dwf:read_entry", "dwf:read_exit", "dwt:switch", "dwk:read_ret"} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("-l lacks %s: %v\n%s", want, err, out)
		}
	}
	if _, errOut, err := dw("-d", "dwf:*", "-d", "dwt:*"); err != nil || !strings.Contains(errOut, "Removed event: dwt:switch") {
		t.Errorf("-d: %v\n%s", err, errOut)
	}
	if got := k.File("dynamic_events"); got != "" {
		t.Errorf("dynamic_events after -d: %q", got)
	}
}

// TestFProbeBuiltWithout: Debian's 6.12 arm64 kernel is built without
// fprobe events (no trace_fprobe_create; its booted guest refuses f: and
// t:, TestQEMUFProbe612Arm64): --fprobe and t: specs are refused offline
// with the reason, what it does take is written.
func TestFProbeBuiltWithout(t *testing.T) {
	v := dwarftest.NeedCorpus(t, "6.12/arm64/vmlinux")
	for _, args := range [][]string{{"--fprobe", "-D", "vfs_read count"}, {"-D", "t:sched_switch prev"}} {
		_, _, err := dw(append([]string{"-k", v}, args...)...)
		if err == nil || !strings.Contains(err.Error(), "built without CONFIG_FPROBE_EVENTS") {
			t.Errorf("arm64 6.12 %q: %v", args, err)
		}
	}
	if out, _, err := dw("-k", v, "-D", "vfs_read%return $arg1 $arg3"); err != nil || out != "r:probe/vfs_read__return vfs_read+0 $arg1 $arg3\n" {
		t.Errorf("arm64 6.12 $argN on %%return: %q, %v", out, err)
	}
}

// TestDialect612Offline: -D on the 6.12 vmlinux, without root, writes
// what 6.12 takes and 6.1 does not, and refuses it on 6.1 with the
// version that added it.
func TestDialect612Offline(t *testing.T) {
	v612 := dwarftest.NeedCorpus(t, "6.12/amd64/vmlinux")
	v61 := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	for _, c := range []struct {
		args []string
		want string
	}{
		// perf 6.12 writes the same line.
		{[]string{"-D", "vfs_read%return $arg1 $arg3"}, "r:probe/vfs_read__return vfs_read+0 $arg1 $arg3\n"},
		{[]string{"--fprobe", "-D", "vfs_read count file->f_mode"}, "f:probe/vfs_read vfs_read count=count:x64 f_mode=file->f_mode:x32\n"},
		{[]string{"--fprobe", "-D", "vfs_read%return $retval $arg1"}, "f:probe/vfs_read__return vfs_read%return $retval $arg1\n"},
		{[]string{"-D", "t:sched_switch next_pid=next->pid prev->comm:string"},
			"t:probe/sched_switch sched_switch next_pid=next->pid comm=prev->comm:string\n"},
	} {
		out, _, err := dw(append([]string{"-k", v612}, c.args...)...)
		if err != nil || out != c.want {
			t.Errorf("6.12 %q: %q, %v; want %q", c.args, out, err, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-D", "vfs_read%return $arg1 $arg3"}, "$arg1 on a return probe: Linux 6.1 reads it at a function's entry only (return probes read it since Linux 6.9)"},
		{[]string{"--fprobe", "-D", "vfs_read"}, "Linux 6.1 has no fprobe events (Linux 6.5 added them)"},
		{[]string{"-D", "t:sched_switch next_pid=next->pid"}, "Linux 6.1 does not have (Linux 6.5 added them)"},
	} {
		if _, _, err := dw(append([]string{"-k", v61}, c.args...)...); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("6.1 %q: %v, want %q", c.args, err, c.msg)
		}
	}
	for _, c := range []struct {
		spec, msg string
	}{
		{"t:sched_switch next->nosuch", "next has no member nosuch"},
		{"t:sched_switch nxt", "the tracepoint has no parameter nxt (it has preempt, prev, next, prev_state)"},
		{"t:sched_switch next.pid", "next is a pointer: write next->pid"},
		{"t:no_such_tp", `no such tracepoint "no_such_tp"`},
	} {
		if _, _, err := dw("-k", v612, "-D", c.spec); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: %v, want %q", c.spec, err, c.msg)
		}
	}
}
