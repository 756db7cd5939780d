package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestDiffSyntaxErrors: a spec file with junk lines gets an "invalid"
// verdict for each, with where and why, counted apart from the changes;
// 3 junk lines of 4 were summarised as "3 of 4 probes resolve
// differently" (status 6).
func TestDiffSyntaxErrors(t *testing.T) {
	old := dwarftest.Compile(t, "gcc", "app.c", diffOld, "-O0", "-g")
	file := writeSpecs(t, "main\nmain x=\n%%%\nwork:a:b\n")
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"-x", old, "--diff", old, "-D", "@" + file}, &out, &errb)
	if got := exitCode(err); got != exitUnresolved || !strings.Contains(err.Error(), "3 of 4 specs are not probe commands (syntax errors)") {
		t.Errorf("exit %d (%v), want %d and the syntax errors counted", got, err, exitUnresolved)
	}
	b := diffBlocks(out.String())
	if !strings.HasPrefix(b["main"], "unchanged ") {
		t.Errorf("main: %q", b["main"])
	}
	for _, s := range []string{"main x=", "%%%", "work:a:b"} {
		if !regexp.MustCompile(`^invalid ` + regexp.QuoteMeta(s) + `\n.*specs.txt:\d+:\d+: syntax error: `).MatchString(b[s]) {
			t.Errorf("%s: %q, want invalid and its syntax error", s, b[s])
		}
	}
	if want := "1 probe: 1 unchanged; 3 syntax errors\n"; errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
	out.Reset()
	run(context.Background(), []string{"-x", old, "--diff", old, "-D", "@" + file, "--json"}, &out, &errb)
	if n := strings.Count(out.String(), `"change":"invalid"`); n != 3 {
		t.Errorf("--json: %d invalid objects, want 3:\n%s", n, out.String())
	}
}

// TestDiffRefusesSourceDir: a --diff-source that is not a directory is
// one usage error; it used to be taken silently, every new line's text
// unknown, and tcp_ack:5 turned from unchanged into moved.
func TestDiffRefusesSourceDir(t *testing.T) {
	notDir := writeSpecs(t, "main\n")
	for _, dir := range []string{"/nonexistent/linux-6.12", notDir} {
		var out, errb bytes.Buffer
		err := run(context.Background(), []string{"-x", "a", "--diff", "b", "--diff-source", dir, "-D", "main"}, &out, &errb)
		if exitCode(err) != exitUsage || !strings.Contains(err.Error(), "source tree (--diff-source)") || out.Len() > 0 {
			t.Errorf("--diff-source %s: exit %d, %v, stdout %q", dir, exitCode(err), err, out.String())
		}
	}
}

// TestDiffRefusesOtherMachine: --diff from 6.1's amd64 vmlinux to
// 6.12's arm64 one is one error line, status 4; it ran without a word.
func TestDiffRefusesOtherMachine(t *testing.T) {
	old := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	new := dwarftest.NeedCorpus(t, "6.12/arm64/vmlinux")
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"-k", old, "--diff", new, "-D", "vfs_read"}, &out, &errb)
	if exitCode(err) != exitInput || !strings.Contains(err.Error(), "is for arm64, the old build for x86_64") || out.Len() > 0 {
		t.Errorf("exit %d, %v, stdout %q", exitCode(err), err, out.String())
	}
}

// TestDiffStreams: --diff prints each verdict as it is reached, so a
// signal after the first leaves it printed, no verdict for the spec at
// hand, no counts, and a line saying how far the run got (status 1).
func TestDiffStreams(t *testing.T) {
	old := dwarftest.Compile(t, "gcc", "app.c", diffOld, "-O0", "-g")
	new := dwarftest.Compile(t, "gcc", "app.c", diffNew, "-O0", "-g")
	file := writeSpecs(t, "main\nwork:4 total\nhelper\n")
	for _, json := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		out := &cancelOnWrite{cancel: cancel}
		var errb strings.Builder
		args := []string{"-x", old, "--diff", new, "-D", "@" + file}
		if json {
			args = append(args, "--json")
		}
		err := run(ctx, args, out, &errb)
		cancel()
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if exitCode(err) != exitFailure || len(lines) != 1 || !strings.Contains(lines[0], "main") || strings.Contains(errb.String(), "probes:") ||
			!strings.Contains(err.Error(), "interrupted after 1 specs; the verdicts above are theirs") {
			t.Errorf("json %v: %v (exit %d), stdout\n%s\nstderr\n%s", json, err, exitCode(err), out.String(), errb.String())
		}
	}
}

// TestSignalDiffSpecs: SIGINT or SIGTERM while --diff scans a spec file
// ends it with status 1 and "interrupted"; every verdict printed is one
// the spec deserves (each spec is unchanged against its own build). The
// specs cancelled were reported as "not-in-old", the counts printed and
// the status was 6 (10 runs of 10).
func TestSignalDiffSpecs(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	file := writeSpecs(t, strings.Repeat("vfs_read:12 file\ntcp_ack:5\n", 20000))
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		code, out, errs, _, exited := signalRun(t, sig, 6*time.Second, nil, "-k", vml, "--diff", vml, "-D", "@"+file)
		if exited {
			t.Fatalf("--diff of 40,000 specs was done within 6 s: nothing to interrupt")
		}
		n := 0
		for _, l := range strings.Split(out, "\n") {
			if l == "" {
				continue
			}
			n++
			if !strings.HasPrefix(l, "unchanged  ") {
				t.Errorf("%v: verdict %q for a spec of the build against itself", sig, l)
				break
			}
		}
		t.Logf("%v: %d verdicts, exit %d: %s", sig, n, code, errs)
		if code != exitFailure || !strings.Contains(errs, "dwprobe: interrupted after") || strings.Contains(errs, "probes:") {
			t.Errorf("%v: exit %d, stderr:\n%s", sig, code, errs)
		}
	}
}

// TestSignalVarsSpecs: SIGINT or SIGTERM while -V @FILE lists the
// variables of a spec file ends it with status 1 and "interrupted", and
// no spec failed: the cancelled ones were reported as not found.
func TestSignalVarsSpecs(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	file := writeSpecs(t, strings.Repeat("vfs_read\ntcp_ack:5\n", 20000))
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		code, out, errs, _, exited := signalRun(t, sig, 6*time.Second, nil, "-q", "-k", vml, "-V", "@"+file)
		if exited {
			t.Fatalf("-V of 40,000 specs was done within 6 s: nothing to interrupt")
		}
		t.Logf("%v: %d listings, exit %d", sig, strings.Count(out, "Available variables at"), code)
		if code != exitFailure || !strings.Contains(errs, "dwprobe: interrupted after") || !strings.Contains(errs, "(0 of them failed)") ||
			regexp.MustCompile(`specs\.txt:\d+:\d+:`).MatchString(errs) {
			t.Errorf("%v: exit %d, stderr:\n%s", sig, code, errs)
		}
	}
}

// TestInlinedCallEntryLine: a point at the entry of an inlined call is
// at its caller's line. mmap_region:12 of 6.1 (mm/mmap.c:2916, "if (file
// && is_shared_maywrite(vm_flags)) {") was reported at
// include/linux/mm.h:676, the inlined function's first line, by -D
// --json's source_file/source_line and by --diff, which then found the
// statement nowhere in 6.12 and suggested nothing.
func TestInlinedCallEntryLine(t *testing.T) {
	old := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	oldSrc := dwarftest.NeedCorpus(t, "linux")
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"-k", old, "-D", "mmap_region:12", "--json"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"source_file":"mm/mmap.c","source_line":2916,"function":"mmap_region"`) {
		t.Errorf("-D --json: %s", out.String())
	}
	new := dwarftest.NeedCorpus(t, "6.12/amd64/vmlinux")
	newSrc := dwarftest.NeedCorpus(t, "linux-6.12")
	out.Reset()
	run(context.Background(), []string{"-k", old, "-s", oldSrc, "--diff", new, "--diff-source", newSrc, "-D", "mmap_region:12"}, &out, &errb)
	b := diffBlocks(out.String())["mmap_region:12"]
	if !strings.Contains(b, `was mmap_region at mm/mmap.c:2916 "if (file && is_shared_maywrite(vm_flags)) {"`) || !strings.Contains(b, "suggest: mmap_region:16") {
		t.Errorf("--diff: %q", b)
	}
}

// TestFunctionEntryStaysDeclaration: the entry of an out-of-line function
// whose first instruction is an inlined call's (rb_insert_color's
// __rb_insert) is still at the function's declaration, as perf reports
// an entry, not at the call's line.
func TestFunctionEntryStaysDeclaration(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"-k", vml, "-D", "rb_insert_color", "--json"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"offset":0,"source_file":"lib/rbtree.c","source_line":434,`) {
		t.Errorf("-D --json: %s", out.String())
	}
}

// TestInlineEntryLines: of the 960 -D specs of the conformance list on
// 6.1 amd64, the 8 points whose source position changed when the call
// line of an inlined call's entry replaced the callee's row (all of a
// header's row: current.h, rcupdate.h, mm.h, pgtable.h, skbuff.h), and
// one whose row is the caller's own line and stays (handle_mm_fault:5,
// __set_current_state sharing its address with count_vm_event's entry).
func TestInlineEntryLines(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	for _, tt := range []struct{ spec, want string }{
		{"vfs_read:27", `"source_file":"fs/read_write.c","source_line":477,`},
		{"dput:6", `"source_file":"fs/dcache.c","source_line":905,`},
		{"vm_normal_page:3", `"source_file":"mm/memory.c","source_line":615,`},
		{"udp_init_sock:2", `"source_file":"net/ipv4/udp.c","source_line":1687,`},
		{"handle_mm_fault:5", `"source_file":"mm/memory.c","source_line":5268,`},
	} {
		var out, errb bytes.Buffer
		if err := run(context.Background(), []string{"-k", vml, "-D", tt.spec, "--json"}, &out, &errb); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), tt.want) {
			t.Errorf("%s: want %s in %s", tt.spec, tt.want, out.String())
		}
	}
}
