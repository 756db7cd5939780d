package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// guestRun is what one boot of the corpus kernel printed on its console,
// split at the DWPROBE-* markers of testdata/scripts/guest-init.sh.
type guestRun struct {
	Console string // the whole console, with \r\n turned into \n
	// Rejected holds one entry per definition kprobe_events refused: the
	// line, the shell's write error (naming the errno) and the kernel's
	// error_log, separated by newlines.
	Rejected     []string
	Workload     string // stdout and stderr of /workload.sh
	WorkloadExit int    // its exit status
	Trace        []traceRecord
	// Overwritten counts the events the ring buffer dropped to make room:
	// entries-written minus entries-in-buffer in the trace header.
	Overwritten int
}

// traceRecord is one line of the ftrace trace file for a probe event:
//
//	cat-90      [000] .....     2.588898: smoke_open: (do_sys_openat2+0x0/0x170) dfd=-100 path="/etc/dwprobe-marker"
//	dd-91       [000] .....     2.593656: smoke_read: (do_syscall_64+0x5d/0x90 <- ksys_read) ret=7
type traceRecord struct {
	Task string
	PID  int
	// Event is group/event when the event was in kprobe_events before or
	// after the workload (the trace itself prints only the event name),
	// else the bare event name.
	Event string
	// Loc is the text between the parentheses: sym+off/size for a kprobe,
	// "retsite <- func" for a kretprobe.
	Loc string
	// Args maps each argument name to its value as printed: numbers in the
	// type's format (-100, 0x4801d), strings with their quotes ("/etc/x").
	Args map[string]string
	Raw  string
}

// needQEMU skips the test when qemu for arch or the corpus kernel and
// busybox are missing, except under make test (DWPROBE_REQUIRE_ALL=1) where
// that is a failure.
func needQEMU(t testing.TB, arch string) {
	t.Helper()
	bin := map[string]string{"amd64": "qemu-system-x86_64", "arm64": "qemu-system-aarch64"}[arch]
	if bin == "" {
		t.Fatalf("no qemu for arch %q", arch)
	}
	if _, err := exec.LookPath(bin); err != nil {
		if os.Getenv("DWPROBE_REQUIRE_ALL") == "1" {
			t.Fatalf("%s missing (run make deps): %v", bin, err)
		}
		t.Skipf("%s missing (run make deps)", bin)
	}
	needCorpus(t, arch+"/vmlinuz")
	needCorpus(t, arch+"/busybox-bin")
}

// bootKernel boots the corpus kernel for arch ("amd64" or "arm64") under
// TCG with an initramfs holding busybox, defs (written one by one to
// kprobe_events), workload (run as /workload.sh with the probes enabled)
// and extra host files (guest path -> host path, mode kept). It fails the
// test when the guest does not reach the end of its trace.
func bootKernel(t *testing.T, arch string, defs []string, workload string, extra map[string]string) *guestRun {
	t.Helper()
	needQEMU(t, arch)
	dir := t.TempDir()
	if err := writeInitramfs(filepath.Join(dir, "initramfs.cpio"), arch, defs, workload, extra); err != nil {
		t.Fatal(err)
	}
	// The script's own timeout is the hard limit; this one only guards
	// against a qemu that ignores it, and WaitDelay against a qemu that
	// outlives its killed parent holding the console pipe.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join("..", "..", "testdata", "scripts", "qemu.sh"), arch, dir)
	cmd.WaitDelay = 10 * time.Second
	cmd.Env = append(os.Environ(), "DWPROBE_CORPUS="+corpusDir())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s guest ran %.1fs", arch, time.Since(start).Seconds())
	console := strings.ReplaceAll(out.String(), "\r\n", "\n")
	if err != nil {
		t.Fatalf("qemu.sh %s: %v\nstderr: %s\nconsole tail:\n%s", arch, err, errb.String(), tail(console, 40))
	}
	g, err := parseConsole(console)
	if err != nil {
		t.Fatalf("%s guest: %v\nconsole tail:\n%s", arch, err, tail(console, 40))
	}
	if g.Overwritten > 0 {
		t.Logf("%s guest: the trace buffer overwrote %d events", arch, g.Overwritten)
	}
	return g
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// parseConsole splits a guest console at the markers of guest-init.sh.
func parseConsole(console string) (*guestRun, error) {
	g := &guestRun{Console: console}
	events := map[string]*eventDef{} // by event name; nil if ambiguous
	var section string               // the marker whose section is open
	var body []string                // its lines so far
	var rej string                   // the rejected line, in a REJECT section
	for _, line := range strings.Split(console, "\n") {
		switch {
		case strings.HasPrefix(line, "DWPROBE-REJECT "):
			section, rej, body = "REJECT", strings.TrimPrefix(line, "DWPROBE-REJECT "), nil
		case line == "DWPROBE-REJECT-END" && section == "REJECT":
			g.Rejected = append(g.Rejected, strings.Join(append([]string{rej}, body...), "\n"))
			section = ""
		case line == "DWPROBE-EVENTS-BEGIN", line == "DWPROBE-WORKLOAD-BEGIN", line == "DWPROBE-TRACE-BEGIN":
			section, body = strings.TrimSuffix(strings.TrimPrefix(line, "DWPROBE-"), "-BEGIN"), nil
		case line == "DWPROBE-EVENTS-END" && section == "EVENTS":
			for _, def := range body {
				addEventDef(events, def)
			}
			section = ""
		case strings.HasPrefix(line, "DWPROBE-WORKLOAD-END ") && section == "WORKLOAD":
			code, err := strconv.Atoi(strings.TrimPrefix(line, "DWPROBE-WORKLOAD-END "))
			if err != nil {
				return nil, fmt.Errorf("bad marker %q", line)
			}
			// The init wrote a newline after the workload's output:
			// the last line of body is what followed the output's
			// last newline.
			g.Workload, g.WorkloadExit = strings.Join(body, "\n"), code
			section = ""
		case line == "DWPROBE-TRACE-END" && section == "TRACE":
			for _, l := range body {
				var inBuf, written int
				if _, err := fmt.Sscanf(l, "# entries-in-buffer/entries-written: %d/%d", &inBuf, &written); err == nil {
					g.Overwritten = written - inBuf
				}
				if l == "" || strings.HasPrefix(l, "#") {
					continue
				}
				r, err := parseTraceLine(l, events)
				if err != nil {
					return nil, err
				}
				g.Trace = append(g.Trace, r)
			}
			return g, nil
		case section != "":
			body = append(body, line)
		}
	}
	if section != "" {
		return nil, fmt.Errorf("console ends inside the %s section", section)
	}
	return nil, fmt.Errorf("console has no DWPROBE-TRACE-END")
}

// eventDef is what the trace needs from a kprobe_events line.
type eventDef struct {
	name string   // group/event
	args []string // argument names, in the order the trace prints them
}

// addEventDef records one kprobe_events line ("p:probe/vfs_read vfs_read+0
// f=%di:x64", "r10:probe/x ksys_read ret=$retval"; the kernel always prints
// the argument names, and fetch args hold no spaces) under its event name.
// A name registered in two groups maps to nil.
func addEventDef(events map[string]*eventDef, line string) {
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return
	}
	_, ge, ok1 := strings.Cut(fields[0], ":")
	_, ev, ok2 := strings.Cut(ge, "/")
	if !ok1 || !ok2 {
		return
	}
	d := &eventDef{name: ge}
	for _, f := range fields[2:] {
		name, _, _ := strings.Cut(f, "=")
		d.args = append(d.args, name)
	}
	if old, seen := events[ev]; seen && (old == nil || old.name != ge) {
		d = nil
	}
	events[ev] = d
}

// traceLineRE matches the default trace format: the task name is padded to
// 16 columns and may hold '-' and spaces, so the PID is the first -NUM
// followed by [CPU]; the flags column is optional (it depends on the
// irq-info option).
var traceLineRE = regexp.MustCompile(`^\s*(.*?)-(\d+)\s+\[\d+\]\s+(?:\S+\s+)?\d+\.\d+:\s+([^\s:]+):\s?(.*)$`)

// parseTraceLine parses one probe event line of the trace file. The kernel
// prints string values between quotes without escaping them, so a string
// can look like several arguments; when events knows the event, its
// argument names, in order, decide where each value ends.
func parseTraceLine(line string, events map[string]*eventDef) (traceRecord, error) {
	m := traceLineRE.FindStringSubmatch(line)
	if m == nil {
		return traceRecord{}, fmt.Errorf("unparsed trace line %q", line)
	}
	pid, _ := strconv.Atoi(m[2])
	r := traceRecord{Task: m[1], PID: pid, Event: m[3], Raw: line, Args: map[string]string{}}
	var names []string
	if d := events[r.Event]; d != nil {
		r.Event, names = d.name, d.args
	}
	rest := m[4]
	if strings.HasPrefix(rest, "(") {
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return traceRecord{}, fmt.Errorf("unclosed location in trace line %q", line)
		}
		r.Loc, rest = rest[1:end], rest[end+1:]
	}
	for i := 0; rest != ""; i++ {
		rest = strings.TrimPrefix(rest, " ")
		name, val, ok := strings.Cut(rest, "=")
		if !ok || name == "" || strings.Contains(name, " ") || names != nil && (i >= len(names) || name != names[i]) {
			return traceRecord{}, fmt.Errorf("unexpected argument at %q in trace line %q", rest, line)
		}
		next := ""
		if names != nil && i+1 < len(names) {
			next = names[i+1]
		}
		n := argValueLen(val, next, names != nil && next == "")
		r.Args[name], rest = val[:n], val[n:]
	}
	if len(r.Args) < len(names) {
		return traceRecord{}, fmt.Errorf("trace line %q lacks arguments of %v", line, names)
	}
	return r, nil
}

// argNameRE matches an argument name.
var argNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// argValueLen returns the length of the value at the start of s, which is
// followed by " next=" (next is "" when unknown) or, if last, by nothing. A
// quoted string or an array ({1,2}, {"a","b"}) ends at its closing quote
// or brace followed by the next argument or the end of the line; anything
// else ends at a space.
func argValueLen(s, next string, last bool) int {
	if last {
		return len(s)
	}
	if s != "" && (s[0] == '"' || s[0] == '{') {
		closer := map[byte]byte{'"': '"', '{': '}'}[s[0]]
		for i := 1; i < len(s); i++ {
			if s[i] != closer {
				continue
			}
			after := s[i+1:]
			if after == "" {
				return i + 1
			}
			if name, _, ok := strings.Cut(after[1:], "="); after[0] == ' ' && ok &&
				(next == "" && argNameRE.MatchString(name) || name == next) {
				return i + 1
			}
		}
	}
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return i
	}
	return len(s)
}

// guestInit is the initramfs's /init.
var guestInit = filepath.Join("..", "..", "testdata", "scripts", "guest-init.sh")

// writeInitramfs writes a newc cpio archive at file: busybox for arch as
// /bin/busybox (the init installs its applet links), guest-init.sh as
// /init, defs as /defs.txt, workload as /workload.sh and the extra files.
func writeInitramfs(file, arch string, defs []string, workload string, extra map[string]string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	w := &cpioWriter{w: f, dirs: map[string]bool{"": true}}
	for _, d := range []string{"bin", "sbin", "usr/bin", "usr/sbin", "dev", "proc", "sys", "tmp", "etc", "root"} {
		w.dir(d)
	}
	// The kernel opens /dev/console for init before devtmpfs is mounted.
	w.node("dev/console", 0o020600, 5, 1)
	if err := w.hostFile("bin/busybox", filepath.Join(corpusDir(), arch, "busybox-bin")); err != nil {
		return err
	}
	init, err := os.ReadFile(guestInit)
	if err != nil {
		return err
	}
	w.file("init", 0o755, init)
	w.file("defs.txt", 0o644, []byte(strings.Join(append(defs, ""), "\n")))
	w.file("workload.sh", 0o755, []byte(workload))
	guests := make([]string, 0, len(extra))
	for g := range extra {
		guests = append(guests, g)
	}
	sort.Strings(guests)
	for _, g := range guests {
		if err := w.hostFile(g, extra[g]); err != nil {
			return err
		}
	}
	w.node("TRAILER!!!", 0, 0, 0)
	if w.err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", file, w.err)
	}
	return f.Close()
}

// cpioWriter writes a newc ("070701") cpio archive, the format the kernel
// unpacks into its initramfs. The first write error sticks in err.
type cpioWriter struct {
	w    io.Writer
	ino  int
	dirs map[string]bool // directories written, by archive path
	err  error
}

// dir writes the directory p and its missing parents.
func (c *cpioWriter) dir(p string) {
	if c.dirs[p] {
		return
	}
	c.dir(parentDir(p))
	c.dirs[p] = true
	c.entry(p, 0o040755, 0, 0, nil)
}

// parentDir returns the archive path of p's directory, "" for the root.
func parentDir(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}

func (c *cpioWriter) file(p string, perm uint32, data []byte) {
	c.dir(parentDir(p))
	c.entry(p, 0o100000|perm&0o7777, 0, 0, data)
}

// hostFile copies host into the archive at the guest path guest, keeping
// its permission bits.
func (c *cpioWriter) hostFile(guest, host string) error {
	st, err := os.Stat(host)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(host)
	if err != nil {
		return err
	}
	c.file(strings.TrimPrefix(path.Clean("/"+guest), "/"), uint32(st.Mode().Perm()), data)
	return nil
}

// node writes an entry without data: a device node or the trailer.
func (c *cpioWriter) node(p string, mode uint32, major, minor int) {
	c.entry(p, mode, major, minor, nil)
}

func (c *cpioWriter) entry(name string, mode uint32, rmajor, rminor int, data []byte) {
	if c.err != nil {
		return
	}
	c.ino++
	nlink := 1
	if mode&0o170000 == 0o040000 {
		nlink = 2
	}
	// magic, ino, mode, uid, gid, nlink, mtime, filesize, devmajor,
	// devminor, rdevmajor, rdevminor, namesize (with its NUL), check.
	hdr := fmt.Sprintf("070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
		c.ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rmajor, rminor, len(name)+1, 0)
	var b bytes.Buffer
	b.WriteString(hdr)
	b.WriteString(name)
	b.WriteByte(0)
	pad4(&b)
	b.Write(data)
	pad4(&b)
	_, c.err = c.w.Write(b.Bytes())
}

// pad4 pads b with NULs to a multiple of four bytes.
func pad4(b *bytes.Buffer) {
	for b.Len()%4 != 0 {
		b.WriteByte(0)
	}
}

// TestQEMUSmoke boots both corpus kernels with a kprobe and a kretprobe
// written by hand and checks the traced path string and return value.
func TestQEMUSmoke(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "marker")
	if err := os.WriteFile(marker, []byte("dwprobe marker file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const workload = "cat /etc/dwprobe-marker >/dev/null\ndd if=/etc/dwprobe-marker bs=7 count=1\n"
	for _, c := range []struct{ arch, dfd, path string }{
		{"amd64", "%di", "%si"},
		{"arm64", "%x0", "%x1"},
	} {
		t.Run(c.arch, func(t *testing.T) {
			t.Parallel()
			defs := []string{
				"p:probe/smoke_open do_sys_openat2 dfd=" + c.dfd + ":s32 path=+0(" + c.path + "):string",
				"r:probe/smoke_read ksys_read ret=$retval:s64",
				"p:probe/smoke_bad no_such_function_dwprobe",
			}
			g := bootKernel(t, c.arch, defs, workload, map[string]string{"/etc/dwprobe-marker": marker})
			if len(g.Rejected) != 1 || !strings.HasPrefix(g.Rejected[0], defs[2]+"\n") {
				t.Errorf("rejected %q, want only %q", g.Rejected, defs[2])
			}
			if g.WorkloadExit != 0 || !strings.Contains(g.Workload, "dwprobe") {
				t.Errorf("workload exit %d, output %q", g.WorkloadExit, g.Workload)
			}
			var opened, read7 bool
			for _, r := range g.Trace {
				switch {
				case r.Event == "probe/smoke_open" && r.Task == "cat" && r.Args["path"] == `"/etc/dwprobe-marker"`:
					opened = r.Args["dfd"] == "-100"
				case r.Event == "probe/smoke_read" && r.Task == "dd" && r.Args["ret"] == "7":
					read7 = strings.HasSuffix(r.Loc, " <- ksys_read")
				}
			}
			if !opened || !read7 {
				t.Errorf("trace lacks cat opening the marker at AT_FDCWD (%v) or dd's ksys_read returning 7 (%v):\n%s",
					opened, read7, traceText(g.Trace))
			}
		})
	}
}

// traceText returns the raw lines of a trace, for failure messages.
func traceText(tr []traceRecord) string {
	var b strings.Builder
	for _, r := range tr {
		b.WriteString(r.Raw)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestParseTraceLine pins the trace formats the 6.1 kernels print (lines
// copied from TestQEMUSmoke's guests), including a string that looks like
// two arguments.
func TestParseTraceLine(t *testing.T) {
	events := map[string]*eventDef{}
	for _, def := range []string{
		`p:probe/fmt do_sys_openat2 a=%di:x32 c=+0(%si):u8[4] e=$comm f=+0(%si):string g=+0(%di):string i=+0(%si):b3@2/8`,
		`r10:probe/smoke_read ksys_read ret=$retval:s64`,
	} {
		addEventDef(events, def)
	}
	cases := []struct {
		line, task, event, loc string
		args                   map[string]string
	}{
		{`             cat-95      [000] .....     2.141068: fmt: (do_sys_openat2+0x0/0x170) a=0xffffff9c c={47,116,109,112} e="cat" f="/tmp/a" b=c" g=(fault) i=3`,
			"cat", "probe/fmt", "do_sys_openat2+0x0/0x170",
			map[string]string{"a": "0xffffff9c", "c": "{47,116,109,112}", "e": `"cat"`, "f": `"/tmp/a" b=c"`, "g": "(fault)", "i": "3"}},
		{`              dd-90      [000] .....     2.819887: smoke_read: (__arm64_sys_read+0x24/0x30 <- ksys_read) ret=7`,
			"dd", "probe/smoke_read", "__arm64_sys_read+0x24/0x30 <- ksys_read", map[string]string{"ret": "7"}},
		{`  kworker/0:1-my-12      [000] d....     2.786586: other: (do_sys_openat2+0x0/0x190) path="/x y" n=-1`,
			"kworker/0:1-my", "other", "do_sys_openat2+0x0/0x190", map[string]string{"path": `"/x y"`, "n": "-1"}},
		{`            init-1       [000] .....     2.134316: fmt_noargs: (ksys_read+0x0/0xf0)`,
			"init", "fmt_noargs", "ksys_read+0x0/0xf0", map[string]string{}},
	}
	for _, c := range cases {
		r, err := parseTraceLine(c.line, events)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if r.Task != c.task || r.Event != c.event || r.Loc != c.loc || fmt.Sprint(r.Args) != fmt.Sprint(c.args) {
			t.Errorf("parseTraceLine(%q) = %q %q %q %q", c.line, r.Task, r.Event, r.Loc, r.Args)
		}
	}
	for _, bad := range []string{
		`CPU:0 [LOST 12 EVENTS]`,
		`             cat-95      [000] .....     2.141068: fmt: (do_sys_openat2+0x0/0x170) a=0xffffff9c`,
		`              dd-90      [000] .....     2.819887: smoke_read: (__arm64_sys_read+0x24/0x30 <- ksys_read) val=7`,
	} {
		if r, err := parseTraceLine(bad, events); err == nil {
			t.Errorf("parseTraceLine(%q) = %+v, want an error", bad, r)
		}
	}
}

// TestParseConsole checks the marker sections of guest-init.sh on a console
// shaped like the real ones, with kernel noise around the markers.
func TestParseConsole(t *testing.T) {
	console := `[    0.000000] Linux version 6.1.0-56-cloud-amd64
DWPROBE-BOOTED
DWPROBE-REJECT p:probe/bad do_sys_openat2+1
sh: write error: Invalid or incomplete multibyte or wide character
[    2.013349] trace_kprobe: error: Probe point is not an instruction boundary
  Command: p:probe/bad do_sys_openat2+1
                       ^
DWPROBE-REJECT-END
DWPROBE-EVENTS-BEGIN
r10:probe/smoke_read ksys_read ret=$retval:s64
DWPROBE-EVENTS-END
DWPROBE-WORKLOAD-BEGIN
out
partial
DWPROBE-WORKLOAD-END 3
DWPROBE-EVENTS-BEGIN
DWPROBE-EVENTS-END
DWPROBE-TRACE-BEGIN
# tracer: nop
#
# entries-in-buffer/entries-written: 1/4   #P:1
#
              dd-91      [000] .....     2.593656: smoke_read: (do_syscall_64+0x5d/0x90 <- ksys_read) ret=7
DWPROBE-TRACE-END
[    2.556801] reboot: Power down
`
	g, err := parseConsole(console)
	if err != nil {
		t.Fatal(err)
	}
	wantRej := "p:probe/bad do_sys_openat2+1\nsh: write error: Invalid or incomplete multibyte or wide character\n"
	if len(g.Rejected) != 1 || !strings.HasPrefix(g.Rejected[0], wantRej) || !strings.HasSuffix(g.Rejected[0], "^") {
		t.Errorf("Rejected = %q", g.Rejected)
	}
	if g.Workload != "out\npartial" || g.WorkloadExit != 3 || g.Overwritten != 3 {
		t.Errorf("Workload %q, exit %d, overwritten %d", g.Workload, g.WorkloadExit, g.Overwritten)
	}
	if len(g.Trace) != 1 || g.Trace[0].Event != "probe/smoke_read" || g.Trace[0].PID != 91 || g.Trace[0].Args["ret"] != "7" {
		t.Errorf("Trace = %+v", g.Trace)
	}
	if _, err := parseConsole(strings.Split(console, "DWPROBE-TRACE-END")[0]); err == nil {
		t.Error("a console cut inside the trace parsed")
	}
}
