package qemutest

import (
	"strings"
	"testing"
)

// TestParseConsole checks the marker sections of guest-init.sh on a console
// shaped like the real ones, with kernel noise around the markers.
func TestParseConsole(t *testing.T) {
	console := `[    0.000000] Linux version 6.1.0-56-cloud-amd64
DWPROBE-BOOTED
DWPROBE-SETUP-BEGIN
[    1.213349] loop: module loaded

DWPROBE-SETUP-END 0
DWPROBE-REJECT p:probe/bad do_sys_openat2+1
sh: write error: Invalid or incomplete multibyte or wide character
[    2.013349] trace_kprobe: error: Probe point is not an instruction boundary
  Command: p:probe/bad do_sys_openat2+1
                       ^
DWPROBE-REJECT-END
DWPROBE-EVENTS-BEGIN
r10:probe/smoke_read ksys_read ret=$retval:s64
DWPROBE-EVENTS-END
DWPROBE-WORKLOAD-BEGIN
out
partial
DWPROBE-WORKLOAD-END 3
DWPROBE-EVENTS-BEGIN
r10:probe/smoke_read ksys_read ret=$retval:s64
# fetch: RETVAL ST_RAW(8)
p:probe/added vfs_read
DWPROBE-EVENTS-END
DWPROBE-TRACE-BEGIN
# tracer: nop
#
# entries-in-buffer/entries-written: 1/4   #P:1
#
              dd-91      [000] .....     2.593656: smoke_read: (do_syscall_64+0x5d/0x90 <- ksys_read) ret=7
DWPROBE-TRACE-END
[    2.556801] reboot: Power down
`
	g, err := ParseConsole(console)
	if err != nil {
		t.Fatal(err)
	}
	wantRej := "p:probe/bad do_sys_openat2+1\nsh: write error: Invalid or incomplete multibyte or wide character\n"
	if len(g.Rejected) != 1 || !strings.HasPrefix(g.Rejected[0], wantRej) || !strings.HasSuffix(g.Rejected[0], "^") {
		t.Errorf("Rejected = %q", g.Rejected)
	}
	if g.Workload != "out\npartial" || g.WorkloadExit != 3 || g.Overwritten != 3 {
		t.Errorf("Workload %q, exit %d, overwritten %d", g.Workload, g.WorkloadExit, g.Overwritten)
	}
	if g.Setup != "[    1.213349] loop: module loaded\n" || g.SetupExit != 0 {
		t.Errorf("Setup %q, exit %d", g.Setup, g.SetupExit)
	}
	if len(g.Listed) != 2 || g.Listed[1] != "p:probe/added vfs_read" {
		t.Errorf("Listed = %q, want the listing after the workload", g.Listed)
	}
	if len(g.ListedComments) != 1 || g.ListedComments[0] != "# fetch: RETVAL ST_RAW(8)" {
		t.Errorf("ListedComments = %q, want the '#' line of the last listing", g.ListedComments)
	}
	if len(g.Trace) != 1 || g.Trace[0].Event != "probe/smoke_read" || g.Trace[0].PID != 91 || g.Trace[0].Args["ret"] != "7" {
		t.Errorf("Trace = %+v", g.Trace)
	}
	if _, err := ParseConsole(strings.Split(console, "DWPROBE-TRACE-END")[0]); err == nil {
		t.Error("a console cut inside the trace parsed")
	}
}
