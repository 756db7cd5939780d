package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/grammar"
)

// TestLineRunsWhereItStarts: a line is probed where its own code starts
// in every copy of its function (issue 31).
//   - n_tty_receive_buf_common (6.1): the lines after the inlined
//     __receive_buf were cut off by a declaration GCC hoisted to the top
//     level (__compiletime_assert_326 at n_tty.c:1715); line 45 is +572
//     as perf probes it.
//   - try_to_wake_up:39 (6.12): its rows sit at the entry of the inlined
//     ttwu_state_match, declared in the same file.
//   - cap_capable:3 (6.12): the line's row shares each inlined copy's
//     entry with line 0; every copy is probed, not the out-of-line one
//     only. vfs_setpos_cookie:3: all 5 copies.
//   - s_show:18, blk_mq_start_request:19, __schedule:15 (6.1): the
//     line's first row shares its address with another line's (perf
//     refuses them); the later point dwprobe took ran on a branch only
//     (toupper, REQ_INTEGRITY, HRTICK).
//   - ksys_read:11 (6.1): vfs_read is called on two paths, both probed.
//   - SRC:LINE is the same line as FUNC:RLN, at the same points.
func TestLineRunsWhereItStarts(t *testing.T) {
	cases := []struct {
		vmlinux, spec string
		want          []string // SYMBOL+OFFS, or the address's symbol and offset for a name not unique
	}{
		{"amd64/vmlinux", "n_tty_receive_buf_common:45", []string{"n_tty_receive_buf_common+572"}},
		{"6.12/amd64/vmlinux", "try_to_wake_up:39", []string{"try_to_wake_up+87"}},
		{"6.12/amd64/vmlinux", "cap_capable:3", []string{"cap_capable+9", "cap_vm_enough_memory+24", "cap_mmap_addr+40", "cap_task_prctl+503"}},
		{"amd64/vmlinux", "s_show@kernel/kallsyms.c:18", []string{"s_show+50"}},
		{"amd64/vmlinux", "blk_mq_start_request:19", []string{"blk_mq_start_request+68"}},
		// Two static branches' NOPs (HRTICK, HRTICK_DL) at +150 and
		// +155, which the kernel refuses probes on: +160, where their
		// blocks come back (runsOn).
		{"amd64/vmlinux", "__schedule:15", []string{"__schedule+160"}},
		{"amd64/vmlinux", "ksys_read:11", []string{"ksys_read+102", "ksys_read+167"}},
		{"amd64/vmlinux", "fs/read_write.c:613", []string{"ksys_read+102", "ksys_read+167"}},
		{"6.12/amd64/vmlinux", "kernel_write:9", []string{"kernel_write+114"}},
		// static_branch_unlikely(&egress_needed_key): after the NOP at
		// +377 (runsOn), not also its out-of-line block at +944
		// (staticBlockOf).
		{"amd64/vmlinux", "__dev_queue_xmit:26", []string{"__dev_queue_xmit+382"}},
		// One straight-line run, one point (ownRun): line 2, `return
		// call_int_hook(file_open, file)`, is the whole function; its
		// rows after each LSM's static call and at the shared exit
		// are reached only through the line's start (perf: 33).
		{"6.12/amd64/vmlinux", "security_file_open:2", []string{"security_file_open+9"}},
		// __set_current_state(TASK_RUNNING): after the tracepoint's
		// NOP (+152), and at its block (+306), which does not come
		// back but goes on with its own copy of the line (+313, not
		// a point of its own); not the next line's rows (+166, +322).
		{"7.3/amd64/vmlinux", "do_nanosleep:16", []string{"do_nanosleep+157", "do_nanosleep+306"}},
		// trace_sched_process_fork: after the NOP (+196), and in the
		// tracepoint's block where it leaves every way back there
		// (+364, after the CPU-online test), calling the tracepoint
		// and going on with its own copy of lines 53-55. Booted, +200
		// alone missed the 5 forks traced with the event on.
		{"arm64/vmlinux", "kernel_clone:51", []string{"kernel_clone+200", "kernel_clone+364"}},
	}
	for _, c := range cases {
		f := openIndexed(t, dwarftest.NeedCorpus(t, c.vmlinux))
		spec, err := grammar.ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		r, err := probegen.Resolve(f, spec, "", probegen.ResolveOptions{MaxProbes: 1024})
		if err != nil {
			t.Errorf("%s -D %s: %v", c.vmlinux, c.spec, err)
			continue
		}
		var got []string
		for _, p := range r.Probes {
			sym, off := p.ELFSymbol, p.ELFOffset
			if sym == "" {
				sym, off = p.Attach.Symbol, p.Attach.Offset
			}
			got = append(got, fmt.Sprintf("%s+%d", sym, off))
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s -D %s = %v, want %v", c.vmlinux, c.spec, got, c.want)
		}
	}
	f := openIndexed(t, dwarftest.NeedCorpus(t, "6.12/amd64/vmlinux"))
	spec, _ := grammar.ParseSpec("vfs_setpos_cookie:3")
	if r, err := probegen.Resolve(f, spec, "", probegen.ResolveOptions{}); err != nil || len(r.Probes) != 5 {
		t.Errorf("-D vfs_setpos_cookie:3: %v, want 5 points (%v)", r, err)
	}
}

// TestLineStaticBranchModule: a line holding a jump label is probed
// where its run goes on from the label's code, not also at its
// out-of-line block, which runs in the same run of the line only while
// the key is on: nft_do_chain:14 (`if
// (static_branch_unlikely(&nft_trace_enabled))`) of nf_tables starts at
// the label's NOP (6.1: +111), which the kernel refuses probes on, so it
// is probed after it (+116), where the block (+960) comes back. The
// module's __jump_table, relocated, names both.
func TestLineStaticBranchModule(t *testing.T) {
	for _, c := range []struct{ dir, want string }{
		{"amd64", "nf_tables:nft_do_chain+116"},
		{"6.12/amd64", "nf_tables:nft_do_chain+123"},
	} {
		ko := dwarftest.NeedCorpus(t, filepath.Join(c.dir, "dbg/usr/lib/debug/lib/modules", dwarftest.CorpusRelease(t, c.dir), "kernel/net/netfilter/nf_tables.ko"))
		out, errs, code := runBin(t, "-m", ko, "-D", "nft_do_chain:14")
		got := strings.Fields(strings.TrimSpace(out))
		if code != 0 || len(got) != 2 || got[1] != c.want {
			t.Errorf("%s -D nft_do_chain:14: exit %d\n%s%s\nwant one point, %s", c.dir, code, out, errs, c.want)
		}
	}
}

// TestLineHeaderRangeEveryUnit: -L on a header's range reads every unit
// naming the header, as -L FUNC and -D SRC:LINE do, not only the first
// (perf's rule): include/linux/fsnotify.h:383-400 of 6.12 lists
// fsnotify_access's 385 and 387 (inlined in other units than the first
// one with lines there) as the narrower 385-388 does, and each line it
// lists is one -D probes.
func TestLineHeaderRangeEveryUnit(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "6.12/amd64/vmlinux")
	lines := func(rng string) []string {
		out, errs, code := runBin(t, "-k", vml, "-L", "include/linux/fsnotify.h:"+rng)
		if code != 0 {
			t.Fatalf("-L include/linux/fsnotify.h:%s: exit %d: %s", rng, code, errs)
		}
		var ls []string
		for _, l := range strings.Split(out, "\n")[1:] {
			if f := strings.Fields(l); len(f) > 0 && f[0] != "" && strings.Trim(f[0], "0123456789") == "" {
				ls = append(ls, f[0])
			}
		}
		return ls
	}
	wide, narrow := lines("383-400"), lines("385-388")
	if strings.Join(narrow, " ") != "385 387" {
		t.Errorf("-L include/linux/fsnotify.h:385-388 lists %v, want 385 387", narrow)
	}
	for _, l := range narrow {
		if !slices.Contains(wide, l) {
			t.Errorf("-L include/linux/fsnotify.h:383-400 lists %v: not %s, which 385-388 lists", wide, l)
		}
	}
	for _, l := range wide {
		if _, errs, code := runBin(t, "-k", vml, "-D", "include/linux/fsnotify.h:"+l); code != 0 {
			t.Errorf("-L lists include/linux/fsnotify.h:%s, which -D refuses: %s", l, errs)
		}
	}
}

// TestSuggestionsResolve: a spec dwprobe suggests is resolved before it
// is offered, and a library user gets it typed (NoCodeError.Suggested:
// the line and how many points it resolved to). Where a variable cannot
// be read, the places offered are lines the probe resolves at, in the
// spec's function's terms: pt_scale:2's s (clang, inlined in scale_a)
// is readable at pt_scale:3, where it used to say scale_a:9, a line
// scale_a does not have (dwz.h's 13 counted from scale_a's declaration
// in dwz_a.c).
func TestSuggestionsResolve(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	for _, c := range []struct{ file, spec string }{
		{app, "item_score:1"},
		{app, "item_score:6"},
		{app, "app_util.c:60"},
		{vml, "vma_merge:50"},
		{vml, "vma_merge:1"},
		{vml, "vfs_read:3"},
	} {
		f := openIndexed(t, c.file)
		spec, err := grammar.ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		_, err = probegen.Resolve(f, spec, "", probegen.ResolveOptions{MaxProbes: 1024})
		var nc *probegen.NoCodeError
		if !errors.As(err, &nc) {
			t.Errorf("-D %s: %v, want a NoCodeError", c.spec, err)
			continue
		}
		if nc.Suggested == nil || nc.Suggested.Points == 0 {
			t.Errorf("-D %s: no line suggested (%v)", c.spec, err)
			continue
		}
		s2, err := grammar.ParseSpec(nc.Suggested.Spec)
		if err != nil {
			t.Fatal(err)
		}
		r, err := probegen.Resolve(f, s2, "", probegen.ResolveOptions{MaxProbes: 1024})
		if err != nil || len(r.Probes) != nc.Suggested.Points {
			t.Errorf("-D %s suggests %s (%d points), which resolves to %v, %v", c.spec, nc.Suggested.Spec, nc.Suggested.Points, r, err)
		}
	}
	dwzapp := fixture(t, "dwzapp-clang-O2-dwarf4")
	_, errs, _ := runBin(t, "-x", dwzapp, "-D", "pt_scale:2 s")
	if !strings.Contains(errs, "a probe can read it at pt_scale:3") {
		t.Errorf("-D 'pt_scale:2 s': %s\nwant it readable at pt_scale:3", errs)
	}
	if out, errs, code := runBin(t, "-x", dwzapp, "-D", "pt_scale:3 s"); code != 0 || !strings.Contains(out, "s=") {
		t.Errorf("-D 'pt_scale:3 s': exit %d\n%s%s", code, out, errs)
	}
}

// TestNearestBounded: --nearest looks within the line's function (for
// SRC:ALN the function of the file holding it) and never past the
// source's end, as SystemTap's .nearest and gdb do, and notes its choice
// once per spec, not once per point.
func TestNearestBounded(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	src := dwarftest.NeedCorpus(t, "linux")
	for _, c := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"--nearest", "-D", "vfs_read:200"}, "vfs_read's source ends before that line (the next function starts at vfs_read:31)"},
		{[]string{"--nearest", "-s", src, "-D", "fs/read_write.c:99999"}, "the source of"},
		{[]string{"--nearest", "-D", "fs/read_write.c:99999"}, "without its source, --nearest looks no further than its last line with code"},
		{[]string{"--nearest", "-D", "fs/read_write.c:3"}, "no function of fs/read_write.c holds that line"},
	} {
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"-k", vml}, c.args...), &out, &errb)
		if err == nil || !strings.Contains(err.Error(), c.wantErr) || strings.Contains(err.Error(), "--nearest probes") {
			t.Errorf("%v: error %v, want one mentioning %q (and no --nearest hint)", c.args, err, c.wantErr)
		}
	}
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"-k", vml, "--nearest", "-D", "vfs_setpos:5"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if n, p := strings.Count(errb.String(), "has no code: probed vfs_setpos:4"), strings.Count(out.String(), "\n"); n != 1 || p != 3 {
		t.Errorf("--nearest -D vfs_setpos:5: %d points, %d notes, want 3 points and one note:\n%s%s", p, n, out.String(), errb.String())
	}
}

// TestLineZeroAgrees: line 0 is the entry of the copies -D FUNC probes,
// -L --detail shows those points as -D writes them: update_load_avg
// (6.12), inlined into itself at +1138 (perf's redundant instance, which
// -D leaves out), has one; lru_gen_del_folio has six, two of them
// copies of lru_gen_del_folio.constprop.0, each named _text+OFFS as -D
// writes it.
func TestLineZeroAgrees(t *testing.T) {
	f := openIndexed(t, dwarftest.NeedCorpus(t, "6.12/amd64/vmlinux"))
	for fn, n := range map[string]int{"update_load_avg": 1, "lru_gen_del_folio": 6} {
		pts, err := detailPoints(f, lineFunc{"", fn, ""})
		if err != nil {
			t.Fatal(err)
		}
		spec, _ := grammar.ParseSpec(fn)
		r, err := probegen.Resolve(f, spec, "", probegen.ResolveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(pts[0]) != n {
			t.Errorf("-L %s --detail: line 0 has %d points, want %d", fn, len(pts[0]), n)
		}
		if b := pointAgreement(r, pts[0]); b != "" {
			t.Errorf("%s:0: %s", fn, b)
		}
	}
}

// TestLineCopyLeftOutNamed: a copy of the function with no code at the
// line is named, not dropped silently: cap_capable is inlined in
// cap_capset too (6.12), where the compiler folded it to a test of
// constants with no row of line 3.
func TestLineCopyLeftOutNamed(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "6.12/amd64/vmlinux")
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"-k", vml, "-D", "cap_capable:3"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if want := "'cap_capable:3': a copy of the function has no code at that line (the compiler folded it away or split it off there), so the probe cannot fire in it: the one inlined in cap_capset (cap_capset+9)"; !strings.Contains(errb.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, errb.String())
	}
}
