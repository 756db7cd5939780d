package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs/qemutest"
)

// e2eSpecs are the probes TestKernelE2E has dwprobe define for the 6.1
// corpus kernels (e2eSpecsFor adapts them to 6.12). Every event is named, so that the checks find it under
// probe/NAME (probe/NAME__return for %return: perf adds the suffix to given
// names too). The inner lines were picked with -L and their variables with
// -V on both 6.1 vmlinuxes; the same specs serve both architectures.
var e2eSpecs = []string{
	// A user string, members through a pointer parameter.
	"e2e_open=do_sys_openat2 dfd filename:ustring how->flags how->mode",
	"e2e_open_ret=do_sys_openat2%return $retval:s64",
	// Locals at an inner line (fsnotify_open(f)), a kernel string.
	"e2e_open_L21=do_sys_openat2:21 fd name=f->f_path.dentry->d_name.name:string f->f_flags path=tmp->name:string",
	"e2e_filp=do_filp_open dfd pathname->name:string op->open_flag",
	// A string three pointers away, a pointer indexed as an array.
	"e2e_vfs_read=vfs_read file->f_path.dentry->d_name.name:string count pos[0] file->f_pos file->f_flags",
	"e2e_vfs_read_ret=vfs_read%return $retval",
	"e2e_vfs_read_L23=vfs_read:23 ret name=file->f_path.dentry->d_name.name:string newpos=pos[0]",
	// An inlined function: one probe per instance (vfs_read has one).
	"e2e_fsnotify=fsnotify_access name=file->f_path.dentry->d_name.name:string file->f_pos",
	"e2e_ksys_read=ksys_read fd count",
	"e2e_ksys_read_ret=ksys_read%return $retval:s64",
	// Two probe points: the compiler duplicated the line's code.
	"e2e_ksys_read_L12=ksys_read:12 ret",
	// A cast, and $comm passed through.
	"e2e_ksys_write=ksys_write fd count:u32 comm=$comm",
	"e2e_ksys_write_ret=ksys_write%return $retval:s64",
	"e2e_vfs_write=vfs_write $params",
	"e2e_vfs_write_f=vfs_write name=file->f_path.dentry->d_name.name:string file->f_flags file->f_pos count:s64",
	// Two probe points for add_wchar(current, ret): one in vfs_write's own
	// scope, one in the inlined add_wchar's; each write runs both.
	"e2e_vfs_write_L25=vfs_write:25 ret name=file->f_path.dentry->d_name.name:string",
	"e2e_clone=kernel_clone args->exit_signal args->flags",
	"e2e_clone_ret=kernel_clone%return $retval:s32",
	"e2e_bprm=bprm_execve fd filename->name:string bprm->filename:string",
	// Bitfields: linux_binprm.point_of_no_return, task_struct.in_execve
	// (perf 6.1 cannot read either: "Failed to get the offset").
	"e2e_setup_exec=setup_new_exec bprm->point_of_no_return bprm->filename:string",
	"e2e_comm=__set_task_comm tsk->in_execve buf:string exec tsk->comm:string",
	// set_task_comm inlined into comm_write (fs/proc/base.c:1722, a write
	// to /proc/PID/comm): "from" is the address of a stack buffer
	// (DW_OP_fbreg; DW_OP_stack_value), which perf 6.1 dereferences.
	"e2e_commw=fs/proc/base.c:1722 from:string",
}

// e2eGlobalSpec reads a global of the function's unit (kernel/fork.c's
// max_threads). On a kernel built with CONFIG_KALLSYMS_ALL the definition
// fetches it as @max_threads; Debian's arm64 cloud kernel lists no data
// symbols in kallsyms (it would reject @max_threads with "Invalid probed
// address or symbol"), so dwprobe writes @_stext+OFFSET there. The test
// checks dwprobe's choice against the kernel's config file.
const e2eGlobalSpec = "e2e_global=kernel_clone max_threads"

// e2eDD is one dd of the workload: it copies in to out, bs bytes per read
// and write, count times at most.
type e2eDD struct {
	in, out string // guest paths
	data    string // the content of in
	bs, cnt int
	// exec runs dd as /bin/dd, which busybox sh execs. Run as dd, the
	// applet runs in the forked shell, which names itself with prctl.
	exec bool
}

// reads returns the byte counts dd's reads return: bs, less for the last
// block of the input, until count blocks are read or the input ends.
func (d e2eDD) reads() []int {
	var n []int
	for off := 0; len(n) < d.cnt && off < len(d.data); off += d.bs {
		n = append(n, min(d.bs, len(d.data)-off))
	}
	return n
}

func (d e2eDD) command() string {
	prog := "dd"
	if d.exec {
		prog = "/bin/dd"
	}
	return fmt.Sprintf("%s if=%s of=%s bs=%d count=%d", prog, d.in, d.out, d.bs, d.cnt)
}

// e2eDDs: the first reads its file in two blocks, the second read starting
// at offset 5; the second asks for more than the file holds.
var e2eDDs = []e2eDD{
	{in: "/etc/dwprobe-e2e-a", out: "/tmp/dwprobe-e2e-out-a", data: "0123456789ABC", bs: 5, cnt: 2, exec: true},
	{in: "/etc/dwprobe-e2e-b", out: "/tmp/dwprobe-e2e-out-b", data: "abcdefghijklmnopqrstuvw", bs: 64, cnt: 1},
}

// Open flags, the same on x86_64 and arm64 (asm-generic/fcntl.h), and the
// kernel-internal one build_open_flags strips.
const (
	oAccMode      = 0o3
	oWronly       = 0o1
	oCreat        = 0o100
	oExcl         = 0o200
	oNoctty       = 0o400
	oTrunc        = 0o1000
	oCloexec      = 0o2000000
	fmodeNonotify = 0x4000000
	atFDCWD       = -100
	sigchld       = 17
)

// e2eKernels are the corpus kernels TestKernelE2E boots, by qemutest.Boot's
// key.
var e2eKernels = []string{"amd64", "arm64", "6.12/amd64", "6.12/arm64", "7.3/amd64", "7.3/arm64"}

// e2eSpecs612 replaces, on 6.12, the specs of e2eSpecs whose probe point
// moved; the other inner lines kept their numbers (checked with -L and -V on
// both 6.12 vmlinuxes). do_sys_openat2:21 is fd_install(fd, f) there
// (fsnotify_open moved to do_dentry_open), with the same variables live.
var e2eSpecs612 = map[string]string{
	// bprm_execve lost its fd and filename parameters to alloc_bprm
	// (Linux 6.8); line 45, bprm->interp = bprm->filename, runs on every
	// exec once the name is set.
	"e2e_bprm": "e2e_bprm=alloc_bprm:45 fd filename->name:string bprm->filename:string",
}

// e2eOffs612 probes vfs_read past its ftrace site, at the first
// instruction of its body: on amd64 after endbr64 and the call to
// __fentry__ (4+5 bytes), on arm64 after the two patchable nops, at
// paciasp.
var e2eOffs612 = map[string]string{
	"amd64": "e2e_offs=vfs_read+9 file count",
	"arm64": "e2e_offs=vfs_read+8 file count",
}

// e2eArgRetSpec reads arguments on a return probe, which Linux 6.12
// takes (the kretprobe saves them at the entry) and 6.1 refuses. The
// kernel rewrites each $argN as the function's BTF parameter
// (traceprobe_expand_meta_args), so the fields are named file and count.
const e2eArgRetSpec = "e2e_argret=vfs_read%return $arg1 $arg3"

// e2eSpecs73 replaces, on 7.3, the specs whose function changed again
// (checked with -L and -V on both 7.3 vmlinuxes). do_filp_open is
// do_file_open (Linux 7.0). do_sys_openat2 installs the fd inside the
// FD_ADD macro, whose fd and file DWARF describes only in pieces: the
// probe moves to fd_install, which the open calls with both (the path
// string stays on do_file_open's probe). set_task_comm is a macro over
// __set_task_comm: comm_write's buffer is read by its own name, at the
// line that calls it.
var e2eSpecs73 = map[string]string{
	"e2e_open_L21": "e2e_open_L21=fd_install fd name=file->f_path.dentry->d_name.name:string file->f_flags",
	"e2e_filp":     "e2e_filp=do_file_open dfd pathname->name:string op->open_flag",
	"e2e_commw":    "e2e_commw=fs/proc/base.c:1720 from_string=buffer:string",
}

// e2eSpecsFor returns the specs for the corpus kernel key: e2eSpecs and
// e2eGlobalSpec, with the replacements and additions of 6.12 on 6.12 and
// later generations, and 7.3's on 7.3.
func e2eSpecsFor(key string) []string {
	specs := append(e2eSpecs[:len(e2eSpecs):len(e2eSpecs)], e2eGlobalSpec)
	gen, arch := path.Split(key)
	if gen == "" {
		return specs
	}
	for i, spec := range specs {
		ev, _, _ := strings.Cut(spec, "=")
		if moved, ok := e2eSpecs612[ev]; ok {
			specs[i] = moved
		}
		if moved, ok := e2eSpecs73[ev]; ok && gen == "7.3/" {
			specs[i] = moved
		}
	}
	return append(specs, e2eOffs612[arch], e2eArgRetSpec)
}

// TestKernelE2E has dwprobe define probes from source-level specs on the
// amd64 and arm64 corpus kernels, 6.1 and 6.12, boots each kernel with them
// and a dd workload, and checks the values the probes fetched against what
// the workload did: the paths it opened, the flags, offsets and byte counts
// of its reads and writes, the return values, the pids and names of the
// processes.
func TestKernelE2E(t *testing.T) {
	for _, key := range e2eKernels {
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			qemutest.NeedQEMU(t, key)
			vml := dwarftest.NeedCorpus(t, key+"/vmlinux")
			specs := e2eSpecsFor(key)
			const global = true
			defs, perSpec, notrace := e2eDefinitions(t, vml, specs)
			want := "max_threads=@_stext+"
			if kallsymsAll(t, key) {
				want = "max_threads=@max_threads+0"
			}
			for _, d := range perSpec[strings.TrimPrefix(evGlobal, "probe/")] {
				if !strings.Contains(d, want) {
					t.Errorf("%s: %s: want %s (CONFIG_KALLSYMS_ALL decides)", key, d, want)
				}
			}
			t.Logf("%s: %d definitions from %d specs:\n%s", key, len(defs), len(specs), strings.Join(defs, "\n"))
			g := qemutest.Boot(t, key, defs, e2eWorkload(), e2eInputs(t))
			checkE2ERejected(t, g.Rejected, notrace)
			if g.WorkloadExit != 0 {
				t.Errorf("workload exit %d:\n%s", g.WorkloadExit, g.Workload)
			}
			if g.Overwritten > 0 {
				t.Errorf("the trace lost %d events", g.Overwritten)
			}
			if t.Failed() {
				t.FailNow()
			}
			t.Logf("%s workload output:\n%s", key, g.Workload)
			checkE2ETrace(t, g, perSpec, global)
		})
	}
}

// checkE2ERejected checks that the kernel refused exactly the definitions
// dwprobe noted are in notrace functions (6.12's fsnotify_access inlined in
// __do_sys_vmsplice, an inline function and so notrace).
func checkE2ERejected(t *testing.T, rejected []string, notrace map[string]bool) {
	t.Helper()
	refused := map[string]bool{}
	for _, r := range rejected {
		def, _, _ := strings.Cut(r, "\n")
		refused[def] = true
		if !notrace[def] {
			t.Errorf("the kernel rejected a definition:\n%s", r)
		}
	}
	for d := range notrace {
		if !refused[d] {
			t.Errorf("the kernel accepted %s, which dwprobe noted is in a notrace function", d)
		} else {
			t.Logf("refused as notrace, as dwprobe noted: %s", d)
		}
	}
}

// e2eWorkload is the guest's script: it prints threads-max, renames a
// shell through /proc/self/comm and runs each dd of e2eDDs.
func e2eWorkload() string {
	var workload strings.Builder
	workload.WriteString("echo threads-max=$(cat /proc/sys/kernel/threads-max)\n")
	workload.WriteString("(echo -n " + e2eCommName + " >/proc/self/comm)\n")
	for i, d := range e2eDDs {
		fmt.Fprintf(&workload, "echo '== dd %d'\n%s\necho size=$(wc -c <%s)\n", i, d.command(), d.out)
	}
	return workload.String()
}

// e2eInputs returns the extra files of the guest: the inputs of e2eDDs.
func e2eInputs(t *testing.T) map[string]string {
	inputs := map[string]string{}
	for _, d := range e2eDDs {
		inputs[d.in] = d.data
	}
	extra := map[string]string{}
	qemutest.GuestFiles(t, extra, inputs)
	return extra
}

// kallsymsAll tells whether the corpus kernel key ("amd64", "6.12/arm64")
// lists data symbols in kallsyms, from the config file beside its image.
func kallsymsAll(t *testing.T, key string) bool {
	t.Helper()
	// boot/config-RELEASE up to 6.x; 7.x's linux-base package has it in
	// lib/modules/RELEASE/config.
	pattern := filepath.Join(key, "image", "boot", "config-*")
	configs, _ := filepath.Glob(filepath.Join(dwarftest.CorpusDir(), pattern))
	if len(configs) == 0 {
		pattern = filepath.Join(key, "image", "lib", "modules", "*", "config")
		configs, _ = filepath.Glob(filepath.Join(dwarftest.CorpusDir(), pattern))
	}
	if len(configs) != 1 {
		dwarftest.NeedCorpus(t, pattern) // skips, or fails under make test
		t.Fatalf("%d files match %s", len(configs), pattern)
	}
	b, err := os.ReadFile(configs[0])
	if err != nil {
		t.Fatal(err)
	}
	return regexp.MustCompile(`(?m)^CONFIG_KALLSYMS_ALL=y$`).Match(b)
}

// notraceNoteRE matches dwprobe's note that a probe point is in a notrace
// function, which Debian's kernels refuse; it captures the point.
var notraceNoteRE = regexp.MustCompile(`(?m)^note: \S+(?: \([^)]*\))? is notrace \(.*\) at (\S+) \(0x`)

// e2eDefinitions runs dwprobe -D on each spec and returns all definitions,
// and each spec's, by event name, and the definitions dwprobe noted are in
// notrace functions: the kernel must refuse exactly those.
func e2eDefinitions(t *testing.T, vml string, specs []string) (defs []string, perSpec map[string][]string, notrace map[string]bool) {
	t.Helper()
	perSpec, notrace = map[string][]string{}, map[string]bool{}
	for _, spec := range specs {
		var out, errb bytes.Buffer
		if err := run(context.Background(), []string{"-k", vml, "-D", spec}, &out, &errb); err != nil {
			t.Fatalf("dwprobe -D %q: %v\n%s", spec, err, errb.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if lines[0] == "" {
			t.Fatalf("dwprobe -D %q printed nothing", spec)
		}
		points := map[string]bool{}
		for _, m := range notraceNoteRE.FindAllStringSubmatch(errb.String(), -1) {
			points[m[1]] = true
		}
		for _, d := range lines {
			if f := strings.Fields(d); len(f) > 1 && points[f[1]] {
				notrace[d] = true
			}
		}
		ev, _, _ := strings.Cut(spec, "=")
		perSpec[ev] = lines
		defs = append(defs, lines...)
	}
	return defs, perSpec, notrace
}

// Event names as the trace records carry them.
const (
	evOpen        = "probe/e2e_open"
	evOpenRet     = "probe/e2e_open_ret__return"
	evOpenL21     = "probe/e2e_open_L21"
	evFilp        = "probe/e2e_filp"
	evVfsRead     = "probe/e2e_vfs_read"
	evVfsReadRet  = "probe/e2e_vfs_read_ret__return"
	evVfsReadL23  = "probe/e2e_vfs_read_L23"
	evFsnotify    = "probe/e2e_fsnotify"
	evKsysRead    = "probe/e2e_ksys_read"
	evKsysReadRet = "probe/e2e_ksys_read_ret__return"
	evKsysReadL12 = "probe/e2e_ksys_read_L12"
	evKsysWrite   = "probe/e2e_ksys_write"
	evKsysWriteR  = "probe/e2e_ksys_write_ret__return"
	evVfsWrite    = "probe/e2e_vfs_write"
	evVfsWriteF   = "probe/e2e_vfs_write_f"
	evVfsWriteL25 = "probe/e2e_vfs_write_L25"
	evClone       = "probe/e2e_clone"
	evGlobal      = "probe/e2e_global"
	evCloneRet    = "probe/e2e_clone_ret__return"
	evBprm        = "probe/e2e_bprm"
	evSetupExec   = "probe/e2e_setup_exec"
	evComm        = "probe/e2e_comm"
	evCommW       = "probe/e2e_commw"
	evOffs        = "probe/e2e_offs"
	evArgRet      = "probe/e2e_argret__return"
)

// e2eChecker holds what the checks of one guest share. Its helpers report
// a missing or malformed value as a test error and return a zero value, so
// that one bad record does not hide the other checks.
type e2eChecker struct {
	t     *testing.T
	recs  []qemutest.Record // the records of the task being checked
	where string            // names that task in messages
	// perSpec holds the definitions of each spec, by event name without
	// its group: what the kernel was given.
	perSpec map[string][]string
}

// defined tells whether the kernel was given the event ev ("probe/NAME").
func (c *e2eChecker) defined(ev string) bool {
	name := strings.TrimSuffix(strings.TrimPrefix(ev, "probe/"), "__return")
	return len(c.perSpec[name]) > 0
}

// num returns the integer value of argument name of r, printed in decimal
// or, for the x types, in hex (a 64-bit hex value may be negative).
func (c *e2eChecker) num(r qemutest.Record, name string) int64 {
	c.t.Helper()
	s, ok := r.Args[name]
	if !ok {
		c.t.Errorf("%s: no argument %s in %s", c.where, name, r.Raw)
		return 0
	}
	if h, found := strings.CutPrefix(s, "0x"); found {
		u, err := strconv.ParseUint(h, 16, 64)
		if err != nil {
			c.t.Errorf("%s: argument %s of %s: %v", c.where, name, r.Raw, err)
		}
		return int64(u)
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		c.t.Errorf("%s: argument %s of %s: %v", c.where, name, r.Raw, err)
	}
	return v
}

// str returns the string value of argument name of r, without its quotes.
func (c *e2eChecker) str(r qemutest.Record, name string) string {
	c.t.Helper()
	s := r.Args[name]
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		c.t.Errorf("%s: argument %s is not a string in %s", c.where, name, r.Raw)
		return ""
	}
	return s[1 : len(s)-1]
}

// wantNum and wantStr compare an argument with the value expected.
func (c *e2eChecker) wantNum(r qemutest.Record, name string, want int64) {
	c.t.Helper()
	if got := c.num(r, name); got != want && r.Args[name] != "" {
		c.t.Errorf("%s: %s = %d (%s), want %d, in\n%s", c.where, name, got, r.Args[name], want, r.Raw)
	}
}

func (c *e2eChecker) wantStr(r qemutest.Record, name, want string) {
	c.t.Helper()
	if got := c.str(r, name); got != want {
		c.t.Errorf("%s: %s = %q, want %q, in\n%s", c.where, name, got, want, r.Raw)
	}
}

// one returns the only record of event in recs.
func (c *e2eChecker) one(recs []qemutest.Record, event, what string) (qemutest.Record, bool) {
	c.t.Helper()
	all := qemutest.FilterEvent(recs, event)
	if len(all) != 1 {
		c.t.Errorf("%s: %s: %d records of %s, want 1, in\n%s", c.where, what, len(all), event, qemutest.TraceText(recs))
		return qemutest.Record{}, false
	}
	return all[0], true
}

// calls splits recs into the spans from each record of entry to the next
// record of exit: one system call, or one open, of a single task.
func calls(recs []qemutest.Record, entry, exit string) [][]qemutest.Record {
	var out [][]qemutest.Record
	start := -1
	for i, r := range recs {
		switch r.Event {
		case entry:
			start = i
		case exit:
			if start >= 0 {
				out = append(out, recs[start:i+1])
				start = -1
			}
		}
	}
	return out
}

// callsOn returns the calls holding a record of event whose argument name is
// the string value.
func callsOn(all [][]qemutest.Record, event, name, value string) [][]qemutest.Record {
	var out [][]qemutest.Record
	for _, call := range all {
		for _, r := range call {
			if r.Event == event && r.Args[name] == strconv.Quote(value) {
				out = append(out, call)
				break
			}
		}
	}
	return out
}

var threadsMaxRE = regexp.MustCompile(`(?m)^threads-max=(\d+)$`)

// ddReport is what one dd of the workload printed: the full and partial
// blocks it read and wrote, and the size of its output file.
type ddReport struct{ fullIn, partIn, fullOut, partOut, size int }

// ddReportRE matches the output of one dd of the workload of
// TestKernelE2E, which also prints a marker before and the size of the
// output file after.
func ddReportRE(i int) *regexp.Regexp {
	return regexp.MustCompile(fmt.Sprintf(`(?m)^== dd %d\n(\d+)\+(\d+) records in\n(\d+)\+(\d+) records out\nsize=\s*(\d+)$`, i))
}

// checkE2ETrace checks the trace of the workload of TestKernelE2E. perSpec
// holds the definitions of each spec, by event name; global tells whether
// e2eGlobalSpec was among them.
// e2eCommName is written to /proc/self/comm by the workload.
const e2eCommName = "dwprobe-comm"

func checkE2ETrace(t *testing.T, g *qemutest.Guest, perSpec map[string][]string, global bool) {
	// The string at a computed stack address (comm_write's buffer).
	commw := qemutest.FilterEvent(g.Trace, evCommW)
	if len(commw) != 1 || commw[0].Args["from_string"] != `"`+e2eCommName+`"` {
		t.Errorf("set_task_comm in comm_write: want one record with from_string=%q, got %v", e2eCommName, commw)
	} else {
		t.Logf("comm_write: %s", commw[0].Raw)
	}
	m := threadsMaxRE.FindStringSubmatch(g.Workload)
	if m == nil {
		t.Fatalf("workload printed no threads-max:\n%s", g.Workload)
	}
	threadsMax, _ := strconv.ParseInt(m[1], 10, 64)
	if !global {
		threadsMax = -1
	}
	byPID := map[int][]qemutest.Record{}
	for _, r := range g.Trace {
		byPID[r.PID] = append(byPID[r.PID], r)
	}
	for i, d := range e2eDDs {
		c := &e2eChecker{t: t, where: d.command(), perSpec: perSpec}
		// The dd is the task that opened its input.
		var pids []int
		for _, r := range qemutest.FilterEvent(g.Trace, evOpen) {
			if r.Args["filename_ustring"] == strconv.Quote(d.in) {
				pids = append(pids, r.PID)
			}
		}
		if len(pids) != 1 {
			t.Errorf("%s: %d opens of %s, want 1, in\n%s", c.where, len(pids), d.in, qemutest.TraceText(qemutest.FilterEvent(g.Trace, evOpen)))
			continue
		}
		pid := pids[0]
		c.recs = byPID[pid]
		c.where = fmt.Sprintf("%s (pid %d)", d.command(), pid)
		t.Logf("trace of %s:\n%s", c.where, qemutest.TraceText(c.recs))

		c.checkFork(g.Trace, byPID, threadsMax)
		c.checkExec(d.exec)
		inFlags := c.checkOpen(d.in, false)
		outFlags := c.checkOpen(d.out, true)
		want := d.reads()
		full, part := c.checkReads(d, want, inFlags)
		written := c.checkWrites(d, want, outFlags, len(perSpec["e2e_vfs_write_L25"]))
		// What the probes saw returned is what dd counted.
		rep, ok := parseDDReport(g.Workload, i)
		if !ok {
			t.Errorf("%s: no report in the workload output:\n%s", c.where, g.Workload)
			continue
		}
		if rep.fullIn != full || rep.partIn != part || rep.fullOut != full || rep.partOut != part || int64(rep.size) != written {
			t.Errorf("%s: dd reports %d+%d records in, %d+%d out and a %d byte output; the probes saw %d+%d blocks and %d bytes written",
				c.where, rep.fullIn, rep.partIn, rep.fullOut, rep.partOut, rep.size, full, part, written)
		}
	}
}

// parseDDReport finds the report of the i-th dd in the workload's output.
func parseDDReport(out string, i int) (ddReport, bool) {
	m := ddReportRE(i).FindStringSubmatch(out)
	if m == nil {
		return ddReport{}, false
	}
	var n [5]int
	for k := range n {
		n[k], _ = strconv.Atoi(m[k+1])
	}
	return ddReport{n[0], n[1], n[2], n[3], n[4]}, true
}

// checkFork checks the fork of the dd by the shell; threadsMax is -1 when
// e2eGlobalSpec was not defined.
func (c *e2eChecker) checkFork(all []qemutest.Record, byPID map[int][]qemutest.Record, threadsMax int64) {
	pid := int64(c.recs[0].PID)
	// The shell's kernel_clone returned the dd's pid.
	var forks []qemutest.Record
	for _, r := range qemutest.FilterEvent(all, evCloneRet) {
		if c.num(r, "arg1") == pid {
			forks = append(forks, r)
		}
	}
	if len(forks) != 1 {
		c.t.Errorf("%s: %d kernel_clone returns of its pid, want 1", c.where, len(forks))
	} else {
		parent := byPID[forks[0].PID]
		var clone, global qemutest.Record
		for _, r := range parent {
			if r.Raw == forks[0].Raw {
				break
			}
			switch r.Event {
			case evClone:
				clone = r
			case evGlobal:
				global = r
			}
		}
		if threadsMax >= 0 {
			if global.Raw == "" {
				c.t.Errorf("%s: no %s before the fork", c.where, evGlobal)
			} else {
				c.wantNum(global, "max_threads", threadsMax)
			}
		}
		if forks[0].Task != "sh" || clone.Raw == "" {
			c.t.Errorf("%s: forked by %s-%d, without a kernel_clone entry before the return:\n%s", c.where, forks[0].Task, forks[0].PID, qemutest.TraceText(parent))
		} else {
			shown := []qemutest.Record{clone, forks[0]}
			if global.Raw != "" {
				shown = append([]qemutest.Record{global}, shown...)
			}
			c.t.Logf("fork of %s:\n%s", c.where, qemutest.TraceText(shown))
			c.wantNum(clone, "exit_signal", sigchld)
			if f := c.num(clone, "flags"); f&0xff != 0 {
				c.t.Errorf("%s: clone flags %#x hold a signal (CSIGNAL), which kernel_clone_args keeps in exit_signal", c.where, f)
			}
		}
	}
}

// checkExec checks how the forked shell became dd: by exec, or by running
// the applet and renaming itself.
func (c *e2eChecker) checkExec(exec bool) {
	comm, ok := c.one(c.recs, evComm, "rename")
	if !ok {
		return
	}
	c.wantStr(comm, "buf_string", "dd")
	c.wantStr(comm, "comm", "sh") // still the forking shell's name
	if !exec {
		c.wantNum(comm, "exec", 0)
		c.wantNum(comm, "in_execve", 0)

		if n := len(qemutest.FilterEvent(c.recs, evBprm)) + len(qemutest.FilterEvent(c.recs, evSetupExec)); n != 0 {
			c.t.Errorf("%s: %d exec records, want none", c.where, n)
		}
		return
	}
	c.wantNum(comm, "exec", 1)
	c.wantNum(comm, "in_execve", 1)
	bprm, ok1 := c.one(c.recs, evBprm, "exec")
	setup, ok2 := c.one(c.recs, evSetupExec, "exec")
	if !ok1 || !ok2 {
		return
	}
	prog := c.str(bprm, "name")
	if path.Base(prog) != "dd" {
		c.t.Errorf("%s: execs %q, want a path to dd", c.where, prog)
	}
	c.wantNum(bprm, "fd", atFDCWD)
	c.wantStr(bprm, "filename", prog)
	// do_open_execat opens the program with do_filp_open.
	opened := false
	for _, r := range qemutest.FilterEvent(c.recs, evFilp) {
		opened = opened || r.Args["name"] == strconv.Quote(prog)
	}
	if !opened {
		c.t.Errorf("%s: no do_filp_open of %s", c.where, prog)
	}
	c.wantStr(setup, "filename", prog)
	c.wantNum(setup, "point_of_no_return", 1)
}

// checkOpen checks the open of file by the dd and returns the file's
// f_flags.
func (c *e2eChecker) checkOpen(file string, create bool) int64 {
	opens := callsOn(calls(c.recs, evOpen, evOpenRet), evOpen, "filename_ustring", file)
	if len(opens) != 1 {
		c.t.Errorf("%s: %d opens of %s, want 1", c.where, len(opens), file)
		return -1
	}
	call := opens[0]
	open := call[0]
	c.wantNum(open, "dfd", atFDCWD)
	flags, mode := c.num(open, "flags"), c.num(open, "mode")
	switch {
	case create && (flags&oAccMode != oWronly || flags&oCreat == 0 || mode != 0o666):
		c.t.Errorf("%s: opens %s with flags %#o mode %#o, want O_WRONLY|O_CREAT and 0666", c.where, file, flags, mode)
	case !create && (flags&oAccMode != 0 || flags&oCreat != 0 || mode != 0):
		c.t.Errorf("%s: opens %s with flags %#o mode %#o, want O_RDONLY and mode 0", c.where, file, flags, mode)
	}
	filp, ok1 := c.one(call, evFilp, "open of "+file)
	at21, ok2 := c.one(call, evOpenL21, "open of "+file)
	ret, ok3 := c.one(call, evOpenRet, "open of "+file)
	if !ok1 || !ok2 || !ok3 {
		return -1
	}
	c.wantStr(filp, "name", file)
	c.wantNum(filp, "dfd", atFDCWD)
	// build_open_flags strips O_CLOEXEC and FMODE_NONOTIFY;
	// do_dentry_open strips the flags that only matter to the open.
	openFlag := flags &^ (oCloexec | fmodeNonotify)
	c.wantNum(filp, "open_flag", openFlag)
	if strings.Contains(strings.Join(c.perSpec[strings.TrimPrefix(evOpenL21, "probe/")], "\n"), " path=") {
		c.wantStr(at21, "path", file) // not on 7.3's fd_install
	}
	c.wantStr(at21, "name", path.Base(file))
	fFlags := openFlag &^ (oCreat | oExcl | oNoctty | oTrunc)
	c.wantNum(at21, "f_flags", fFlags)
	fd := c.num(at21, "fd")
	if fd < 0 {
		c.t.Errorf("%s: fd %d at do_sys_openat2:21, which only a successful open reaches", c.where, fd)
	}
	c.wantNum(ret, "arg1", fd)
	return fFlags
}

// checkReads checks the reads of the input, want holding what each returns,
// and returns the number of full and partial blocks ksys_read returned.
func (c *e2eChecker) checkReads(d e2eDD, want []int, fFlags int64) (full, part int) {
	base := path.Base(d.in)
	reads := callsOn(calls(c.recs, evKsysRead, evKsysReadRet), evVfsRead, "name", base)
	if len(reads) != len(want) {
		c.t.Errorf("%s: %d reads of %s, want %d", c.where, len(reads), d.in, len(want))
		return -1, -1
	}
	pos := int64(0)
	for k, call := range reads {
		n := int64(want[k])
		if call[0].Task != "dd" {
			c.t.Errorf("%s: read by task %q, want dd", c.where, call[0].Task)
		}
		c.wantNum(call[0], "count", int64(d.bs))
		if r, ok := c.one(call, evVfsRead, "read"); ok {
			c.wantNum(r, "count", int64(d.bs))
			c.wantNum(r, "pos", pos)   // *pos: ksys_read's copy
			c.wantNum(r, "f_pos", pos) // the file's, the same
			c.wantNum(r, "f_flags", fFlags)
		}
		if r, ok := c.one(call, evVfsReadL23, "read"); ok {
			c.wantNum(r, "ret", n)
			c.wantStr(r, "name", base)
			c.wantNum(r, "newpos", pos+n) // *pos moved by the read
		}
		if r, ok := c.one(call, evFsnotify, "read"); ok {
			if !strings.HasPrefix(r.Loc, "vfs_read+") {
				c.t.Errorf("%s: fsnotify_access fired at %s, want its instance in vfs_read", c.where, r.Loc)
			}
			c.wantStr(r, "name", base)
			c.wantNum(r, "f_pos", pos) // ksys_read updates it after vfs_read
		}
		if r, ok := c.one(call, evVfsReadRet, "read"); ok {
			c.wantNum(r, "arg1", n)
		}
		c.checkOffsArgs(call, int64(d.bs))
		at12 := qemutest.FilterEvent(call, evKsysReadL12)
		if len(at12) == 0 {
			c.t.Errorf("%s: no ksys_read:12 in\n%s", c.where, qemutest.TraceText(call))
		}
		for _, r := range at12 {
			c.wantNum(r, "ret", n)
		}
		ret := call[len(call)-1]
		c.wantNum(ret, "arg1", n)
		switch c.num(ret, "arg1") {
		case int64(d.bs):
			full++
		case 0:
		default:
			part++
		}
		pos += n
	}
	return full, part
}

// checkWrites checks the writes of the output, want holding the size of
// each; sites is the number of probe points of vfs_write:25, which all run
// on each write. It returns the sum of what the writes returned.
func (c *e2eChecker) checkWrites(d e2eDD, want []int, fFlags int64, sites int) int64 {
	base := path.Base(d.out)
	writes := callsOn(calls(c.recs, evKsysWrite, evKsysWriteR), evVfsWriteF, "name", base)
	if len(writes) != len(want) {
		c.t.Errorf("%s: %d writes to %s, want %d", c.where, len(writes), d.out, len(want))
		return 0
	}
	var pos, total int64
	var file string // the struct file's address, the same for each write
	for k, call := range writes {
		n := int64(want[k])
		c.wantNum(call[0], "count_u32", n)
		c.wantStr(call[0], "comm", "dd")
		if r, ok := c.one(call, evVfsWrite, "write"); ok {
			c.wantNum(r, "count", n)
			if file == "" {
				file = r.Args["file"]
			} else if r.Args["file"] != file {
				c.t.Errorf("%s: writes through file %s then %s", c.where, file, r.Args["file"])
			}
			if c.num(r, "pos") == 0 {
				c.t.Errorf("%s: NULL pos in %s", c.where, r.Raw)
			}
		}
		if r, ok := c.one(call, evVfsWriteF, "write"); ok {
			c.wantNum(r, "count_s64", n)
			c.wantNum(r, "f_pos", pos)
			c.wantNum(r, "f_flags", fFlags)
		}
		at25 := qemutest.FilterEvent(call, evVfsWriteL25)
		if len(at25) != sites {
			c.t.Errorf("%s: %d records of vfs_write:25 in a write, want one per probe point (%d):\n%s", c.where, len(at25), sites, qemutest.TraceText(call))
		}
		for _, r := range at25 {
			c.wantNum(r, "ret", n)
			c.wantStr(r, "name", base)
		}
		ret := c.num(call[len(call)-1], "arg1")
		if ret != n {
			c.t.Errorf("%s: write %d returned %d, want %d", c.where, k, ret, n)
		}
		pos += n
		total += ret
	}
	return total
}

// checkOffsArgs checks, in one read call, the probe past vfs_read's ftrace
// site and the arguments read on its return (6.12 only): both see the count
// dd asked for and the same struct file.
func (c *e2eChecker) checkOffsArgs(call []qemutest.Record, count int64) {
	if !c.defined(evOffs) || !c.defined(evArgRet) {
		return
	}
	offs, ok1 := c.one(call, evOffs, "read")
	ret, ok2 := c.one(call, evArgRet, "read")
	if !ok1 || !ok2 {
		return
	}
	c.wantNum(offs, "count", count)
	c.wantNum(ret, "count", count) // $arg3
	file := c.num(offs, "file")
	if file == 0 {
		c.t.Errorf("%s: NULL file in %s", c.where, offs.Raw)
	}
	c.wantNum(ret, "file", file) // $arg1
}
