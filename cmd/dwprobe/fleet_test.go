package main

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs"
)

func TestParseFleet(t *testing.T) {
	id := "01D2640D3A13145EE314EB05B155F141B7B7058B"
	for _, tt := range []struct {
		text string
		want []fleetBuild
		err  string
	}{
		{"# builds\n\n/boot/vmlinux\n", []fleetBuild{{Name: "/boot/vmlinux", Path: "/boot/vmlinux", Line: 3}}, ""},
		{"old " + id + "\nnew /k/vmlinux /k/src\n", []fleetBuild{
			{Name: "old", BuildID: strings.ToLower(id), Line: 1},
			{Name: "new", Path: "/k/vmlinux", Source: "/k/src", Line: 2}}, ""},
		{"  " + id + "  \n", []fleetBuild{{Name: id, BuildID: strings.ToLower(id), Line: 1}}, ""},
		{"a 0123\n", []fleetBuild{{Name: "a", Path: "0123", Line: 1}}, ""}, // too short for a build-id
		{"a b c d\n", nil, "f:1: not a fleet file: 4 words"},
		{"a /x\na /y\n", nil, "f:2: not a fleet file: build a is named on line 1 too"},
		{"# nothing\n", nil, "f: not a fleet file: no builds"},
	} {
		got, err := parseFleet(strings.NewReader(tt.text), "f")
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, errFleetFile) {
				t.Errorf("%q: %v, want error %q", tt.text, err, tt.err)
			}
		case err != nil || !slices.Equal(got, tt.want):
			t.Errorf("%q: %+v, %v; want %+v", tt.text, got, err, tt.want)
		}
	}
}

func TestParseMemAvailable(t *testing.T) {
	for _, tt := range []struct {
		text string
		want int64
	}{
		{"MemTotal:       24000000 kB\nMemAvailable:   22000000 kB\n", 22000000 << 10},
		{"MemTotal: 1 kB\n", fleetBuildMemory},
		{"MemAvailable: many kB\n", fleetBuildMemory},
	} {
		if got := parseMemAvailable(tt.text); got != tt.want {
			t.Errorf("%q: %d, want %d", tt.text, got, tt.want)
		}
	}
}

// TestFleetUsage: --fleet's options alone, or with the options naming
// one target, are usage errors.
func TestFleetUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--fleet", "b", "-L", "vfs_read"}, "--fleet checks the specs of -D"},
		{[]string{"--fleet", "b", "-k", "v", "-D", "vfs_read"}, "does not go with -k"},
		{[]string{"--fleet", "b", "--diff", "n", "-D", "vfs_read"}, "does not go with --diff"},
		{[]string{"-k", "v", "--junit", "r.xml", "-D", "vfs_read"}, "--junit writes the report of a --fleet run"},
		{[]string{"--fleet", "b", "--fleet-jobs", "-1", "-D", "vfs_read"}, "--fleet-jobs must be positive"},
	} {
		var out, errb bytes.Buffer
		err := run(context.Background(), tt.args, &out, &errb)
		if exitCode(err) != exitUsage || err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: exit %d, %v; want usage %q", tt.args, exitCode(err), err, tt.want)
		}
	}
}

// TestFleetFixture: --fleet over builds named by path: two builds of a
// program (the first the reference), one that does not exist (reported,
// not fatal); each build's answers, a summary per spec, JSON and a JUnit
// report the schema accepts.
func TestFleetFixture(t *testing.T) {
	old := dwarftest.Compile(t, "gcc", "app.c", diffOld, "-O0", "-g")
	new := dwarftest.Compile(t, "gcc", "app.c", diffNew, "-O0", "-g")
	dir := t.TempDir()
	fleet := filepath.Join(dir, "fleet.txt")
	os.WriteFile(fleet, []byte(fmt.Sprintf("# the builds\nold %s\nnew %s\nlost /nonexistent/vmlinux\n", old, new)), 0o644)
	specs := writeSpecs(t, "main\nwork:4 total\ngone\nmain x=\n")
	junit := filepath.Join(dir, "report.xml")
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"--fleet", fleet, "-D", "@" + specs, "--junit", junit}, &out, &errb)
	if exitCode(err) != exitUnresolved {
		t.Errorf("exit %d (%v), want %d", exitCode(err), err, exitUnresolved)
	}
	m := machineOf(t, old)
	for _, want := range []string{
		"== old (" + old + ", " + m + "): the reference\nresolves   main\nresolves   work:4 total\nresolves   gone\ninvalid    main x=\n",
		"== new (" + new + ", " + m + "): diffed against old\nunchanged  main\nargs       work:4 total\n",
		"broken     gone\n",
		"== lost (/nonexistent/vmlinux): not checked: ",
		"== each spec in the 2 builds checked\nmain: resolves in 2 of 2 builds\nwork:4 total: resolves in 2 of 2 builds; args in new\n" +
			"gone: resolves in 1 of 2 builds; not in new; broken in new\nmain x=: resolves in 0 of 2 builds; invalid in old, new\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
	if want := "2 builds checked, 1 not: 3 failures, 1 changes\n"; errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
	validateJUnit(t, junit)
	b, _ := os.ReadFile(junit)
	for _, want := range []string{`<testsuite name="new" tests="4" failures="3" errors="0"`, `<testsuite name="lost" tests="4" failures="0" errors="4"`,
		`<failure message="broken: probe point &#39;gone&#39; not found" type="broken">`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JUnit: no %s in\n%s", want, b)
		}
	}
	out.Reset()
	run(context.Background(), []string{"--fleet", fleet, "-D", "@" + specs, "--json"}, &out, &errb)
	modes := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct{ Mode string }
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("--json: %v: %s", err, l)
		}
		modes[m.Mode]++
	}
	if modes["fleet-build"] != 3 || modes["fleet"] != 8 || modes["fleet-summary"] != 4 {
		t.Errorf("--json objects %v, want 3 fleet-build, 8 fleet, 4 fleet-summary", modes)
	}
}

// machineOf is the machine of an ELF file as reports name it.
func machineOf(t *testing.T, path string) string {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return tracefs.MachineName(f.Machine)
}

// validateJUnit checks a JUnit report against testdata/junit/junit.xsd
// (the Jenkins/Surefire format) with xmllint.
func validateJUnit(t *testing.T, report string) {
	t.Helper()
	xmllint := dwarftest.NeedTool(t, "xmllint")
	out, err := exec.Command(xmllint, "--noout", "--schema", "../../testdata/junit/junit.xsd", report).CombinedOutput()
	if err != nil {
		t.Errorf("JUnit report does not validate: %v\n%s", err, out)
	}
}

// TestJUnitSchemaRejects: the schema is no rubber stamp: a testcase
// without a name, or with two failures, is refused.
func TestJUnitSchemaRejects(t *testing.T) {
	xmllint := dwarftest.NeedTool(t, "xmllint")
	for _, bad := range []string{
		`<testsuites><testsuite name="a" tests="1"><testcase classname="c"/></testsuite></testsuites>`,
		`<testsuites><testsuite name="a" tests="1"><testcase name="n"><failure/><failure/></testcase></testsuite></testsuites>`,
		`<testsuites><testsuite tests="1"/></testsuites>`,
	} {
		p := filepath.Join(t.TempDir(), "bad.xml")
		os.WriteFile(p, []byte(bad), 0o644)
		if err := exec.Command(xmllint, "--noout", "--schema", "../../testdata/junit/junit.xsd", p).Run(); err == nil {
			t.Errorf("the schema accepts %s", bad)
		}
	}
}

// corpusKernels are the vmlinux files of the corpus: 6.1's and those of
// each newer generation (6.12/amd64/vmlinux, ...), both machines.
func corpusKernels(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, m := range []string{"amd64", "arm64"} {
		out = append(out, dwarftest.NeedCorpus(t, m+"/vmlinux"))
		// Each generation's directory is named after its version: 6.12,
		// 7.3, ...
		gens, _ := filepath.Glob(filepath.Join(dwarftest.CorpusDir(), "[0-9]*.[0-9]*", m, "vmlinux"))
		out = append(out, gens...)
	}
	if len(out) < 4 {
		dwarftest.Skip(t, "the corpus has no 6.12 kernels (run make corpus-6.12)")
	}
	return out
}

// freePort is a TCP port of 127.0.0.1 free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startDebuginfod starts elfutils' debuginfod serving files (its -F scan
// of a directory of links to them) on a free port of 127.0.0.1 and waits
// until it has indexed them; it is stopped at the test's end.
func startDebuginfod(t *testing.T, files []string) string {
	t.Helper()
	bin := dwarftest.NeedTool(t, "debuginfod")
	dir := t.TempDir()
	served := filepath.Join(dir, "served")
	os.Mkdir(served, 0o755)
	for i, f := range files {
		real, err := filepath.EvalSymlinks(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(real, filepath.Join(served, fmt.Sprintf("vmlinux-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	port := freePort(t)
	// -L follows the links; no source scan (the fleet reads its sources
	// from its file); one scan, no grooming.
	cmd := exec.Command(bin, "-F", "-L", "--disable-source-scan", "-t", "0", "-g", "0",
		"-p", fmt.Sprint(port), "-d", filepath.Join(dir, "db.sqlite"), served)
	logf, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	log := func() string { b, _ := os.ReadFile(logf.Name()); return string(b) }
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	// debuginfod 0.188 answers GET only: its metrics say when the scan
	// has indexed every file.
	want := fmt.Sprintf(`scanned_files_total{source="file"} %d`, len(files))
	deadline := time.Now().Add(5 * time.Minute) // the scan of ~1.5 GB of vmlinux
	for {
		m := ""
		if resp, err := http.Get(url + "/metrics"); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			m = string(b)
		}
		if strings.Contains(m, want+"\n") && strings.Contains(m, `thread_work_pending{role="scan"} 0`+"\n") {
			break
		}
		select {
		case <-exited:
			t.Fatalf("debuginfod ended:\n%s", log())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("debuginfod has not indexed %d files after 5 minutes:\n%s\n%s", len(files), m, log())
		}
	}
	return url
}

// TestFleetDebuginfod: one --fleet run checks a spec file against every
// kernel of the corpus (6.1 and 6.12, amd64 and arm64), each named by
// its build-id alone and fetched from a local elfutils debuginfod, and a
// build-id no server has (reported, not fatal). Each 6.12 kernel is
// diffed against the 6.1 of its machine; the JUnit report validates.
// The run's time and peak memory are logged.
func TestFleetDebuginfod(t *testing.T) {
	kernels := corpusKernels(t)
	var ids []string
	for _, k := range kernels {
		ids = append(ids, buildIDOf(t, k))
	}
	url := startDebuginfod(t, kernels)
	dir := t.TempDir()
	var fl strings.Builder
	for i, k := range kernels {
		rel, _ := filepath.Rel(dwarftest.CorpusDir(), filepath.Dir(k))
		fmt.Fprintf(&fl, "%s %s\n", strings.ReplaceAll(rel, "/", "-"), ids[i])
	}
	fl.WriteString("unknown 00112233445566778899aabbccddeeff00112233\n")
	fleet := filepath.Join(dir, "fleet.txt")
	os.WriteFile(fleet, []byte(fl.String()), 0o644)
	specs := writeSpecs(t, "vfs_read\nvfs_read%return\ndo_sys_openat2 dfd filename:string\ntcp_ack:5\nmmap_region:12\n__alloc_pages\nksys_read+37\nnosuch_function\n")
	junit := filepath.Join(dir, "report.xml")
	cmd := exec.Command(dwprobeBin(t), "--fleet", fleet, "-D", "@"+specs, "--junit", junit)
	cmd.Env = append(os.Environ(), "DEBUGINFOD_URLS="+url, "DEBUGINFOD_CACHE_PATH="+filepath.Join(dir, "cache"), "DWPROBE_INDEX_DIR="+filepath.Join(dir, "index"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	code := exitOf(t, err)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	t.Logf("%d kernels by build-id through debuginfod, 8 specs: %v, peak RSS %d MB, exit %d", len(kernels), took.Round(10*time.Millisecond), ru.Maxrss>>10, code)
	if code != exitUnresolved {
		t.Errorf("exit %d, want %d (__alloc_pages is gone in 6.12, nosuch_function everywhere):\n%s", code, exitUnresolved, errb.String())
	}
	for i, k := range kernels {
		h := fmt.Sprintf("(build-id %s, ", ids[i])
		if !strings.Contains(out.String(), h) {
			t.Errorf("%s (%s) not checked:\n%s", k, ids[i], out.String())
		}
	}
	for _, want := range []string{
		"== unknown (build-id 00112233445566778899aabbccddeeff00112233): not checked: ",
		fmt.Sprintf("vfs_read: resolves in %d of %d builds\n", len(kernels), len(kernels)),
		fmt.Sprintf("nosuch_function: resolves in 0 of %d builds\n", len(kernels)),
		"__alloc_pages: resolves in 2 of",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
	if !strings.Contains(out.String(), "diffed against amd64") || !strings.Contains(out.String(), "diffed against arm64") {
		t.Errorf("the 6.12 kernels are not diffed against the 6.1 of their machine:\n%s", out.String())
	}
	validateJUnit(t, junit)
	b, _ := os.ReadFile(junit)
	if n := strings.Count(string(b), "<testsuite "); n != len(kernels)+1 {
		t.Errorf("JUnit: %d testsuites, want %d", n, len(kernels)+1)
	}
}

// TestSignalFleet: SIGINT or SIGTERM during a --fleet run over the
// corpus kernels ends every build's work: status 1, "interrupted",
// nothing on stdout and no JUnit report (nor a temporary of it).
func TestSignalFleet(t *testing.T) {
	kernels := corpusKernels(t)
	dir := t.TempDir()
	var fl strings.Builder
	for i, k := range kernels {
		fmt.Fprintf(&fl, "k%d %s\n", i, k)
	}
	fleet := filepath.Join(dir, "fleet.txt")
	os.WriteFile(fleet, []byte(fl.String()), 0o644)
	specs := writeSpecs(t, strings.Repeat("vfs_read:12 file\ntcp_ack:5\n", 20000))
	junit := filepath.Join(dir, "report.xml")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		code, out, errs, took, exited := signalRun(t, sig, 4*time.Second, nil, "--fleet", fleet, "-D", "@"+specs, "--junit", junit)
		if exited {
			t.Fatalf("--fleet of 40,000 specs was done within 4 s: nothing to interrupt")
		}
		left, _ := filepath.Glob(filepath.Join(dir, "*report.xml*"))
		t.Logf("%v: ended %v after the signal, exit %d", sig, took.Round(time.Millisecond), code)
		if code != exitFailure || out != "" || len(left) > 0 || !strings.Contains(errs, "dwprobe: interrupted") {
			t.Errorf("%v: exit %d, stdout %q, left %q, stderr:\n%s", sig, code, out, left, errs)
		}
	}
}
