package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
)

// TestFixtureDefinitionsAgainstPerf compares whole -D output with perf probe
// -x on the fixtures built by gcc and clang, including lazy patterns (the
// fixtures' comp_dir points at their sources, so no -s is needed).
func TestFixtureDefinitionsAgainstPerf(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		if os.Getenv("DWPROBE_REQUIRE_ALL") == "1" {
			t.Fatal("perf not installed (make deps)")
		}
		t.Skip("perf not installed")
	}
	specs := []string{"work", "compute%return", "checksum", "item_score", "sum_list:5",
		"work;printf*", "sum_list;total*", "app_util.c;return*", "item_score;return*",
		"compute;return*", "app_util2.c:94", "checksum@app_util2.c"}
	// perf fails where dwprobe answers: functions with a .cold part
	// ("Failed to find symbol"), and it crashes on clang DWARF 5 line lookups.
	perfFails := map[string]bool{
		// histogram has a .cold part (DW_AT_ranges): perf's symbol
		// lookup fails on it, dwprobe names the address.
		"app-gcc-O2-dwarf5 app_util2.c:94": true,
	}
	bid := t.TempDir()
	for _, v := range []string{"app-gcc-O0-dwarf4", "app-gcc-O2-dwarf5", "app-clang-O0-dwarf4", "app-clang-O2-dwarf5", "app-gcc-O2-nopie"} {
		bin := fixture(t, v)
		for _, s := range specs {
			cmd := exec.Command("perf", "--buildid-dir", bid, "probe", "-x", bin, "-D", s)
			want, perr := cmd.Output()
			var ee *exec.ExitError
			if errors.As(perr, &ee) && ee.ProcessState.ExitCode() < 0 {
				t.Logf("%s %q: perf crashed; skipped", v, s)
				continue
			}
			var out bytes.Buffer
			err := run(context.Background(), []string{"-x", bin, "-D", s}, &out, &bytes.Buffer{})
			if perfFails[v+" "+s] {
				if perr == nil || err != nil || out.Len() == 0 {
					t.Errorf("%s %q: want perf to fail (%v) and dwprobe to answer (%v)", v, s, perr, err)
				}
				continue
			}
			if (err != nil) != (perr != nil) || out.String() != string(want) {
				t.Errorf("%s %q:\nperf (%v):\n%sdwprobe (%v):\n%s", v, s, perr, want, err, out.String())
			}
		}
	}
}
