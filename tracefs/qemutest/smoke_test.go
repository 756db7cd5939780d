package qemutest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQEMUSmoke boots the 6.1 and 7.3 corpus kernels (amd64, arm64) and
// the 6.12 ppc64el, s390x and riscv64 ones with
// a kprobe and a kretprobe written by hand and checks the traced path
// string and return value.
func TestQEMUSmoke(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "marker")
	if err := os.WriteFile(marker, []byte("dwprobe marker file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const workload = "cat /etc/dwprobe-marker >/dev/null\ndd if=/etc/dwprobe-marker bs=7 count=1\n"
	for _, c := range []struct {
		arch, dfd, path string
		// open, when set, replaces the entry probe's point and path:
		// s390x reads the user's path as a user string (its kernel and
		// user address spaces are separate: a kernel read faults);
		// riscv64 would need more: it inlines do_sys_openat2 into
		// do_sys_open, and its kernel refuses kprobes on the ftrace
		// site (four c.nop: Debian's 6.12 has no KPROBES_ON_FTRACE),
		// so the probe would go on do_filp_open+8, reading struct
		// filename's name, and it refuses kretprobes, which must be at
		// +0, too (retRefused).
		open       string
		retRefused bool
	}{
		{"amd64", "%di", "%si", "", false},
		{"arm64", "%x0", "%x1", "", false},
		{"7.3/amd64", "%di", "%si", "", false},
		{"7.3/arm64", "%x0", "%x1", "", false},
		{"6.12/ppc64el", "%gpr3", "%gpr4", "", false},
		{"6.12/s390x", "%r2", "%r3", "do_sys_openat2 dfd=%r2:s32 path=+0(%r3):ustring", false},
		// Not 6.12/riscv64: its kprobes fire (kprobe_profile counts the
		// hits) but no record reaches the ring buffer, while
		// tracepoints' do. Its kprobes are all breakpoints (no
		// KPROBES_ON_FTRACE), whose handler runs in NMI context
		// (do_trap_break: irqentry_nmi_enter), and 6.12's riscv does
		// not select ARCH_HAVE_NMI_SAFE_CMPXCHG, so
		// rb_reserve_next_event refuses every write in NMI context
		// (kernel/trace/ring_buffer.c); 7.3's riscv selects it.
	} {
		t.Run(c.arch, func(t *testing.T) {
			t.Parallel()
			open := "do_sys_openat2 dfd=" + c.dfd + ":s32 path=+0(" + c.path + "):string"
			if c.open != "" {
				open = c.open
			}
			defs := []string{
				"p:probe/smoke_open " + open,
				"r:probe/smoke_read ksys_read ret=$retval:s64",
				"p:probe/smoke_bad no_such_function_dwprobe",
			}
			g := Boot(t, c.arch, defs, workload, map[string]string{"/etc/dwprobe-marker": marker})
			refused := []string{defs[2]}
			if c.retRefused {
				refused = []string{defs[1], defs[2]}
			}
			if len(g.Rejected) != len(refused) {
				t.Errorf("rejected %q, want %q", g.Rejected, refused)
			}
			for i := range min(len(refused), len(g.Rejected)) {
				if !strings.HasPrefix(g.Rejected[i], refused[i]+"\n") {
					t.Errorf("rejected %q, want %q", g.Rejected[i], refused[i])
				}
			}
			if g.WorkloadExit != 0 || !strings.Contains(g.Workload, "dwprobe") {
				t.Errorf("workload exit %d, output %q", g.WorkloadExit, g.Workload)
			}
			var opened, read7 bool
			for _, r := range g.Trace {
				switch {
				case r.Event == "probe/smoke_open" && r.Task == "cat" && r.Args["path"] == `"/etc/dwprobe-marker"`:
					opened = r.Args["dfd"] == "-100"
				case r.Event == "probe/smoke_read" && r.Task == "dd" && r.Args["ret"] == "7":
					read7 = strings.HasSuffix(r.Loc, " <- ksys_read")
				}
			}
			if !opened || !read7 && !c.retRefused {
				t.Errorf("trace lacks cat opening the marker at AT_FDCWD (%v) or dd's ksys_read returning 7 (%v):\n%s",
					opened, read7, TraceText(g.Trace))
			}
		})
	}
}
