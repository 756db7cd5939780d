package main

import (
	"os"
	"path/filepath"
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

// casts73Specs are typecasts the kernel reads at the entry (jd_cof: the
// user's container_of passes through) and the same ones at a line of
// vfs_read, where 7.3 reads none (NOSUP_BTFARG) and dwprobe writes them
// from the DWARF variable and the kernel's BTF (jd_cast): for
// /proc/version the file's mapping is its inode's own i_data, so the
// container_of of f_mapping is f_inode, and every inode number agrees.
var casts73Specs = []string{
	"jd_cof=vfs_read ino3=(inode,i_data)(file->f_mapping)->i_ino:u64 ino4=(inode)((file)file->f_inode)->i_ino:u64",
	"jd_cast=vfs_read:6 mode=(file)file->f_mode:x32 ino=(inode)((file)file->f_inode)->i_ino:u64 ino2=(inode,i_data)(file->f_mapping)->i_ino:u64",
}

// TestQEMUForms73 boots the 7.3 kernels (and checks a module's
// non-unique global, modGlobalSpec, in the same boot): each form traces dd's own read
// (its pid, its name, a file open for reading, CPU 0 of the one-CPU
// guest), and the kernel's listing is read whatever '#' lines it holds.
func TestQEMUForms73(t *testing.T) {
	for _, a := range []string{"amd64", "arm64"} {
		arch := "7.3/" + a
		t.Run(arch, func(t *testing.T) {
			qemutest.NeedQEMU(t, arch)
			vml := dwarftest.NeedCorpus(t, arch+"/vmlinux")
			defs := dwprobeDefs(t, "-k", vml, "-D", forms73Specs[a])
			for _, c := range casts73Specs {
				defs = append(defs, dwprobeDefs(t, "-k", vml, "-D", c)...)
			}
			// The same boot reads a module's non-unique global
			// (modGlobalSpec): vfat and fat are loaded first.
			modDefs := modGlobalDefs(t, arch)
			defs = append(defs, modDefs...)
			t.Logf("definitions:\n%s", strings.Join(defs, "\n"))
			extra := qemutest.Modules(t, arch, strings.Fields(modSetupList), nil)
			qemutest.GuestFiles(t, extra, map[string]string{qemutest.SetupPath: modSetup})
			g := qemutest.Boot(t, arch, defs, "dd if=/proc/version of=/dev/null bs=16 count=1\n"+modGlobalWorkload, extra)
			if len(g.Rejected) != 0 || g.SetupExit != 0 || g.WorkloadExit != 0 {
				t.Fatalf("rejected %q, setup exit %d (%s), workload exit %d (%s)", g.Rejected, g.SetupExit, g.Setup, g.WorkloadExit, g.Workload)
			}
			checkModGlobal(t, g.Trace)
			if len(g.Listed) != len(defs) {
				t.Errorf("listed %q, want the %d definitions", g.Listed, len(defs))
			}
			// The kernel lists '#' lines (its fetch programs) only when
			// built with CONFIG_PROBE_EVENTS_DUMP_FETCHARG, which Debian's
			// 7.3 is not: the booted listing has none.
			dump := kernelConfigHas(t, arch, "CONFIG_PROBE_EVENTS_DUMP_FETCHARG=y")
			t.Logf("the listing's '#' lines: %d (CONFIG_PROBE_EVENTS_DUMP_FETCHARG=y: %v)", len(g.ListedComments), dump)
			if dump != (len(g.ListedComments) > 0) {
				t.Errorf("%d '#' lines listed, CONFIG_PROBE_EVENTS_DUMP_FETCHARG=y %v", len(g.ListedComments), dump)
			}
			checkCasts73(t, g.Trace)
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

// checkCasts73 checks dd's hits of casts73Specs' events: a file open
// for reading, and one inode number however the casts reach it.
func checkCasts73(t *testing.T, trace []qemutest.Record) {
	t.Helper()
	for _, ev := range []struct {
		name string
		inos []string
	}{{"probe/jd_cof", []string{"ino3", "ino4"}}, {"probe/jd_cast", []string{"ino", "ino2"}}} {
		n := 0
		for _, r := range qemutest.FilterEvent(trace, ev.name) {
			if r.Task != "dd" {
				continue
			}
			if n++; n == 1 {
				t.Logf("%s", r.Raw)
			}
			a, b := r.Args[ev.inos[0]], r.Args[ev.inos[1]]
			if a == "" || a == "0" || a != b {
				t.Errorf("%s: %s=%s and %s=%s, want one inode number", r.Raw, ev.inos[0], a, ev.inos[1], b)
			}
			if m, ok := r.Args["mode"]; ok && traceNum(m)&1 == 0 {
				t.Errorf("%s: mode %s, want a file open for reading", r.Raw, m)
			}
		}
		if n == 0 {
			t.Errorf("no %s hit by dd:\n%s", ev.name, qemutest.TraceText(trace))
		}
	}
}

// kernelConfigHas reports whether the corpus kernel's config (in its
// image package, usr/lib/modules/REL/config) has line.
func kernelConfigHas(t *testing.T, arch, line string) bool {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dwarftest.CorpusDir(), arch, "image/usr/lib/modules/*/config"))
	if len(m) != 1 {
		dwarftest.Skip(t, "corpus: want one kernel config under %s/image, have %d (run make corpus)", arch, len(m))
	}
	b, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if l == line {
			return true
		}
	}
	return false
}

// traceNum reads a traced number as the kernel prints it (0x… or
// decimal); 0 when it does not read.
func traceNum(s string) uint64 {
	n, _ := strconv.ParseUint(s, 0, 64)
	return n
}
