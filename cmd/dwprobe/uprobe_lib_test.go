package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestUprobeLiveSharedLib probes a shared library (PIC, offsets within the
// .so) used by a running program: arguments, a string and $retval, for gcc
// and clang; each traced value is compared with what the program printed.
// (The library's exported global is not read here: gcc's PIE executable
// takes a copy of it (R_X86_64_COPY) and the library's own stays 0, which
// dwprobe notes.)
func TestUprobeLiveSharedLib(t *testing.T) {
	fsys := needLive(t)
	line := regexp.MustCompile(`(?m)^libuser: i=(\d+) word=(\w+) add=(-?\d+) strsum=(-?\d+) acc=(-?\d+)$`)
	for _, tag := range []string{"gcc", "clang"} {
		t.Run(tag, func(t *testing.T) {
			// The program finds the library beside it ($ORIGIN): private
			// copies of both, so no other process fires these probes.
			dir := t.TempDir()
			lib := filepath.Join(dir, "libfix-"+tag+"-O2.so")
			user := filepath.Join(dir, "libuser")
			dwarftest.CopyFile(t, fixture(t, "libfix-"+tag+"-O2.so"), lib, 0o755)
			dwarftest.CopyFile(t, fixture(t, "libuser-"+tag+"-O2"), user, 0o755)
			g := liveGroup(t, fsys, "lib_"+tag)
			in := newInstance(t, fsys, g)
			if _, errOut, err := dw("-x", lib, "-a", g+":add=fix_add a b",
				"-a", g+":addret=fix_add%return $retval:s32", "-a", g+":strsum=fix_strsum s:string"); err != nil {
				t.Fatalf("dwprobe -a: %v\n%s", err, errOut)
			}
			in.enable(t, g, true)
			cmd := exec.Command(user)
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pid := cmd.Process.Pid
			if err := cmd.Wait(); err != nil {
				t.Fatal(err)
			}
			in.enable(t, g, false)
			evs := in.events(t, pid)
			var adds, rets, sums []map[string]string
			for _, e := range evs {
				switch e.event {
				case "add":
					adds = append(adds, e.args)
				case "addret__return": // a given name still gets __return, as in perf
					rets = append(rets, e.args)
				case "strsum":
					sums = append(sums, e.args)
				}
			}
			lines := line.FindAllStringSubmatch(stdout.String(), -1)
			if len(lines) != 3 || len(adds) != 3 || len(rets) != 3 || len(sums) != 3 {
				t.Fatalf("want 3 of each: printed %d, add %d, addret %d, strsum %d\n%s", len(lines), len(adds), len(rets), len(sums), stdout.String())
			}
			acc := 0
			for i, l := range lines {
				a, _ := strconv.Atoi(l[3])
				want := map[string]string{"a": l[1], "b": strconv.Itoa(acc)}
				for k, v := range want {
					if adds[i][k] != v {
						t.Errorf("fix_add call %d: %s=%s, want %s", i, k, adds[i][k], v)
					}
				}
				if rets[i]["arg1"] != l[3] {
					t.Errorf("fix_add return %d: %s, want %s", i, rets[i]["arg1"], l[3])
				}
				if sums[i]["s_string"] != l[2] {
					t.Errorf("fix_strsum call %d: s=%q, want %q", i, sums[i]["s_string"], l[2])
				}
				s, _ := strconv.Atoi(l[4])
				acc += a + s
			}
		})
	}
}
