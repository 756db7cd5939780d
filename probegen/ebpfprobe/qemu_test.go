package ebpfprobe_test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/tracefs/qemutest"
)

// kernelSpecs are read both by BPF (kprobes attached by link.Kprobe at
// KprobeOf's symbol and offset) and by their kprobe_events definitions,
// with what dd's hits must read (known): a function's entry with a member
// chain as a string and a parameter; a line (fs/read_write.c:473, if (ret
// > 0)) with the same chain and a local; and a syscall's path, a string
// in user memory that the kernel's `string` fetch reads as user memory,
// beside a global (init_task's comm), read at its address moved by KASLR.
var kernelSpecs = []struct{ spec, known string }{
	{"vfs_read file->f_path.dentry->d_name.name:string count", `^name="version" count=0x7$`},
	{"vfs_read:23 file->f_path.dentry->d_name.name:string ret", `^name="version" ret=7$`},
	{"do_sys_openat2 filename:string init_task.comm:string", `^filename_string="(/proc/version|/dev/null)" comm="swapper/0"$`},
}

// TestQEMUKprobeBPF boots the corpus's kernels (6.1, 6.12 and 7.3, amd64 and
// arm64: this host has no kprobes, and its machine is not arm64) under
// QEMU: the
// kernelSpecs' points, resolved here against the guest's vmlinux, are
// attached in the guest with Trace by testdata/ktrace, which runs dd
// (two 7-byte reads of /proc/version: busybox's cat reads with sendfile)
// and prints what BPF read at each of dd's hits; the same
// points' definitions trace into the guest's tracefs. Both must agree,
// hit by hit. The guests boot with KASLR on, as Debian's kernels run:
// ktrace prints the offset Trace relocates globals by, which must not be
// 0. It needs QEMU and the corpus; it skips without them, failing under
// make test.
func TestQEMUKprobeBPF(t *testing.T) {
	t.Setenv("DWPROBE_QEMU_KASLR", "1")
	for _, c := range []struct{ corpus, goarch, arch string }{
		{"amd64", "amd64", "x86_64"},
		{"arm64", "arm64", "arm64"},
		{"6.12/amd64", "amd64", "x86_64"},
		{"6.12/arm64", "arm64", "arm64"},
		{"7.3/amd64", "amd64", "x86_64"},
		{"7.3/arm64", "arm64", "arm64"},
	} {
		t.Run(c.corpus, func(t *testing.T) {
			qemutest.NeedQEMU(t, c.corpus)
			probes, known := resolveKernel(t, dwarftest.NeedCorpus(t, c.corpus+"/vmlinux"))
			var defs []string
			for i, p := range probes {
				ev := p.Definition()
				ev.Group, ev.Name, ev.Raw = "dwbpf", fmt.Sprintf("p%d", i), ""
				defs = append(defs, ev.String())
			}
			js, err := json.Marshal(probes)
			if err != nil {
				t.Fatal(err)
			}
			extra := map[string]string{"/ktrace": buildKtrace(t, c.goarch)}
			qemutest.GuestFiles(t, extra, map[string]string{"/probes.json": string(js)})
			g := qemutest.Boot(t, c.corpus, defs, "/ktrace "+c.arch+" /probes.json dd if=/proc/version of=/dev/null bs=7 count=2\n", extra)
			if len(g.Rejected) > 0 || g.WorkloadExit != 0 {
				t.Fatalf("rejected %q; workload exit %d:\n%s", g.Rejected, g.WorkloadExit, g.Workload)
			}
			if m := kaslrLine.FindStringSubmatch(g.Workload); m == nil || m[1] == "0x0" {
				t.Errorf("the guest's KASLR offset: %q, want one that is not 0:\n%s", m, g.Workload)
			}
			compareGuest(t, g, probes, known)
		})
	}
}

// resolveKernel resolves kernelSpecs against vmlinux, all points, with
// what each point must read.
func resolveKernel(t *testing.T, vmlinux string) ([]probegen.Probe, []*regexp.Regexp) {
	t.Helper()
	tg, err := probegen.Open(probegen.OpenOptions{Kernel: vmlinux})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	var probes []probegen.Probe
	var known []*regexp.Regexp
	for _, k := range kernelSpecs {
		_, res, err := tg.Resolver(probegen.ResolveOptions{}).Resolve(k.spec)
		if err != nil {
			t.Fatal(err)
		}
		probes = append(probes, res.Probes...)
		for range res.Probes {
			known = append(known, regexp.MustCompile(k.known))
		}
	}
	return probes, known
}

// buildKtrace builds testdata/ktrace, static, for goarch.
func buildKtrace(t *testing.T, goarch string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ktrace")
	cmd := exec.Command("go", "build", "-ldflags=-s -w", "-o", bin, "./testdata/ktrace")
	cmd.Env = append(cmd.Environ(), "CGO_ENABLED=0", "GOARCH="+goarch)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building ktrace: %v\n%s", err, out)
	}
	return bin
}

var (
	bpfLine   = regexp.MustCompile(`(?m)^BPF pid=(\d+) point=(\d+) (.*)$`)
	kaslrLine = regexp.MustCompile(`(?m)^KASLR offset=(\S+)$`)
)

// compareGuest compares what BPF read in the guest, hit by hit, with what
// the definitions traced for the same process.
func compareGuest(t *testing.T, g *qemutest.Guest, probes []probegen.Probe, known []*regexp.Regexp) {
	t.Helper()
	bpf := map[string][]string{} // "PID/point" -> hits
	for _, m := range bpfLine.FindAllStringSubmatch(g.Workload, -1) {
		bpf[m[1]+"/"+m[2]] = append(bpf[m[1]+"/"+m[2]], m[3])
	}
	if len(bpf) == 0 {
		t.Fatalf("BPF read nothing:\n%s", g.Workload)
	}
	traced := map[string][]string{}
	for _, r := range g.Trace {
		i, ok := strings.CutPrefix(r.Event, "dwbpf/p")
		n, err := strconv.Atoi(i)
		if !ok || err != nil || n >= len(probes) {
			continue
		}
		var args []string
		for _, a := range probes[n].Args {
			args = append(args, a.Name+"="+r.Args[a.Name])
		}
		key := strconv.Itoa(r.PID) + "/" + i
		traced[key] = append(traced[key], strings.Join(args, " "))
	}
	for key, hits := range bpf {
		t.Logf("pid/point %s: BPF read %q", key, hits)
		_, point, _ := strings.Cut(key, "/")
		n, _ := strconv.Atoi(point)
		for _, h := range hits {
			if n >= len(known) || !known[n].MatchString(h) {
				t.Errorf("pid/point %s: BPF read %q, not what dd does", key, h)
			}
		}
		if got := traced[key]; strings.Join(got, "\n") != strings.Join(hits, "\n") {
			t.Errorf("pid/point %s: BPF read\n%s\nkprobe_events traced\n%s", key, strings.Join(hits, "\n"), strings.Join(got, "\n"))
		}
	}
	for i := range probes {
		found := false
		for key := range bpf {
			found = found || strings.HasSuffix(key, "/"+strconv.Itoa(i))
		}
		if !found {
			t.Errorf("point %d (%s+%d) read nothing", i, probes[i].Attach.Symbol, probes[i].Attach.Offset)
		}
	}
}
