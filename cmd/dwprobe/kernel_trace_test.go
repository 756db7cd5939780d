package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/ebpfprobe"
	"github.com/dwprobe/dwprobe/tracefs/qemutest"
)

// bootedTraceSpecs are the probes TestQEMUTrace traces both ways, covering
// every fetch form a definition carries: a register as written (REG and
// REG2, the machine's first and second argument registers), the stack pointer and a stack slot,
// $argN, $comm, a member chain as a kernel string, a function pointer as
// a symbol, globals moved by KASLR (a scalar, a string, an element and an
// array of a char array, two bitfields), a user string read as ustring
// and as string (the kernel's string reads a user address as user
// memory), a raw load of user memory (+u), a line's local, $retval of a
// return probe and a member chain from it. CHAR is a char argument on
// kernels that have the type (6.10 on), nothing on 6.1; ARG1 is $arg1,
// but on 6.1 arm64, whose vfs_read point is vfs_read+8 (not an entry,
// where the kernel reads no $argN).
var bootedTraceSpecs = []string{
	"vfs_read file->f_path.dentry->d_name.name:string count ARG1 REG $comm $stack $stack0 file->f_op->read_iter:symbol CHAR" +
		" init_task.comm[1] init_task.comm:u8[4] nr_cpu_ids init_task.pid init_task.comm:string init_task.sched_reset_on_fork init_task.in_iowait",
	"do_sys_openat2 filename:ustring filename:string +u0(REG2):u8 how->flags dfd",
	"vfs_read:23 file->f_path.dentry->d_name.name:string ret",
	"ksys_read%return $retval",
	"getname_flags%return $retval->name:string",
}

// guestHitLine is a line dwprobe trace prints: TASK-TID [CPU] SECS:
// GROUP/EVENT: (POINT) ARGS.
var guestHitLine = regexp.MustCompile(`(?m)^ *(.+)-(\d+) +\[(\d+)\] +\d+\.\d{6}: (\S+): \(([^)]*)\) ?(.*)$`)

// TestQEMUTrace boots each kernel generation of the corpus (6.1, 6.12,
// 7.3; amd64 and arm64; KASLR on, as Debian's kernels run) once. On the
// host, dwprobe trace --write-points resolves bootedTraceSpecs against the
// guest's vmlinux; in the guest, dwprobe trace --points attaches them as
// BPF programs and prints dd's hits (dd reads /proc/version twice, 7
// bytes at a time), while the same points' definitions trace into
// tracefs. For every point and every hit of dd, in order, the arguments
// dwprobe trace prints must be the ones the kernel's trace prints, text
// for text. It needs QEMU and the corpus; it skips without them, failing
// under make test.
func TestQEMUTrace(t *testing.T) {
	t.Setenv("DWPROBE_QEMU_KASLR", "1")
	const char = "file->f_path.dentry->d_name.name[0]:char"
	for _, c := range []struct{ corpus, goarch, reg, reg2, char, arg1 string }{
		{"amd64", "amd64", "%di", "%si", "", "$arg1"},
		{"arm64", "arm64", "%x0", "%x1", "", ""},
		{"6.12/amd64", "amd64", "%di", "%si", char, "$arg1"},
		{"6.12/arm64", "arm64", "%x0", "%x1", char, "$arg1"},
		{"7.3/amd64", "amd64", "%di", "%si", char, "$arg1"},
		{"7.3/arm64", "arm64", "%x0", "%x1", char, "$arg1"},
	} {
		t.Run(c.corpus, func(t *testing.T) {
			qemutest.NeedQEMU(t, c.corpus)
			vml := dwarftest.NeedCorpus(t, c.corpus+"/vmlinux")
			bin := guestDwprobe(t, c.goarch)
			pts := filepath.Join(t.TempDir(), "points.json")
			args := []string{"trace", "-q", "-k", vml, "--write-points", pts}
			for _, s := range bootedTraceSpecs {
				args = append(args, strings.NewReplacer("REG2", c.reg2, "REG", c.reg, "CHAR", c.char, "ARG1", c.arg1).Replace(s))
			}
			var out, errb strings.Builder
			if err := run(context.Background(), args, &out, &errb); err != nil {
				t.Fatalf("dwprobe %s: %v\n%s", strings.Join(args, " "), err, errb.String())
			}
			probes, _, err := readPoints(pts)
			if err != nil {
				t.Fatal(err)
			}
			var defs []string
			for i, p := range probes {
				ev := p.Definition()
				ev.Group, ev.Name, ev.Raw = "dwk", fmt.Sprintf("p%d", i), ""
				defs = append(defs, ev.String())
			}
			const workload = "grep -w vfs_read /proc/kallsyms\n" +
				"dwprobe trace -q --points /points.json -- dd if=/proc/version of=/dev/null bs=7 count=2\n"
			g := qemutest.Boot(t, c.corpus, defs, workload, map[string]string{"/bin/dwprobe": bin, "/points.json": pts})
			if len(g.Rejected) > 0 || g.WorkloadExit != 0 {
				t.Fatalf("rejected %q; workload exit %d:\n%s", g.Rejected, g.WorkloadExit, g.Workload)
			}
			off, err := ebpfprobe.KernelOffset(probes, strings.NewReader(g.Workload))
			if err != nil || off == 0 {
				t.Errorf("the guest's KASLR offset: %#x, %v; want one that is not 0", off, err)
			}
			compareTrace(t, g, probes)
		})
	}
}

// compareTrace compares, point by point, the hits dwprobe trace printed
// in g's workload with the kernel's trace of the same threads.
func compareTrace(t *testing.T, g *qemutest.Guest, probes []answer.Probe) {
	t.Helper()
	index := map[string]int{} // "GROUP/EVENT (POINT)" -> point
	for i, p := range probes {
		index[p.Group+"/"+p.Name+" ("+ebpfprobe.PointText(p)+")"] = i
	}
	bpf := map[string][]string{} // "TID/point" -> args, hit by hit
	tids := map[int]bool{}
	for _, m := range guestHitLine.FindAllStringSubmatch(g.Workload, -1) {
		i, ok := index[m[4]+" ("+m[5]+")"]
		if !ok {
			t.Errorf("a hit of no point: %s", m[0])
			continue
		}
		tid, _ := strconv.Atoi(m[2])
		tids[tid] = true
		key := m[2] + "/" + strconv.Itoa(i)
		bpf[key] = append(bpf[key], m[6])
	}
	if len(bpf) == 0 {
		t.Fatalf("dwprobe trace printed no hit:\n%s", g.Workload)
	}
	traced := map[string][]string{}
	raw := map[string]string{} // "TID/point" -> the kernel's first line
	for _, r := range g.Trace {
		n, ok := strings.CutPrefix(r.Event, "dwk/p")
		i, err := strconv.Atoi(n)
		if !ok || err != nil || i >= len(probes) || !tids[r.PID] {
			continue
		}
		var args []string
		for j, a := range probes[i].Args {
			name := a.Name
			if name == "" {
				name = "arg" + strconv.Itoa(j+1)
			}
			args = append(args, name+"="+r.Args[name])
		}
		key := strconv.Itoa(r.PID) + "/" + n
		if raw[key] == "" {
			raw[key] = r.Raw
		}
		traced[key] = append(traced[key], strings.Join(args, " "))
	}
	for key := range traced {
		if bpf[key] == nil {
			bpf[key] = []string{}
		}
	}
	for key, hits := range bpf {
		_, n, _ := strings.Cut(key, "/")
		i, _ := strconv.Atoi(n)
		if got := traced[key]; strings.Join(got, "\n") != strings.Join(hits, "\n") {
			t.Errorf("tid/point %s (%s at %s): dwprobe trace printed\n%s\nkprobe_events traced\n%s\nits first line:\n%s", key, probes[i].Name, ebpfprobe.PointText(probes[i]),
				strings.Join(hits, "\n"), strings.Join(got, "\n"), raw[key])
		} else {
			t.Logf("tid/point %s (%s): %d hits equal, the first: %s", key, ebpfprobe.PointText(probes[i]), len(hits), hits[0])
		}
	}
	for i, p := range probes {
		found := false
		for key := range bpf {
			found = found || strings.HasSuffix(key, "/"+strconv.Itoa(i)) && len(bpf[key]) > 0
		}
		if !found {
			t.Errorf("point %d (%s at %s) has no hit of dd", i, p.Name, ebpfprobe.PointText(p))
		}
	}
}
