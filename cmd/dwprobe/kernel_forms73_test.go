package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs/qemutest"
)

// forms73Spec reads vfs_read's task and file through Linux 7.3's fetch
// forms: $current (the current task's address), current->pid (the
// kernel's current, which dwprobe writes (task_struct)$current->pid), a
// typecast's char array as a string, a typecast of a BTF argument, and
// this CPU's copy of a per-CPU variable.
var forms73Specs = map[string]string{
	"amd64": "jd_forms=vfs_read $current current->pid comm=(task_struct)$current->comm:string mode=(file)file->f_mode:x32 cpu=this_cpu_read(@cpu_number):s32",
	"arm64": "jd_forms=vfs_read $current current->pid comm=(task_struct)$current->comm:string mode=(file)file->f_mode:x32",
}

// TestQEMUForms73 boots the 7.3 kernels: each form traces dd's own read
// (its pid, its name, a file open for reading, CPU 0 of the one-CPU
// guest), and the kernel's listing is read whatever '#' lines it holds.
func TestQEMUForms73(t *testing.T) {
	for _, a := range []string{"amd64", "arm64"} {
		arch := "7.3/" + a
		t.Run(arch, func(t *testing.T) {
			qemutest.NeedQEMU(t, arch)
			vml := dwarftest.NeedCorpus(t, arch+"/vmlinux")
			defs := dwprobeDefs(t, "-k", vml, "-D", forms73Specs[a])
			t.Logf("definitions:\n%s", strings.Join(defs, "\n"))
			g := qemutest.Boot(t, arch, defs, "dd if=/proc/version of=/dev/null bs=16 count=1\n", nil)
			if len(g.Rejected) != 0 {
				t.Fatalf("rejected %q", g.Rejected)
			}
			if len(g.Listed) != len(defs) {
				t.Errorf("listed %q, want the %d definitions", g.Listed, len(defs))
			}
			t.Logf("the listing's '#' lines: %d", len(g.ListedComments))
			n := 0
			for _, r := range qemutest.FilterEvent(g.Trace, "probe/jd_forms") {
				if r.Task != "dd" {
					continue
				}
				if n++; n == 1 {
					t.Logf("%s", r.Raw)
				}
				if pid, _ := strconv.Atoi(r.Args["pid"]); pid != r.PID || r.Args["comm"] != `"dd"` || traceNum(r.Args["mode"])&1 == 0 || traceNum(r.Args["arg1"]) == 0 {
					t.Errorf("%s: want dd's pid %d, comm \"dd\", a file open for reading, a task address", r.Raw, r.PID)
				}
				if c, ok := r.Args["cpu"]; ok && c != "0" {
					t.Errorf("%s: cpu %s, want 0 (one CPU)", r.Raw, c)
				}
			}
			if n == 0 {
				t.Errorf("no vfs_read by dd:\n%s", qemutest.TraceText(g.Trace))
			}
		})
	}
}

// traceNum reads a traced number as the kernel prints it (0x… or
// decimal); 0 when it does not read.
func traceNum(s string) uint64 {
	n, _ := strconv.ParseUint(s, 0, 64)
	return n
}
