package main

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs"
)

// TestOptions pins option handling: perf's names, unsupported options that
// say so, exclusive modes, and help.
func TestOptions(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	cases := []struct {
		name    string
		args    []string
		wantErr string // "" = success
		wantOut string // substring of stdout
	}{
		{"help", []string{"--help"}, "", "usage: dwprobe"},
		{"nothing to do", []string{"-x", app}, "nothing to do", ""},
		{"exclusive modes", []string{"-x", app, "-D", "work", "-L", "work"}, "exclusive", ""},
		{"-x and -k", []string{"-x", app, "-k", app, "-D", "work"}, "exclusive", ""},
		{"-x and -m", []string{"-x", app, "-m", app, "-D", "work"}, "-m and -x are exclusive", ""},
		{"add dry run", []string{"-n", "-x", app, "-a", "work"}, "", "p:probe_app/work "},
		{"vars", []string{"-x", app, "-V", "work"}, "", "Available variables at work\n"},
		{"positional dry run", []string{"-n", "-x", app, "work", "p->id"}, "", "p:probe_app/work "},
		{"module", []string{"-m", "ext4", "-D", "ext4_sync_fs"}, "ext4", ""},
		{"max-probes", []string{"-x", app, "--max-probes", "2", "-D", "item_score"}, "too many (> 2) probe points found (raise --max-probes)", ""},
		{"max-probes, symbols", []string{"-x", app, "--max-probes", "1", "-D", "*%return"}, "> --max-probes 1)", ""},
		{"bad max-probes", []string{"-x", app, "--max-probes", "0", "-D", "work"}, "positive", ""},
		{"-D", []string{"-x", app, "-D", "work"}, "", "p:probe_app/work "},
		{"-D twice", []string{"-x", app, "-D", "work", "-D", "compute%return"}, "", "r:probe_app/compute__return "},
		{"no-inlines", []string{"-x", app, "--no-inlines", "-D", "item_score"}, "", "p:probe_app/item_score "},
		{"-F filter word", []string{"-x", app, "-F", "comp*"}, "", "compute\n"},
		{"-F filter option", []string{"-x", app, "-F", "--filter", "work"}, "", "work\n"},
		{"-L", []string{"-x", app, "-L", "compute"}, "", "<compute@"},
		{"named event", []string{"-x", app, "-D", "grp:ev=work"}, "", "p:grp/ev "},
		{"bad group", []string{"-x", app, "-D", "1grp:ev=work"}, "group", ""},
		{"arguments", []string{"-x", app, "-D", "work p"}, "", " p=%di:x64\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkRun(t, c.args, c.wantErr, c.wantOut) })
	}
}

// checkRun runs dwprobe in process: an error mentioning wantErr ("" for
// success) and a stdout holding wantOut.
func checkRun(t *testing.T, args []string, wantErr, wantOut string) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), args, &out, io.Discard)
	if wantErr == "" {
		if err != nil {
			t.Fatalf("error %v", err)
		}
	} else if err == nil || !strings.Contains(err.Error(), wantErr) {
		t.Fatalf("error %v, want one mentioning %q", err, wantErr)
	}
	if !strings.Contains(out.String(), wantOut) {
		t.Errorf("stdout %q lacks %q", out.String(), wantOut)
	}
}

// TestNoInlines: --no-inlines keeps only the out-of-line copy.
func TestNoInlines(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	var all, outl bytes.Buffer
	if err := run(context.Background(), []string{"-x", app, "-D", "item_score"}, &all, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"-x", app, "--no-inlines", "-D", "item_score"}, &outl, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if n, m := strings.Count(all.String(), "\n"), strings.Count(outl.String(), "\n"); n != 6 || m != 1 {
		t.Errorf("item_score: %d probes, %d without inlines; want 6 and 1", n, m)
	}
}

// TestHelp: --help and -h print to stdout and succeed (dwprobe --help |
// less); every option line shows its argument by name, and no default
// sentinel (-F's NUL, -l's "*") leaks into the text.
func TestHelp(t *testing.T) {
	for _, arg := range []string{"--help", "-h", "--he"} {
		var out, errb bytes.Buffer
		if err := run(context.Background(), []string{arg}, &out, &errb); err != nil {
			t.Fatalf("%s: %v", arg, err)
		}
		help := out.String()
		if errb.Len() != 0 {
			t.Errorf("%s: stderr %q, want nothing", arg, errb.String())
		}
		for _, want := range []string{"  -F, --funcs[=FILTER]  ", "  -l, --list[=[GROUP:]EVENT]", "  -k, --vmlinux=VMLINUX  ",
			"--max-probes=N", "(default 128)", "\nExit status:\n  0  success\n", "  3  a probe did not resolve"} {
			if !strings.Contains(help, want) {
				t.Errorf("%s: help lacks %q", arg, want)
			}
		}
		for _, bad := range []string{"\x00", "string[", "stringArray", `[="*"]`} {
			if strings.Contains(help, bad) {
				t.Errorf("%s: help contains %q", arg, bad)
			}
		}
	}
	// In a process: status 0, stdout only; an error goes to stderr.
	out, errs, code := runBin(t, "--help")
	if code != 0 || errs != "" || !strings.HasPrefix(out, "usage: dwprobe") {
		t.Errorf("dwprobe --help: exit %d, stderr %q, stdout %.20q", code, errs, out)
	}
	out, errs, code = runBin(t, "--lisx")
	if code != exitUsage || out != "" || !strings.Contains(errs, "did you mean --list?") {
		t.Errorf("dwprobe --lisx: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestVersion: --version names the module version and the revision, and
// says "dirty" for a tree with changes; the binary the build script makes
// carries the checkout's revision.
func TestVersion(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "1254016aef6a397accd9ed0c2ebe5a93772c6b91"},
			{Key: "vcs.time", Value: "2026-11-23T16:03:29Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := formatVersion(bi), "dwprobe v1.2.0 (revision 1254016aef6a, 2026-11-23T16:03:29Z, dirty; go1.26.8)"; got != want {
		t.Errorf("formatVersion = %q, want %q", got, want)
	}
	if got, want := formatVersion(&debug.BuildInfo{GoVersion: "go1.26.8"}), "dwprobe (devel) (go1.26.8)"; got != want {
		t.Errorf("formatVersion without VCS = %q, want %q", got, want)
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--version"}, &out, io.Discard); err != nil || !strings.HasPrefix(out.String(), "dwprobe ") {
		t.Errorf("--version: %v, %q", err, out.String())
	}
	rev, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		dwarftest.Skip(t, "not a git checkout: %v", err)
		return
	}
	got, _, code := runBin(t, "--version")
	if want := "revision " + string(rev[:12]); code != 0 || !strings.Contains(got, want) {
		t.Errorf("dwprobe --version: exit %d, %q; want %q", code, got, want)
	}
}

// TestStaticBuild: the build script's binary is one static file, with no
// interpreter and no dynamic section, to copy onto the machine to debug.
func TestStaticBuild(t *testing.T) {
	f, err := elf.Open(dwprobeBin(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("dwprobe has a %v segment: not static", p.Type)
		}
	}
}

// TestLongOptionPrefixes: a unique prefix of a long option is the option,
// as in perf; an ambiguous one lists its candidates, an unknown one
// suggests the closest name; option arguments are not taken for options.
func TestLongOptionPrefixes(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	cases := []struct {
		name    string
		args    []string
		wantErr string
		wantOut string
	}{
		{"prefix", []string{"--exe", app, "--defin", "work"}, "", "p:probe_app/work "},
		{"prefix with =", []string{"--exe=" + app, "--max-p=2", "--defin=item_score"}, "too many", ""},
		{"optional argument", []string{"-x", app, "--fun", "comp*"}, "", "compute\n"},
		{"ambiguous", []string{"-x", app, "--li", "work"}, "option --li is ambiguous: --line, --list (see dwprobe --help)", ""},
		{"ambiguous no", []string{"-x", app, "--no", "-D", "work"}, "--no-demangle, --no-index, --no-inlines", ""},
		{"unknown", []string{"-x", app, "--lisx"}, "unknown option --lisx; did you mean --list? (see dwprobe --help)", ""},
		{"unknown, nothing close", []string{"-x", app, "--zzzzzzzz"}, "unknown option --zzzzzzzz (see dwprobe --help)", ""},
		{"unknown short", []string{"-x", app, "-z"}, "unknown shorthand flag: 'z' in -z (see dwprobe --help)", ""},
		{"argument like an option", []string{"-x", app, "-D", "--lis"}, `probe "--lis"`, ""},
		{"argument of a cluster", []string{"-nx", app, "work"}, "", "p:probe_app/work "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkRun(t, c.args, c.wantErr, c.wantOut) })
	}
}

// TestExitCodes: the status tells a usage error, a probe that did not
// resolve, an input that could not be read and the kernel's refusal apart.
func TestExitCodes(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	notELF := filepath.Join(t.TempDir(), "notelf")
	if err := os.WriteFile(notELF, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want int
	}{
		{"ok", []string{"-x", app, "-D", "work"}, exitOK},
		{"unknown option", []string{"-x", app, "--nosuch"}, exitUsage},
		{"exclusive modes", []string{"-x", app, "-D", "work", "-L", "work"}, exitUsage},
		{"nothing to do", []string{"-x", app}, exitUsage},
		{"no function", []string{"-x", app, "-D", "nosuch_function"}, exitUnresolved},
		{"no variable", []string{"-x", app, "-D", "work nosuch_var"}, exitUnresolved},
		{"syntax", []string{"-x", app, "-D", "work+"}, exitUnresolved},
		{"too many", []string{"-x", app, "--max-probes", "2", "-D", "item_score"}, exitUnresolved},
		{"bad filter", []string{"-x", app, "-F", "a&"}, exitUnresolved},
		{"no lines", []string{"-x", app, "-L", "nosuch"}, exitUnresolved},
		{"-V with arguments", []string{"-x", app, "-V", "work p"}, exitUnresolved},
		{"--bootconfig with -x", []string{"-x", app, "-b", "-D", "work"}, exitUsage},
		{"past the end", []string{"-x", app, "-L", "app_util.c:999"}, exitUnresolved},
		{"no binary", []string{"-x", "/nonexistent/app", "-D", "work"}, exitInput},
		{"not ELF", []string{"-x", notELF, "-D", "work"}, exitInput},
		{"no --apply file", []string{"-n", "--apply", "/nonexistent/defs"}, exitInput},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := run(context.Background(), c.args, io.Discard, io.Discard)
			if got := exitCode(err); got != c.want {
				t.Errorf("exit %d (%v), want %d", got, err, c.want)
			}
		})
	}
	for _, err := range []error{tracefs.ErrNotMounted, tracefs.ErrPermission, tracefs.ErrNotSupported,
		&tracefs.WriteError{Err: syscall.EINVAL}, tracefs.ErrEventExists, tracefs.ErrNoMatch} {
		if got := exitCode(fmt.Errorf("x: %w", err)); got != exitKernel {
			t.Errorf("%v: exit %d, want %d", err, got, exitKernel)
		}
	}
	fakeTracefs(t)
	if _, _, err := dw("-d", "nosuch"); exitCode(err) != exitKernel {
		t.Errorf("-d nosuch: %v, exit %d, want %d", err, exitCode(err), exitKernel)
	}
	if _, _, err := dw("-l", "-x", app); exitCode(err) != exitUsage {
		t.Errorf("-l -x: %v, exit %d, want %d", err, exitCode(err), exitUsage)
	}
	if _, _, err := dw("-q", "-x", app, "-a", "work"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := dw("-q", "-x", app, "-a", "work"); exitCode(err) != exitKernel {
		t.Errorf("-a of an event that exists: %v, exit %d, want %d", err, exitCode(err), exitKernel)
	}
	refused := addErr(&tracefs.WriteError{Kind: tracefs.UProbe, Def: "p:g/e /app:0x1", Err: syscall.EINVAL, Errno: syscall.EINVAL},
		io.Discard, func(int) string { return "definition 1" })
	if got := exitCode(refused); got != exitKernel {
		t.Errorf("%v: exit %d, want %d", refused, got, exitKernel)
	}
	taken := addErr(&tracefs.TracepointTakenError{Index: 1, Group: "dwt", Name: "b", Tracepoint: "sched_switch", By: "dwt/a"},
		io.Discard, func(int) string { return "definition 2" })
	if got, want := taken.Error(), "definition 2: tracepoint sched_switch already has the probe event dwt:a, and this kernel (before Linux 6.15) takes one per tracepoint; nothing was added (put the arguments in one event, or delete dwt:a with -d dwt:a)"; got != want || exitCode(taken) != exitKernel {
		t.Errorf("a tracepoint taken: %q, exit %d\nwant %q, exit %d", got, exitCode(taken), want, exitKernel)
	}
	if got := exitCode(errors.New("other")); got != exitFailure {
		t.Errorf("an unclassified error: exit %d, want %d", got, exitFailure)
	}
	// In a process.
	if _, _, code := runBin(t, "-x", app, "-D", "nosuch_function"); code != exitUnresolved {
		t.Errorf("dwprobe -D nosuch_function: exit %d, want %d", code, exitUnresolved)
	}
}

// TestManPage: the man page is generated from the flag set: every option,
// the exit statuses, nothing roff would take for a request.
func TestManPage(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--man"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	man := out.String()
	for _, f := range visibleFlags(newFlags(&options{}, io.Discard)) {
		if !strings.Contains(man, "\n.B "+roffText(optionSyntax(f))+"\n") {
			t.Errorf("man page lacks %s", optionSyntax(f))
		}
	}
	for _, c := range exitCodes {
		if !strings.Contains(man, fmt.Sprintf(".B %d\n", c.code)) {
			t.Errorf("man page lacks exit status %d", c.code)
		}
	}
	for i, l := range strings.Split(man, "\n") {
		if strings.HasPrefix(l, "'") || (strings.HasPrefix(l, ".") && !regexp.MustCompile(`^\.(TH|SH|SS|PP|B|BR|TP|nf|fi) ?`).MatchString(l)) {
			t.Errorf("line %d is a stray roff request: %q", i+1, l)
		}
	}
	// man(1) renders it: a subtest, so that without man the checks above
	// still count and the rendering alone is skipped (failed under make
	// test).
	t.Run("man", func(t *testing.T) {
		cmd := exec.Command(dwarftest.NeedTool(t, "man"), "-l", "-")
		cmd.Stdin = strings.NewReader(out.String())
		cmd.Env = append(os.Environ(), "MANWIDTH=100", "MAN_KEEP_FORMATTING=0")
		text, err := cmd.Output()
		plain := regexp.MustCompile(".\x08").ReplaceAllString(string(text), "") // overstrike bold
		if err != nil || !strings.Contains(plain, "--funcs[=FILTER]") || !strings.Contains(plain, "JSON OUTPUT") && !strings.Contains(plain, "JSON output") {
			t.Errorf("man -l: %v, %.200q", err, text)
		}
	})
}

// TestCompletion: the bash and zsh scripts are generated from the flag set
// (every option in both), parse, and complete: bash's compgen run gives
// option names and the function names of the -x binary.
func TestCompletion(t *testing.T) {
	scripts := map[string]string{}
	for _, sh := range []string{"bash", "zsh"} {
		var out bytes.Buffer
		if err := run(context.Background(), []string{"--completion", sh}, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		scripts[sh] = out.String()
		for _, f := range visibleFlags(newFlags(&options{}, io.Discard)) {
			if !regexp.MustCompile(`[ '{,]--` + regexp.QuoteMeta(f.Name) + `[ '=}]`).MatchString(out.String()) {
				t.Errorf("%s completion lacks --%s", sh, f.Name)
			}
		}
	}
	if err := run(context.Background(), []string{"--completion", "fish"}, io.Discard, io.Discard); exitCode(err) != exitUsage {
		t.Errorf("--completion fish: %v, want a usage error", err)
	}
	dir := t.TempDir()
	for sh, s := range scripts {
		p := filepath.Join(dir, sh)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(dwarftest.NeedTool(t, sh), "-n", p).CombinedOutput(); err != nil {
			t.Errorf("%s -n: %v\n%s", sh, err, out)
		}
	}
	app := fixture(t, "app-gcc-O2-dwarf5")
	complete := func(words ...string) string {
		t.Helper()
		script := fmt.Sprintf(`source %q; COMP_WORDS=(%s); COMP_CWORD=%d; _dwprobe; printf '%%s\n' "${COMPREPLY[@]}"`,
			filepath.Join(dir, "bash"), shellWords(words), len(words)-1)
		out, err := exec.Command("bash", "-c", script).CombinedOutput()
		if err != nil {
			t.Fatalf("compgen: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := complete("dwprobe", "--lis"); got != "--list" {
		t.Errorf("--lis completes to %q, want --list", got)
	}
	if got := complete(dwprobeBin(t), "-x", app, "-D", "comp"); got != "compute" {
		t.Errorf("-x app -D comp completes to %q, want compute", got)
	}
	if got := complete(dwprobeBin(t), "-x", app, "-D", "work:"); got != "" {
		t.Errorf("-D work: completes to %q, want nothing", got)
	}
}

// shellWords quotes words for a bash array.
func shellWords(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// TestFuncsOnce: -F lists each name once; glibc's symbol table holds
// versioned aliases (aio_cancel twice), which perf prints as often.
func TestFuncsOnce(t *testing.T) {
	const libc = "/lib/x86_64-linux-gnu/libc.so.6"
	if _, err := os.Stat(libc); err != nil {
		dwarftest.Skip(t, "no %s: %v", libc, err)
		return
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-x", libc, "-F"}, &out, io.Discard); err != nil {
		if errors.Is(err, dwarfres.ErrNoDebugInfo) {
			dwarftest.Skip(t, "glibc without debuginfo (make deps installs libc6-dbg): %v", err)
			return
		}
		t.Fatal(err)
	}
	names := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			t.Errorf("%s listed twice", n)
		}
		seen[n] = true
	}
	for _, n := range []string{"aio_cancel", "malloc", "memcpy"} {
		if !seen[n] {
			t.Errorf("%s not listed", n)
		}
	}
}

// TestListChangedBinary: -l says when the binary under a uprobe is not
// what it was when dwprobe added the probe (build-id, else size), from the
// record it keeps beside tracefs's lock; a binary unchanged gets no note.
func TestListChangedBinary(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app")
	copyFile := func(src string, extra []byte) {
		t.Helper()
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(app, append(b, extra...), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gcc, clang := fixture(t, "app-gcc-O2-dwarf5"), fixture(t, "app-clang-O2-dwarf5")
	copyFile(gcc, nil)
	fsys, _ := fakeTracefs(t)
	if _, _, err := dw("-q", "-x", app, "-a", "work", "-a", "g:e=compute"); err != nil {
		t.Fatal(err)
	}
	rec, err := os.ReadFile(fsys.AddedPath())
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^g/e\t` + regexp.QuoteMeta(app) + `\t\d+\t[0-9a-f]{40}$`).Match(rec) {
		t.Errorf("record:\n%s", rec)
	}
	list := func() string {
		t.Helper()
		_, errOut, err := dw("-k", "/nonexistent", "-l")
		if err != nil {
			t.Fatal(err)
		}
		return errOut
	}
	if errOut := list(); strings.Contains(errOut, "changed") {
		t.Errorf("unchanged binary: %q", errOut)
	}
	copyFile(gcc, []byte{0})
	if errOut := list(); !strings.Contains(errOut, "note: probe_app:work: "+app+" has changed since the probe was added (") ||
		!regexp.MustCompile(`g:e: \S+ has changed since the probe was added \(\d+ bytes, was \d+\)`).MatchString(errOut) {
		t.Errorf("grown binary: %q", errOut)
	}
	copyFile(clang, nil)
	if errOut := list(); !regexp.MustCompile(`g:e: \S+ has changed since the probe was added \(build-id [0-9a-f]{40}, was [0-9a-f]{40}\)`).MatchString(errOut) {
		t.Errorf("rebuilt binary: %q", errOut)
	}
	// Deleted events drop out of the record at the next add.
	if _, _, err := dw("-q", "-d", "g:e"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := dw("-q", "-x", app, "-a", "g:f=compute"); err != nil {
		t.Fatal(err)
	}
	if rec, _ := os.ReadFile(fsys.AddedPath()); strings.Contains(string(rec), "g/e\t") || !strings.Contains(string(rec), "g/f\t") {
		t.Errorf("record after -d g:e and -a g:f:\n%s", rec)
	}
}

// TestREADMEExitCodes: the reference's table of exit statuses (README
// points to it; the man page holds it) is --help's.
func TestREADMEExitCodes(t *testing.T) {
	readme, err := os.ReadFile("reference.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range exitCodes {
		if row := fmt.Sprintf("\n| %d | %s |\n", c.code, c.what); !strings.Contains(string(readme), row) {
			t.Errorf("README lacks the row %q", strings.TrimSpace(row))
		}
	}
}
