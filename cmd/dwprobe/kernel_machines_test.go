package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs/qemutest"
)

// machineSpecs are the probes TestKernelMachines has dwprobe define on the
// 6.12 ppc64el and s390x kernels and riscv64's 7.2.11 (issue 36): entry
// arguments with a user string and a member through a pointer, a member
// chain to a string, a return value, a global, a line's local (and on
// ppc64el machineL21's). The lines were picked with -L and -V on the
// vmlinux files (ksys_read:12 is the line after vfs_read returns on all
// three).
var machineSpecs = []string{
	"m_open=do_sys_openat2 dfd filename:ustring how->flags",
	"m_vfs_read=vfs_read name=file->f_path.dentry->d_name.name:string count file->f_pos",
	"m_ksys_read=ksys_read fd count",
	"m_ksys_read_ret=ksys_read%return $retval:s64",
	"m_global=kernel_clone max_threads",
	"m_ksys_read_L12=ksys_read:12 ret",
}

// machineL21 reads the opened file's name at do_sys_openat2:21, where
// fd_install is called, on ppc64el. Not on riscv64's 7.2, whose
// do_sys_openat2 ends at its line 9 (the fd is installed in a helper).
// Not on s390x: there the line's first instruction
// is the brasl to fd_install, and with a kprobe on it the guest's fds are
// never installed (every later open's fd is EBADF: seen under QEMU 7.2's
// TCG, whose single-stepping of an s390 kprobe's out-of-line relative
// call is suspect; ksys_read:12, an lgr, traces right).
const machineL21 = "m_open_L21=do_sys_openat2:21 fd name=f->f_path.dentry->d_name.name:string f->f_flags"

// machineKernels are the boots, in parallel. riscv64's is 7.x's (7.2.11):
// 6.12's riscv64 kprobe events fire but write no trace record (a kprobe's
// breakpoint handler runs in NMI context, where its ring buffer takes no
// writes without ARCH_HAVE_NMI_SAFE_CMPXCHG, which riscv selects from
// 7.x: see tracefs/qemutest's TestQEMUSmoke).
var machineKernels = []string{"6.12/ppc64el", "6.12/s390x", "7.3/riscv64"}

// TestKernelMachines defines machineSpecs with dwprobe on each kernel of
// machineKernels, boots it with them and a dd that reads a 13-byte file in
// blocks of 5, and checks the traced values: the open's directory fd,
// path and flags, the opened file's name at the line that installs its
// fd, vfs_read's file name, count and position, ksys_read's return
// values, and max_threads against /proc/sys/kernel/threads-max. The same
// guest runs the static app fixture of its machine with dwprobe's uprobes
// (addUserMachine, checkUserMachine).
func TestKernelMachines(t *testing.T) {
	for _, key := range machineKernels {
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			qemutest.NeedQEMU(t, key)
			vml := dwarftest.NeedCorpus(t, key+"/vmlinux")
			specs := machineSpecs
			if key == "6.12/ppc64el" {
				specs = append(specs[:len(specs):len(specs)], machineL21)
			}
			defs, perSpec, notrace := e2eDefinitions(t, vml, specs)
			if len(notrace) > 0 {
				t.Errorf("notrace points: %v", notrace)
			}
			t.Logf("%s: %d definitions:\n%s", key, len(defs), strings.Join(defs, "\n"))
			if !strings.Contains(strings.Join(perSpec["m_global"], "\n"), "max_threads=@max_threads+0") {
				t.Errorf("m_global: %q, want @max_threads (CONFIG_KALLSYMS_ALL=y)", perSpec["m_global"])
			}
			const data = "0123456789ABC"
			extra := map[string]string{}
			qemutest.GuestFiles(t, extra, map[string]string{"/etc/dwprobe-m": data})
			const workload = "echo threads-max=$(cat /proc/sys/kernel/threads-max)\n/bin/dd if=/etc/dwprobe-m of=/tmp/dwprobe-m-out bs=5 count=3\n"
			g := qemutest.Boot(t, key, defs, workload+addUserMachine(t, key, extra), extra)
			if len(g.Rejected) > 0 || g.WorkloadExit != 0 {
				t.Fatalf("rejected %q; workload exit %d:\n%s", g.Rejected, g.WorkloadExit, g.Workload)
			}
			checkMachineTrace(t, key, g, len(perSpec["m_open_L21"]) > 0)
			checkUserMachine(t, key, g)
		})
	}
}

func checkMachineTrace(t *testing.T, key string, g *qemutest.Guest, withL21 bool) {
	t.Helper()
	m := regexp.MustCompile(`threads-max=(\d+)`).FindStringSubmatch(g.Workload)
	if m == nil {
		t.Fatalf("no threads-max in %q", g.Workload)
	}
	var open, openL21, global bool
	var reads, rets, l12 []string
	for _, r := range g.Trace {
		switch {
		case r.Event == "probe/m_global":
			global = r.Args["max_threads"] == m[1]
		case r.Task != "dd":
		case r.Event == "probe/m_open" && r.Args["filename_ustring"] == `"/etc/dwprobe-m"`:
			flags, _ := strconv.ParseUint(strings.TrimPrefix(r.Args["flags"], "0x"), 16, 64)
			open = r.Args["dfd"] == "-100" && flags&oAccMode == 0
		case r.Event == "probe/m_open_L21" && r.Args["name"] == `"dwprobe-m"`:
			fd, err := strconv.Atoi(r.Args["fd"])
			openL21 = err == nil && fd >= 0
		case r.Event == "probe/m_vfs_read" && r.Args["name"] == `"dwprobe-m"`:
			reads = append(reads, r.Args["count"]+"@"+r.Args["f_pos"])
		case r.Event == "probe/m_ksys_read_ret__return":
			rets = append(rets, r.Args["arg1"])
		case r.Event == "probe/m_ksys_read_L12":
			l12 = append(l12, r.Args["ret"])
		}
	}
	// dd reads 5 bytes three times from offsets 0, 5, 10; the last read
	// returns the 3 bytes left. Its other reads (of the terminal, say) are
	// not of this file.
	wantReads := "0x5@0 0x5@5 0x5@10"
	if got := strings.Join(reads, " "); got != wantReads {
		t.Errorf("%s: vfs_read of dwprobe-m (count@pos) %q, want %q", key, got, wantReads)
	}
	if got := strings.Join(rets, " "); !strings.Contains(got, "5 5 3") {
		t.Errorf("%s: ksys_read returned %q in dd, want 5 5 3 among them", key, got)
	}
	if got := strings.Join(l12, " "); !strings.Contains(got, "5 5 3") {
		t.Errorf("%s: ksys_read:12's ret %q in dd, want 5 5 3 among them", key, got)
	}
	if !open || withL21 && !openL21 || !global {
		t.Errorf("%s: open (dfd, path, flags) %v, the line's fd and name %v, max_threads %v:\n%s",
			key, open, openL21, global, qemutest.TraceText(g.Trace))
	}
}
