package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestE2EMessages pins what dwprobe says when a spec does not resolve on
// the app fixture (issue 10, "Messages that mislead"): each message names
// what went wrong in the user's terms and what to do instead.
func TestE2EMessages(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	cases := []struct {
		name string
		args []string
		want []string // substrings of stderr
		not  []string // must not appear
	}{
		{"member typo", []string{"-x", app, "-D", "work p->nam"},
			[]string{`p (type struct item) has no member nam; did you mean name`}, []string{"DIE"}},
		{"member DIE under -v", []string{"-v", "-x", app, "-D", "work p->idd"},
			[]string{"did you mean id", "(p is DIE 0x"}, nil},
		// p is only DW_OP_entry_value past work+44: the hint names the
		// places a probe reads it, in the user's form, not the refused line.
		{"entry value, FUNC:N", []string{"-x", app, "-D", "work:9 p"},
			[]string{"variable p is in scope but has no location at work+58", "DW_OP_entry_value", "a probe can read it at work:0, work:7"},
			[]string{"work:9,", "/testdata/fixtures/"}},
		{"entry value, FUNC+OFF", []string{"-x", app, "-D", "compute+5 a"},
			[]string{"a probe can read it at compute+0"}, nil},
		{"entry value, SRC:LINE", []string{"-x", app, "-D", "app_util.c:56 p"},
			[]string{"a probe can read it at app_util.c:54"}, []string{"read it at app_util.c:56", "/testdata/fixtures/"}},
		{"declared out of scope", []string{"-x", app, "-D", "main:25 w"},
			[]string{"variable w is declared in main but not in scope at main+375; a probe can read it at main:9"}, []string{"no variable"}},
		{"computed value", []string{"-x", app, "-D", "compute r"},
			[]string{"variable r is in scope at compute+0 but a probe cannot read it there (unsupported location expression: DW_OP_mul); a probe can read it at compute+8"}, nil},
		{"past the file's end", []string{"-x", app, "-D", "app_util.c:200"},
			[]string{"no code at that line; the file's last probeable line is app_util.c:72"}, nil},
		// Line 60 is sum_list's opening brace: its row is at the entry,
		// which is the declaration's line (59), as perf counts lines.
		// Line 61's row follows it at the entry (sum_list has no
		// prologue): it starts there, and is the nearer on a tie.
		{"brace at the entry, SRC:LINE", []string{"-x", app, "-D", "app_util.c:60"},
			[]string{"no code at that line; nearest probeable lines: app_util.c:59", "and app_util.c:61", "(--nearest probes app_util.c:61)"}, nil},
		{"past the function's end", []string{"-x", app, "--nearest", "-D", "work:200"},
			[]string{"no code at that line; the function's last probeable line is work:", "work's source ends before that line"}, []string{"--nearest probes"}},
		{"missing -s", []string{"-x", app, "-s", "/nonexistent", "-D", "work"},
			[]string{"dwprobe: source tree (-s): stat /nonexistent: no such file or directory"}, nil},
		{"unquoted probe", []string{"-x", app, "-D", "work", "p->id"},
			[]string{`unexpected argument "p->id" after -D work: quote the whole probe, as in -D 'work p->id'`}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errs, code := runBin(t, c.args...)
			if code == 0 {
				t.Errorf("exit 0, want a failure")
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
			for _, w := range c.not {
				if strings.Contains(errs, w) {
					t.Errorf("stderr has %q:\n%s", w, errs)
				}
			}
		})
	}
}

// TestE2EMessagesKernel: the same on the corpus vmlinux.
func TestE2EMessagesKernel(t *testing.T) {
	cases := []struct {
		arch string
		args []string
		want string
	}{
		{"amd64", []string{"-D", "vfs_read file->f_mod"}, "file (type struct file) has no member f_mod; did you mean f_mode"},
		// arm64's vfs_read symbol starts 8 bytes (NOPs) before its entry:
		// the user's +3 is the symbol's +11.
		{"arm64", []string{"-D", "vfs_read+3"}, `vfs_read+3 (symbol vfs_read+11) is not on an instruction (arm64 instructions are 4 bytes): try vfs_read+0 or vfs_read+4`},
		{"amd64", []string{"-D", "fs/read_write.c:5000"}, "the file's last probeable line is fs/read_write.c:1715"},
		{"amd64", []string{"-D", "vfs_read+3"}, `vfs_read+3 is in the middle of an instruction (instructions start at vfs_read+0 and vfs_read+5)`},
	}
	for _, c := range cases {
		t.Run(c.arch+" "+strings.Join(c.args, " "), func(t *testing.T) {
			_, _, err := runKernel(t, c.arch, c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// TestE2ESourceNote: a source file -L cannot find is a note, naming the
// -s tree that did not hold it.
func TestE2ESourceNote(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	dir := t.TempDir()
	_, errs, code := runBin(t, "-x", app, "-s", dir, "-L", "work")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if want := "note: source of "; !strings.HasPrefix(errs, want) || !strings.Contains(errs, "the tree given with -s "+dir+" does not hold it") {
		t.Errorf("stderr:\n%s\nwant a note naming -s %s", errs, dir)
	}
}

// TestE2EGlibcAlias: -L, -V and -D resolve a symbol alias alike: glibc's
// malloc is __libc_malloc in DWARF (-L used to find no line).
func TestE2EGlibcAlias(t *testing.T) {
	const libc = "/lib/x86_64-linux-gnu/libc.so.6"
	if _, _, code := runBin(t, "-x", libc, "-V", "malloc"); code != 0 {
		dwarftest.Skip(t, "no debuginfo for %s (apt-get install libc6-dbg: make deps)", libc)
	}
	out, errs, code := runBin(t, "-x", libc, "-L", "malloc")
	if code != 0 || !strings.HasPrefix(out, "<__libc_malloc@malloc/malloc.c:0>\n") {
		t.Errorf("-L malloc: exit %d, stdout %q, stderr %s", code, out, errs)
	}
	out, _, _ = runBin(t, "-x", libc, "-V", "malloc")
	if !strings.Contains(out, "@<__libc_malloc+0>") {
		t.Errorf("-V malloc: %q", out)
	}
}

// TestE2ENotraceNote: the notrace note names the copy (its declaration's
// file and line) and why, from the declaration's source with -s: a
// function its source declares notrace is not called a copy of an inline
// function; a static inline's out-of-line copies and SYSCALL_DEFINE's
// __do_sys_ are.
func TestE2ENotraceNote(t *testing.T) {
	src := dwarftest.NeedCorpus(t, "linux")
	cases := []struct{ fn, want string }{
		{"stop_machine_yield", "note: stop_machine_yield (kernel/stop_machine.c:197) is notrace (no ftrace call site: its source declares it notrace)"},
		{"__do_sys_clone", "note: __do_sys_clone (kernel/fork.c:2903) is notrace (no ftrace call site: it is an out-of-line copy of an inline function (SYSCALL_DEFINE's __do_sys_))"},
		{"cpumask_weight", "note: cpumask_weight (include/linux/cpumask.h:638) is notrace (no ftrace call site: it is an out-of-line copy of an inline function)"},
		{"native_sched_clock", "note: native_sched_clock (arch/x86/kernel/tsc.c:218) is notrace (no ftrace call site: not declared inline or notrace: its file is built without ftrace (no -pg), or a macro marks it)"},
	}
	for _, c := range cases {
		t.Run(c.fn, func(t *testing.T) {
			_, errs, err := runKernel(t, "amd64", "-s", src, "-D", c.fn)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(errs, c.want) {
				t.Errorf("stderr lacks %q:\n%s", c.want, errs)
			}
		})
	}
}

// TestVarsRangeAgreesWithDefine pins issue 10's -V --range: a range is
// listed only where -D can read the variable. p in work is a register up
// to work+44 and only DW_OP_entry_value after it, which perf 6.1 still
// lists (@<work+[0-44,44-66]>).
func TestVarsRangeAgreesWithDefine(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	out, _, code := runBin(t, "-x", app, "-V", "work", "--range")
	if code != 0 || !strings.Contains(out, "struct item*\tp\t@<work+[0-44]>\n") {
		t.Fatalf("-V work --range: exit %d:\n%s", code, out)
	}
	if _, errs, code := runBin(t, "-x", app, "-D", "work+37 p"); code != 0 {
		t.Errorf("-D 'work+37 p' inside the listed range: exit %d: %s", code, errs)
	}
	if _, errs, code := runBin(t, "-x", app, "-D", "work+53 p"); code == 0 || !strings.Contains(errs, "DW_OP_entry_value") {
		t.Errorf("-D 'work+53 p' past the listed range: exit %d: %s", code, errs)
	}
}

// TestInterruptedWording: a run a signal ends says nothing was printed
// only when nothing was; after some output (the verdicts of --diff, the
// definitions of the specs before) it says that output is incomplete.
// It used to say "nothing was printed or saved" under printed verdicts.
func TestInterruptedWording(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		err     error
		printed bool
		want    string
	}{
		{context.Canceled, false, "interrupted: nothing was printed or saved"},
		{context.Canceled, true, "interrupted: the output above is incomplete, and nothing was saved"},
		{fmt.Errorf("reading: %w", context.Canceled), true, "interrupted: the output above is incomplete, and nothing was saved"},
		{errors.New("other"), true, "other"},
	} {
		if got := interrupted(ctx, c.err, c.printed); got.Error() != c.want {
			t.Errorf("interrupted(%v, printed %v) = %q, want %q", c.err, c.printed, got, c.want)
		}
	}
}

// TestMessageCompressBound: a module that expands past the bound set
// against decompression bombs is not called corrupt: the message names
// the file and the bound, and says how to go past it; exit 4. It said
// "corrupt compressed file" of a valid, very compressible module.
func TestMessageCompressBound(t *testing.T) {
	tiny, err := os.ReadFile("../../probegen/testdata/tiny/tiny-gcc-O0-dwarf5")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "big.ko.zst")
	os.WriteFile(p, dwarftest.Compress(t, "zst", append(tiny, make([]byte, 64<<20)...)), 0o644)
	_, _, err = dw("-m", p, "-D", "main")
	msg := oneLine(err.Error())
	if exitCode(err) != exitInput || strings.Contains(msg, "corrupt") || !strings.HasPrefix(msg, p+": zstd-compressed file") ||
		!strings.Contains(msg, "expands past dwprobe's bound for compressed files, 16777216 bytes") ||
		!strings.HasSuffix(msg, "decompress it (zstd -d "+p+") and give the uncompressed file, which has no such bound") {
		t.Errorf("exit %d: %s", exitCode(err), msg)
	}
}

// TestMessageNoDebuginfoCovers: -V at a function only the symbol table
// knows says so once; it said "no debuginfo covers it not found".
func TestMessageNoDebuginfoCovers(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	_, _, err := dw("-x", app, "-V", "_start")
	if want := "failed to find the address of _start: no debuginfo covers it"; err == nil || err.Error() != want || exitCode(err) != exitUnresolved {
		t.Errorf("-V _start: %v (exit %d), want %q (exit %d)", err, exitCode(err), want, exitUnresolved)
	}
}
