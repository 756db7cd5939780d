package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/btf"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/dwarfres/locate"
)

// needRunningBTF skips (or fails under DWPROBE_REQUIRE_ALL) without the
// running kernel's BTF.
func needRunningBTF(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(btf.RunningPath); err != nil {
		dwarftest.Skip(t, "no BTF for the running kernel: %v", err)
	}
}

// TestBTFRunningKernel is issue 16 on this host: the running kernel's BTF
// answers -D, -a -n, -V and -F with --btf, and, when no vmlinux is found
// for it, without (checked for shape: the kernel is whatever runs here).
func TestBTFRunningKernel(t *testing.T) {
	needRunningBTF(t)
	vfsRead := regexp.MustCompile(`^p:probe/vfs_read vfs_read\+0 name=\+0\(\+\d+\(\+\d+\(%di\)\)\):string count=%dx:x64\n$`)
	if m := tracefsMachine(); m != "x86_64" {
		vfsRead = regexp.MustCompile(`^p:probe/vfs_read vfs_read\+0 name=\+0\(\+\d+\(\+\d+\(%x0\)\)\):string count=%x2:x64\n$`)
	}
	spec := "vfs_read file->f_path.dentry->d_name.name:string count"
	out, errs, code := runBin(t, "--btf", btf.RunningPath, "-D", spec)
	if code != 0 || !vfsRead.MatchString(out) || !strings.Contains(errs, "note: from BTF ("+btf.RunningPath+" with /proc/kallsyms)") {
		t.Errorf("--btf -D: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code = runBin(t, "--btf", btf.RunningPath, "-n", "-a", spec)
	if code != 0 || !vfsRead.MatchString(out) || !strings.Contains(errs, "Dry run: nothing written to kprobe_events") {
		t.Errorf("--btf -n -a: exit %d\n%s%s", code, out, errs)
	}
	out, _, code = runBin(t, "--btf", btf.RunningPath, "-D", "vfs_read%return $retval")
	if code != 0 || out != "r:probe/vfs_read__return vfs_read+0 $retval:s64\n" {
		t.Errorf("--btf -D %%return: exit %d %q", code, out)
	}
	out, _, code = runBin(t, "--btf", btf.RunningPath, "-V", "vfs_read")
	if code != 0 || !strings.Contains(out, "@<vfs_read+0> from BTF") || !strings.Contains(out, "\t\tsize_t\tcount\n") {
		t.Errorf("--btf -V: exit %d\n%s", code, out)
	}
	out, _, code = runBin(t, "--btf", btf.RunningPath, "--bootconfig", "-D", "vfs_read count")
	if code != 0 || !regexp.MustCompile(`^ftrace\.event\.kprobes\.vfs_read\.probes = 'vfs_read\+\d+ count=%(dx|x2):x64'\n$`).MatchString(out) {
		t.Errorf("--btf --bootconfig: exit %d %q", code, out)
	}
	out, _, code = runBin(t, "--btf", btf.RunningPath, "-F", "vfs_rea*")
	if code != 0 || !strings.HasPrefix(out, "vfs_read\n") {
		t.Errorf("--btf -F: exit %d\n%s", code, out)
	}
	if k := dwarfres.RunningKernel(); !runningHasDebuginfo(k) {
		out, errs, code = runBin(t, "-D", spec)
		if code != 0 || !vfsRead.MatchString(out) || !strings.Contains(errs, "note: no debuginfo for the running kernel "+k.Release+": from BTF") {
			t.Errorf("fallback -D: exit %d\n%s%s", code, out, errs)
		}
	}
}

// runningHasDebuginfo reports whether dwprobe would find DWARF for k.
func runningHasDebuginfo(k locate.Kernel) bool {
	f, err := dwarfres.NewLocator().OpenKernel(k)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// tracefsMachine is uname -m of the running kernel.
func tracefsMachine() string {
	b, _ := os.ReadFile("/proc/sys/kernel/arch")
	return strings.TrimSpace(string(b))
}

// TestBTFRefusalsCLI pins what BTF cannot answer on the command line,
// with its exit status: a line (3), -L, -x with --btf (usage, 2), a
// file without BTF (4).
func TestBTFRefusalsCLI(t *testing.T) {
	needRunningBTF(t)
	notBTF := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(notBTF, []byte("no BTF here"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--btf", btf.RunningPath, "-D", "vfs_read:3"}, exitUnresolved, "a source line or file needs DWARF debuginfo: BTF has no source lines; install the kernel's debuginfo (the -dbg or -debuginfo package) or fetch it with debuginfod"},
		{[]string{"--btf", btf.RunningPath, "-D", "vfs_read+4 count"}, exitUnresolved, "an offset inside a function (+4) needs DWARF debuginfo"},
		{[]string{"--btf", btf.RunningPath, "-D", "vfs_read ret"}, exitUnresolved, "vfs_read has no parameter ret (its parameters: file, buf, count, pos); BTF knows no local variables"},
		{[]string{"--btf", btf.RunningPath, "-D", "no_such_function_xyz"}, exitUnresolved, "neither in BTF nor in the symbol table"},
		{[]string{"--btf", btf.RunningPath, "-L", "vfs_read"}, exitUnresolved, "-L lists source lines, which BTF does not have"},
		{[]string{"--btf", btf.RunningPath, "-x", "/bin/true", "-D", "main"}, exitUsage, "--btf describes a kernel's vmlinux: it does not go with -x"},
		{[]string{"--btf", notBTF, "-D", "vfs_read"}, exitInput, "no BTF"},
	} {
		_, errs, code := runBin(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, want %d; stderr lacks %q:\n%s", c.args, code, c.code, c.want, errs)
		}
	}
}

// TestBTFStrippedVmlinux is -k with a vmlinux without DWARF: its .BTF and
// its symbols answer, as DWARF does for the same spec.
func TestBTFStrippedVmlinux(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	objcopy := dwarftest.NeedTool(t, "objcopy")
	stripped := filepath.Join(t.TempDir(), "vmlinux")
	if out, err := exec.Command(objcopy, "--strip-debug", vml, stripped).CombinedOutput(); err != nil {
		t.Fatalf("objcopy: %v\n%s", err, out)
	}
	spec := "vfs_read file->f_path.dentry->d_name.name:string count file->f_mode"
	want, _, code := runBin(t, "-k", vml, "-D", spec)
	if code != 0 {
		t.Fatalf("DWARF: exit %d", code)
	}
	out, errs, code := runBin(t, "-k", stripped, "-D", spec)
	if code != 0 || out != want || !strings.Contains(errs, "note: no DWARF in "+stripped+": from BTF ("+stripped+"'s .BTF with "+stripped+"'s symbols)") {
		t.Errorf("stripped: exit %d\n%s\nwant %s%s", code, out, want, errs)
	}
}
