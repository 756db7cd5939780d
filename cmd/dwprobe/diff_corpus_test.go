package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// diffCorpusSample: -D specs of the conformance list and what --diff
// says of them from the 6.1 to the 6.12 vmlinux (both Debian's, with
// their sources). Each suggestion was checked by reading both sources.
var diffCorpusSample = []struct{ spec, change, detail string }{
	{"vfs_read", "unchanged", ""},
	{"do_filp_open nd.depth nd.flags nd.path.dentry", "unchanged", ""},
	{"vfs_read:12 file", "args", "file: %bp:x64 -> %r12:x64 (location)"},
	{"do_sys_openat2:16 op.lookup_flags", "args", "lookup_flags: +20(%sp):s32 -> +28(%sp):s32 (location)"},
	{"vfs_read init_task.pid", "args", "pid: @init_task+2416:s32 -> @init_task+2432:s32 (offset)"},
	{"cap_capable cred", "args", `cred: %dx:x64 -> \0xdeade12d:x64 (unreadable) at cap_capable (inlined into cap_capset)`},
	{"pci_enable_device", "points", "- pci_enable_device (inlined into pcim_enable_device)"},
	{"fs/read_write.c:462", "moved", "suggest: fs/read_write.c:561"},
	{"huge_node:3", "moved", "suggest: huge_node:4"},
	{"__alloc_pages", "broken", "no longer resolves"}, // __alloc_pages_noprof in 6.12
	{"dput:3", "broken", "suggest: dput:4"},
	{"fs/read_write.c:470 file count ret", "broken", "suggest: fs/read_write.c:569 file count ret"},
	{"ksys_read+37", "broken", "suggest: ksys_read:2"},
	{"nosuchfunc", "not-in-old", ""},
}

// TestDiffCorpus612: --diff of a sample of the conformance specs from
// the 6.1 vmlinux to the 6.12 one classifies each as recorded.
func TestDiffCorpus612(t *testing.T) {
	old := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	oldSrc := dwarftest.NeedCorpus(t, "linux")
	new := dwarftest.NeedCorpus(t, "6.12/amd64/vmlinux")
	newSrc := dwarftest.NeedCorpus(t, "linux-6.12")
	var specs []string
	for _, s := range diffCorpusSample {
		specs = append(specs, s.spec)
	}
	file := filepath.Join(t.TempDir(), "specs.txt")
	if err := os.WriteFile(file, []byte(strings.Join(specs, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"-k", old, "-s", oldSrc, "--diff", new, "--diff-source", newSrc, "-D", "@" + file}, &out, &errb)
	if got := exitCode(err); got != exitUnresolved {
		t.Errorf("exit %d (%v), want %d", got, err, exitUnresolved)
	}
	blocks := diffBlocks(out.String())
	for _, s := range diffCorpusSample {
		b := blocks[s.spec]
		if !strings.HasPrefix(b, s.change+" ") || !strings.Contains(b, s.detail) {
			t.Errorf("%s: got %q, want %s with %q", s.spec, b, s.change, s.detail)
		}
	}
	if want := "14 probes: 1 not-in-old, 2 unchanged, 4 args, 1 points, 2 moved, 4 broken\n"; !strings.Contains(errb.String(), want) {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
}

// TestDiffModuleCorpus612: --diff between two builds of a module (Debian's
// nf_tables.ko of 6.1 and of 6.12) with -m.
func TestDiffModuleCorpus612(t *testing.T) {
	rel, err := os.ReadFile(dwarftest.NeedCorpus(t, "6.12/amd64/version"))
	if err != nil {
		t.Fatal(err)
	}
	old := debianModule(t, "amd64", "net/netfilter/nf_tables.ko")
	new := dwarftest.NeedCorpus(t, "6.12/amd64/dbg/usr/lib/debug/lib/modules/"+strings.TrimSpace(string(rel))+"/kernel/net/netfilter/nf_tables.ko")
	var out, errb bytes.Buffer
	err = run(context.Background(), []string{"-m", old, "--diff", new, "-D", "nft_do_chain", "-D", "nft_do_chain:20 pkt", "-D", "nft_do_chain:4"}, &out, &errb)
	// nft_do_chain:4 (6.1's nf_tables_core.c:232, 6.12's 255) shares
	// its address with the line before it in 6.12: it was "broken" there
	// until issue 31's rule probed a line where its own row is.
	if got := exitCode(err); got != exitChanged {
		t.Errorf("exit %d (%v), want %d", got, err, exitChanged)
	}
	want := "unchanged  nft_do_chain\n" +
		"args       nft_do_chain:20 pkt\n" +
		"           pkt: %r13:x64 -> %bp:x64 (location)\n" +
		"unchanged  nft_do_chain:4\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
