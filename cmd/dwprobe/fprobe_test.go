package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
