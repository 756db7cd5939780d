package qemutest

import (
	"debug/elf"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/btf"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
)

// fprobeDefs are what Linux 6.12 takes and 6.1 does not: an fprobe at a
// function's entry with BTF argument names, one at its exit with $arg*
// and $retval, a tracepoint probe reading members through BTF, and a
// kretprobe reading $arg1 and $arg3.
var fprobeDefs = []string{
	"f:dwf/read_entry vfs_read count pos",
	"f:dwf/read_exit vfs_read%return $arg* ret=$retval",
	"t:dwt/exec sched_process_exec pid=p->pid old_pid fn=bprm->filename:string",
	"r:dwk/read_ret vfs_read filp=$arg1:x64 count=$arg3:u64 ret=$retval:s64",
}

// emitted612 are the definitions dwprobe writes for the 6.12 vmlinux:
// with --fprobe, an fprobe reading parameters by their BTF names; a
// tracepoint probe reading a member string; the kretprobe
// reading $arg1 and $arg3.
func emitted612(t *testing.T, arch string) []string {
	f, err := dwarfres.Open(dwarftest.NeedCorpus(t, "6.12/"+arch+"/vmlinux"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	for _, c := range []struct {
		spec   string
		fprobe bool
	}{
		{"dwe:read_fp=vfs_read count file->f_mode", true},
		{"dwe:read_ret2=vfs_read%return $arg1 $arg3 $retval", false},
		// $stackN at the entry, from an fprobe and from a kprobe, on
		// vfs_write: a return probe's hook (on vfs_read) replaces the
		// return address at the entry, $stack0, with its trampoline.
		{"dwe:write_fstk=vfs_write count $stack0 $stack1", true},
		{"dwe:write_kstk=vfs_write count $stack0 $stack1", false},
	} {
		spec, err := grammar.ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		defs, _, err := probegen.Definitions(f, spec, "", probegen.ResolveOptions{FProbe: c.fprobe, MaxProbes: 128})
		if err != nil || len(defs) != 1 {
			t.Fatalf("%q: %v, %v", c.spec, defs, err)
		}
		out = append(out, defs[0].String())
	}
	types, err := btf.FromFile(btf.ELF{Object: f.Object, Image: f.Image})
	if err != nil {
		t.Fatal(err)
	}
	tp, err := probegen.TracepointDefinition(types, probegen.KernelDialect(f), "t:dwe:tp_comm=sched_switch comm=prev->comm:string prev_pid=prev->pid next_pid=next->pid")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, tp.String())
}

// TestQEMUFProbe612 boots the 6.12 amd64 kernel with fprobeDefs, checked
// first against the dialect of 6.12 (accepted) and 6.1 (refused), and the
// definitions dwprobe emits (emitted612), and checks the values traced
// for dd's 7-byte read and every context switch.
func TestQEMUFProbe612(t *testing.T) { testFProbe612(t, "amd64", elf.EM_X86_64) }

// TestQEMUFProbe612Arm64 boots the 6.12 arm64 kernel with fprobeDefs:
// Debian builds it without fprobes (CONFIG_FPROBE needs rethook, which
// arm64 lacks in 6.12), so it refuses every f: and t: line, as the
// dialect dwprobe reads from its vmlinux says offline; the kretprobe's
// $arg1 and $arg3 trace dd's 7-byte read.
func TestQEMUFProbe612Arm64(t *testing.T) {
	f, err := dwarfres.Open(dwarftest.NeedCorpus(t, "6.12/arm64/vmlinux"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := probegen.KernelDialect(f)
	for _, def := range fprobeDefs {
		ev, err := tracefs.ParseDynamic(def)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Check(ev); (err == nil) != (ev.Kind == tracefs.KProbe) {
			t.Errorf("the arm64 6.12 vmlinux's dialect on %q: %v", def, err)
		}
	}
	g := Boot(t, "6.12/arm64", fprobeDefs, "dd if=/proc/version of=/dev/null bs=7 count=1\n", nil)
	var refused []string
	for _, r := range g.Rejected {
		if !strings.Contains(r, "Invalid argument") {
			t.Errorf("refused otherwise: %s", r)
		}
		refused = append(refused, strings.SplitN(r, "\n", 2)[0])
	}
	if len(refused) != len(fprobeDefs)-1 || len(g.Listed) != 1 || g.Listed[0][0] != 'r' {
		t.Fatalf("refused %q, listed %q: want every f: and t: refused, the kretprobe listed", refused, g.Listed)
	}
	n := 0
	for _, r := range FilterEvent(g.Trace, "dwk/read_ret") {
		if r.Task == "dd" && r.Args["count"] == "7" {
			n++
			if r.Args["ret"] != "7" || number(r.Args["filp"]) == 0 {
				t.Errorf("kretprobe traced %s", r.Raw)
			}
		}
	}
	if n != 1 {
		t.Errorf("dd's 7-byte read: %d kretprobe records:\n%s", n, TraceText(g.Trace))
	}
}

func testFProbe612(t *testing.T, arch string, m elf.Machine) {
	t.Helper()
	defs := append(append([]string(nil), fprobeDefs...), emitted612(t, arch)...)
	for _, def := range fprobeDefs {
		ev, err := tracefs.ParseDynamic(def)
		if err != nil {
			t.Fatal(err)
		}
		if err := tracefs.KernelDialect(m, 6, 12).Check(ev); err != nil {
			t.Errorf("6.12 dialect refuses %q: %v", def, err)
		}
		if err := tracefs.KernelDialect(m, 6, 1).Check(ev); err == nil {
			t.Errorf("6.1 dialect accepts %q", def)
		}
	}
	marker := filepath.Join(t.TempDir(), "marker")
	if err := os.WriteFile(marker, []byte("dwprobe marker file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const workload = "dd if=/etc/dwprobe-marker of=/dev/null bs=7 count=1\n"
	t.Logf("emitted:\n%s", joinLines(defs[len(fprobeDefs):]))
	g := Boot(t, "6.12/"+arch, defs, workload, map[string]string{"/etc/dwprobe-marker": marker})
	if len(g.Rejected) != 0 || len(g.Listed) != len(defs) {
		t.Fatalf("rejected %q; listed %q", g.Rejected, g.Listed)
	}
	t.Logf("listed:\n%s", joinLines(g.Listed))
	read7 := func(event string) []Record {
		var out []Record
		for _, r := range FilterEvent(g.Trace, event) {
			if r.Task == "dd" && r.Args["count"] == "7" {
				out = append(out, r)
			}
		}
		return out
	}
	entry, exit, kret := read7("dwf/read_entry"), read7("dwf/read_exit"), read7("dwk/read_ret")
	if len(entry) != 1 || len(exit) != 1 || len(kret) != 1 {
		t.Fatalf("dd's vfs_read of 7 bytes: %d entries, %d fprobe exits, %d kretprobe returns:\n%s",
			len(entry), len(exit), len(kret), TraceText(g.Trace))
	}
	t.Logf("traced:\n%s%s%s", entry[0].Raw+"\n", exit[0].Raw+"\n", kret[0].Raw)
	if exit[0].Args["ret"] != "7" || kret[0].Args["ret"] != "7" {
		t.Errorf("vfs_read returned %q (fprobe), %q (kretprobe), want 7", exit[0].Args["ret"], kret[0].Args["ret"])
	}
	// The struct file * the exit's $arg* read is the kretprobe's $arg1.
	if a, b := number(exit[0].Args["file"]), number(kret[0].Args["filp"]); a == 0 || a != b {
		t.Errorf("file %q (fprobe exit) and $arg1 %q (kretprobe) differ", exit[0].Args["file"], kret[0].Args["filp"])
	}
	checkExec(t, FilterEvent(g.Trace, "dwt/exec"))
	checkSwitches(t, FilterEvent(g.Trace, "dwe/tp_comm"))
	checkEmitted(t, g, exit[0])
	checkStack(t, g)
}

// checkStack: at dd's 7-byte vfs_write, the fprobe's $stack0 and $stack1
// (--fprobe) read what the kprobe's read at the same entry: $stack0 the
// return address, into ksys_write.
func checkStack(t *testing.T, g *Guest) {
	t.Helper()
	read7 := func(event string) []Record {
		var out []Record
		for _, r := range FilterEvent(g.Trace, event) {
			if r.Task == "dd" && number(r.Args["count"]) == 7 {
				out = append(out, r)
			}
		}
		return out
	}
	f, k := read7("dwe/write_fstk"), read7("dwe/write_kstk")
	if len(f) != 1 || len(k) != 1 {
		t.Fatalf("dd's read: %d fprobe, %d kprobe $stack records:\n%s", len(f), len(k), TraceText(g.Trace))
	}
	t.Logf("$stack, traced:\n%s\n%s", f[0].Raw, k[0].Raw)
	for _, a := range []string{"arg2", "arg3"} {
		if f[0].Args[a] == "" || f[0].Args[a] != k[0].Args[a] {
			t.Errorf("%s: fprobe %q, kprobe %q", a, f[0].Args[a], k[0].Args[a])
		}
	}
	if ret := number(k[0].Args["arg2"]); ret < 0xffffffff80000000 {
		t.Errorf("$stack0 %#x is no kernel text address (the return address)", ret)
	}
}

// checkEmitted checks the events of emitted612 against the fprobe exit
// of dd's read, exit: the same count and file mode, $arg1 the same file,
// and each switched-out task's comm its own.
func checkEmitted(t *testing.T, g *Guest, exit Record) {
	t.Helper()
	var fp, ret []Record
	for _, r := range FilterEvent(g.Trace, "dwe/read_fp") {
		if r.Task == "dd" && number(r.Args["count"]) == 7 {
			fp = append(fp, r)
		}
	}
	// perf names it read_ret2__return; the kernel names $arg1 and $arg3
	// after their BTF names, $retval arg3.
	for _, r := range FilterEvent(g.Trace, "dwe/read_ret2__return") {
		if r.Task == "dd" && number(r.Args["count"]) == 7 {
			ret = append(ret, r)
		}
	}
	if len(fp) != 1 || len(ret) != 1 {
		t.Fatalf("dd's read: %d emitted fprobes, %d emitted kretprobes:\n%s", len(fp), len(ret), TraceText(g.Trace))
	}
	t.Logf("emitted, traced:\n%s\n%s", fp[0].Raw, ret[0].Raw)
	// FMODE_READ (1) is set on the file dd reads.
	if number(fp[0].Args["f_mode"])&1 == 0 || number(ret[0].Args["file"]) != number(exit.Args["file"]) || number(ret[0].Args["arg3"]) != 7 {
		t.Errorf("emitted probes traced f_mode=%s, $arg1=%s (fprobe exit's file %s), $retval=%s",
			fp[0].Args["f_mode"], ret[0].Args["file"], exit.Args["file"], ret[0].Args["arg3"])
	}
	// The trace names a task by the comm it first saw (before an exec
	// renamed it): dd's own switches at least carry "dd".
	dd := 0
	for _, r := range FilterEvent(g.Trace, "dwe/tp_comm") {
		if r.Task == "dd" && r.Args["comm"] == `"dd"` {
			dd++
		}
	}
	if dd == 0 {
		t.Errorf("no switch from dd traced prev->comm \"dd\":\n%s", TraceText(FilterEvent(g.Trace, "dwe/tp_comm")))
	}
}

// checkExec: the exec the workload's shell makes (busybox re-executes
// itself, /proc/self/exe, to run dd) traced its PID, unchanged, and the
// file it ran.
func checkExec(t *testing.T, recs []Record) {
	t.Helper()
	for _, r := range recs {
		if r.Args["pid"] != strconv.Itoa(r.PID) || r.Args["old_pid"] != r.Args["pid"] || !strings.HasPrefix(r.Args["fn"], `"/`) {
			t.Errorf("exec traced %s", r.Raw)
		}
	}
	if len(recs) == 0 {
		t.Error("no exec traced")
		return
	}
	t.Logf("exec: %s", recs[0].Raw)
}

// checkSwitches: sched_switch runs in the task switched from, so every
// record's prev->pid is the PID the trace line names.
func checkSwitches(t *testing.T, recs []Record) {
	t.Helper()
	if len(recs) == 0 {
		t.Fatal("no sched_switch traced")
	}
	for _, r := range recs {
		if r.Args["prev_pid"] != strconv.Itoa(r.PID) || r.Args["next_pid"] == "" {
			t.Errorf("switch of %s-%d traced prev_pid=%s next_pid=%s", r.Task, r.PID, r.Args["prev_pid"], r.Args["next_pid"])
		}
	}
	t.Logf("%d switches, first: %s", len(recs), recs[0].Raw)
}

func number(s string) uint64 {
	n, _ := strconv.ParseUint(s, 0, 64)
	return n
}

func joinLines(l []string) string {
	out := ""
	for _, s := range l {
		out += s + "\n"
	}
	return out
}
