package qemutest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQEMUSmoke boots the 6.1 and 7.3 corpus kernels (both machines) with
// a kprobe and a kretprobe written by hand and checks the traced path
// string and return value.
func TestQEMUSmoke(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "marker")
	if err := os.WriteFile(marker, []byte("dwprobe marker file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const workload = "cat /etc/dwprobe-marker >/dev/null\ndd if=/etc/dwprobe-marker bs=7 count=1\n"
	for _, c := range []struct{ arch, dfd, path string }{
		{"amd64", "%di", "%si"},
		{"arm64", "%x0", "%x1"},
		{"7.3/amd64", "%di", "%si"},
		{"7.3/arm64", "%x0", "%x1"},
	} {
		t.Run(c.arch, func(t *testing.T) {
			t.Parallel()
			defs := []string{
				"p:probe/smoke_open do_sys_openat2 dfd=" + c.dfd + ":s32 path=+0(" + c.path + "):string",
				"r:probe/smoke_read ksys_read ret=$retval:s64",
				"p:probe/smoke_bad no_such_function_dwprobe",
			}
			g := Boot(t, c.arch, defs, workload, map[string]string{"/etc/dwprobe-marker": marker})
			if len(g.Rejected) != 1 || !strings.HasPrefix(g.Rejected[0], defs[2]+"\n") {
				t.Errorf("rejected %q, want only %q", g.Rejected, defs[2])
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
			if !opened || !read7 {
				t.Errorf("trace lacks cat opening the marker at AT_FDCWD (%v) or dd's ksys_read returning 7 (%v):\n%s",
					opened, read7, TraceText(g.Trace))
			}
		})
	}
}
