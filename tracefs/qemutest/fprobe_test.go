package qemutest

import (
	"debug/elf"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/dwprobe/dwprobe/tracefs"
)

// fprobeDefs are what Linux 6.12 takes and 6.1 does not: an fprobe at a
// function's entry with BTF argument names, one at its exit with $arg*
// and $retval, a tracepoint probe reading members through BTF, and a
// kretprobe reading $arg1 and $arg3.
var fprobeDefs = []string{
	"f:dwf/read_entry vfs_read count pos",
	"f:dwf/read_exit vfs_read%return $arg* ret=$retval",
	"t:dwt/switch sched_switch prev_pid=prev->pid next_pid=next->pid",
	"r:dwk/read_ret vfs_read filp=$arg1:x64 count=$arg3:u64 ret=$retval:s64",
}

// TestQEMUFProbe612 boots the 6.12 amd64 kernel with fprobeDefs, checked
// first against the dialect of 6.12 (accepted) and 6.1 (refused), and
// checks the values traced for dd's 7-byte read and every context switch.
func TestQEMUFProbe612(t *testing.T) {
	for _, def := range fprobeDefs {
		ev, err := tracefs.ParseDynamic(def)
		if err != nil {
			t.Fatal(err)
		}
		if err := tracefs.KernelDialect(elf.EM_X86_64, 6, 12).Check(ev); err != nil {
			t.Errorf("6.12 dialect refuses %q: %v", def, err)
		}
		if err := tracefs.KernelDialect(elf.EM_X86_64, 6, 1).Check(ev); err == nil {
			t.Errorf("6.1 dialect accepts %q", def)
		}
	}
	marker := filepath.Join(t.TempDir(), "marker")
	if err := os.WriteFile(marker, []byte("dwprobe marker file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const workload = "dd if=/etc/dwprobe-marker of=/dev/null bs=7 count=1\n"
	g := Boot(t, "6.12/amd64", fprobeDefs, workload, map[string]string{"/etc/dwprobe-marker": marker})
	if len(g.Rejected) != 0 || len(g.Listed) != len(fprobeDefs) {
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
	checkSwitches(t, FilterEvent(g.Trace, "dwt/switch"))
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
