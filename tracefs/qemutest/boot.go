package qemutest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// Arches are the architectures of the corpus kernels Boot can run.
var Arches = []string{"amd64", "arm64"}

// qemuBin names the system emulator of each corpus architecture; ppc64el
// and s390x have 6.12 kernels, riscv64 6.12 and 7.x (7.3/riscv64, a
// 7.2.11: corpusgen.sh's MACHINES).
var qemuBin = map[string]string{"amd64": "qemu-system-x86_64", "arm64": "qemu-system-aarch64",
	"ppc64el": "qemu-system-ppc64", "s390x": "qemu-system-s390x", "riscv64": "qemu-system-riscv64"}

// scriptsDir is testdata/scripts of this module, found from this file so
// that tests of any package can boot a guest.
func scriptsDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "scripts")
}

// NeedQEMU skips the test (fails it under make test) when qemu for arch
// or the corpus kernel and busybox are missing. arch is the corpus
// directory of the kernel: "amd64" (6.1), "6.12/amd64".
func NeedQEMU(t testing.TB, arch string) {
	t.Helper()
	bin := qemuBin[path.Base(arch)]
	if bin == "" {
		t.Fatalf("no qemu for arch %q", arch)
	}
	dwarftest.NeedTool(t, bin)
	dwarftest.NeedCorpus(t, arch+"/vmlinuz")
	dwarftest.NeedCorpus(t, arch+"/busybox-bin")
}

// SetupPath is where, in Boot's extra files, a shell script goes that the
// guest runs before it writes the definitions (to load the modules they
// probe, say); Guest.Setup holds what it printed.
const SetupPath = "/setup.sh"

// Boot boots the corpus kernel for arch ("amd64" or "arm64", 6.1's; or
// "6.12/amd64", "6.12/arm64") under TCG with an initramfs holding busybox,
// defs (written one by one to kprobe_events, f: and t: lines to
// dynamic_events), workload (run as /workload.sh with the probes enabled)
// and extra host files (guest path -> host path, mode kept). It fails the
// test when the guest does not reach the end of its trace.
func Boot(t *testing.T, arch string, defs []string, workload string, extra map[string]string) *Guest {
	t.Helper()
	NeedQEMU(t, arch)
	dir := t.TempDir()
	initrd := filepath.Join(dir, "initramfs.cpio")
	if err := WriteInitramfs(initrd, arch, defs, workload, extra); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(initrd); err == nil {
		t.Logf("%s initramfs: %.1f MB", arch, float64(st.Size())/1e6)
	}
	// The script's own timeout is the hard limit; this one only guards
	// against a qemu that ignores it, and WaitDelay against a qemu that
	// outlives its killed parent holding the console pipe.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(scriptsDir(), "qemu.sh"), arch, dir)
	cmd.WaitDelay = 10 * time.Second
	cmd.Env = append(os.Environ(), "DWPROBE_CORPUS="+dwarftest.CorpusDir())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s guest ran %.1fs", arch, time.Since(start).Seconds())
	console := strings.ReplaceAll(out.String(), "\r\n", "\n")
	if err != nil {
		t.Fatalf("qemu.sh %s: %v\nstderr: %s\nconsole tail:\n%s", arch, err, errb.String(), Tail(console, 40))
	}
	g, err := ParseConsole(console)
	if err != nil {
		t.Fatalf("%s guest: %v\nconsole tail:\n%s", arch, err, Tail(console, 40))
	}
	if g.Overwritten > 0 {
		t.Logf("%s guest: the trace buffer overwrote %d events", arch, g.Overwritten)
	}
	return g
}

// Tail returns the last n lines of s.
func Tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
