package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen/grammar"
)

// TestVarsColdLabels: line 26 of print_cpu (P(nr_running), a SEQ_printf
// whose m == NULL branch goes on in print_cpu.cold without coming back)
// runs in print_cpu and, on its own, in its print_cpu.cold part. (Line 8's
// .cold rows are the same run as its +55: issue 31's one-run rule.) -V labels the points as perf 6.1 and 6.12 do
// (convert_to_trace_point: print_cpu has only DW_AT_ranges, so the symbol
// covering the address names it), as -D writes them, not from the first
// range (print_cpu+11802835). -D notes no notrace: the kernel checks a
// suffixed symbol's base name, and print_cpu is traceable.
func TestVarsColdLabels(t *testing.T) {
	for _, c := range []struct{ vmlinux, cold string }{
		{"amd64/vmlinux", "print_cpu.cold+298"},
		{"6.12/amd64/vmlinux", "print_cpu.cold+300"},
	} {
		t.Run(c.vmlinux, func(t *testing.T) {
			vml := dwarftest.NeedCorpus(t, c.vmlinux)
			var out, errb bytes.Buffer
			spec := "print_cpu@kernel/sched/debug.c:26"
			if err := run(context.Background(), []string{"-k", vml, "-V", spec}, &out, &errb); err != nil {
				t.Fatalf("-V: %v\n%s", err, errb.String())
			}
			var labels []string
			for _, l := range strings.Split(out.String(), "\n") {
				if l, ok := strings.CutPrefix(l, "\t@<"); ok {
					labels = append(labels, strings.TrimSuffix(l, ">"))
				}
			}
			if want := "print_cpu+110 " + c.cold; strings.Join(labels, " ") != want {
				t.Errorf("-V labels %q, want %q", labels, want)
			}
			out.Reset()
			errb.Reset()
			if err := run(context.Background(), []string{"-k", vml, "-D", spec}, &out, &errb); err != nil {
				t.Fatalf("-D: %v", err)
			}
			for _, cold := range strings.Fields(c.cold) {
				if !strings.Contains(out.String(), " "+cold+"\n") {
					t.Errorf("-D does not write %s:\n%s", cold, out.String())
				}
			}
			if strings.Contains(errb.String(), "notrace") {
				t.Errorf("-D notes notrace:\n%s", errb.String())
			}
		})
	}
}

// TestColdPartSymbol: a spec naming a .cold part probes that symbol plus
// the offset given, in its own code. cuse.ko's
// cuse_process_init_reply.cold starts .text.unlikely, right where
// .exit.text's line sequence ends: mapping the symbol to a source line, as
// perf does, probed cuse_exit+28 (perf 6.12: .cold+59, mid-instruction)
// and dropped the offset. On the vmlinux, do_exit.cold's line also has
// code in abort(), which perf probes too.
func TestColdPartSymbol(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "6.12/amd64/vmlinux")
	ver, err := os.ReadFile(dwarftest.NeedCorpus(t, "6.12/amd64/version"))
	if err != nil {
		t.Fatal(err)
	}
	cuse := dwarftest.NeedCorpus(t, filepath.Join("6.12/amd64/dbg/usr/lib/debug/lib/modules", strings.TrimSpace(string(ver)), "kernel/fs/fuse/cuse.ko"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-m", cuse, "-D", "cuse_process_init_reply.cold"}, "p:probe/cuse_process_init_reply cuse:cuse_process_init_reply.cold+0"},
		{[]string{"-m", cuse, "-D", "cuse_process_init_reply.cold+7"}, "p:probe/cuse_process_init_reply cuse:cuse_process_init_reply.cold+7"},
		{[]string{"-k", vml, "-D", "do_exit.cold"}, "p:probe/do_exit do_exit.cold+0"},
		{[]string{"-k", vml, "-D", "x86_pmu_add.cold"}, "p:probe/x86_pmu_add x86_pmu_add.cold+0"},
	} {
		if got := strings.Join(dwprobeDefs(t, c.args...), "\n"); got != c.want {
			t.Errorf("dwprobe %q:\n%s\nwant %s", c.args, got, c.want)
		}
	}
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"-m", cuse, "-V", "cuse_process_init_reply.cold"}, &out, &errb); err != nil {
		t.Fatalf("-V: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "\t@<cuse_process_init_reply.cold+0>\n") {
		t.Errorf("-V cuse_process_init_reply.cold:\n%s", out.String())
	}
	for _, spec := range []string{"cuse_process_init_reply.cold+8", "cuse_process_init_reply.cold+93"} {
		if err := run(context.Background(), []string{"-m", cuse, "-D", spec}, &out, &errb); err == nil {
			t.Errorf("-D %s accepted; want refused (mid-instruction, past the end)", spec)
		}
	}
}

// TestGlobalNotMappingSymbol: arm64 6.12's static empty_fops is the symbol
// empty_fops.0, at the address of a $d mapping symbol; a fetcharg names
// the object (@empty_fops.0, which kallsyms lists), never $d. perf 6.12
// writes @empty_fops, which kallsyms does not list either.
func TestGlobalNotMappingSymbol(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "6.12/arm64/vmlinux")
	got := strings.Join(dwprobeDefs(t, "-k", vml, "-D", "do_dentry_open empty_fops.owner"), "\n")
	if want := "p:probe/do_dentry_open do_dentry_open+0 owner=@empty_fops.0+0:x64"; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// TestLastModuleTextNote: a kprobe in the last function of an x86-64
// module's text is noted when the zero padding to the end of the text's
// pages is odd: registering it oopsed the 6.12 amd64 guest (can_optimize
// decodes the padding and reads past the page). 6.12's cuse.ko ends its
// text 1203 bytes before a page end; 6.1's, 1572 (even: no fault).
func TestLastModuleTextNote(t *testing.T) {
	mod := func(kernel, arch string) string {
		rel := dwarftest.CorpusRelease(t, kernel+arch)
		return dwarftest.NeedCorpus(t, filepath.Join(kernel+arch, "dbg/usr/lib/debug/lib/modules", rel, "kernel/fs/fuse/cuse.ko"))
	}
	for _, c := range []struct {
		mod, spec string
		note      bool
	}{
		{mod("6.12/", "amd64"), "cuse_process_init_reply.cold", true},
		{mod("6.12/", "amd64"), "cuse_process_init_reply.cold+7", true},
		{mod("6.12/", "amd64"), "cuse_process_init_reply", false},
		{mod("", "amd64"), "cuse_process_init_reply.cold", false},
		{mod("6.12/", "arm64"), "cuse_send_init", false},
		// Last in configfs.ko's text, odd padding, but notrace: the
		// kernel refuses it before registering (TestQEMULastTextEven61).
		{strings.Replace(mod("6.12/", "amd64"), "fuse/cuse.ko", "configfs/configfs.ko", 1), "configfs_exit", false},
	} {
		var out, errb bytes.Buffer
		if err := run(context.Background(), []string{"-m", c.mod, "-D", c.spec}, &out, &errb); err != nil {
			t.Fatalf("%s: %v\n%s", c.spec, err, errb.String())
		}
		if got := strings.Contains(errb.String(), "the last function of the module's text"); got != c.note {
			t.Errorf("%s -D %s: noted %v, want %v:\n%s", c.mod, c.spec, got, c.note, errb.String())
		}
		if !c.note {
			continue
		}
		// -a refuses it before tracefs is even looked for: an oops is
		// worse than any answer.
		errb.Reset()
		err := run(context.Background(), []string{"-m", c.mod, "-a", c.spec}, &out, &errb)
		if !errors.Is(err, grammar.ErrNotSupported) || !strings.Contains(err.Error(), "not added, nothing was") {
			t.Errorf("%s -a %s: %v, want the probe refused", c.mod, c.spec, err)
		}
	}
}
