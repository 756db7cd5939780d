package ebpfprobe

import (
	"errors"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/probegen/answer"
)

func TestKernelOffset(t *testing.T) {
	const kallsyms = "ffffffffa0000000 T _text\n" +
		"ffffffffa0312340 T vfs_read\n" +
		"ffffffffc0a01000 t vfs_read\t[overlay]\n"
	vfsRead := answer.Probe{Attach: answer.Attach{Symbol: "vfs_read", Offset: 4}, Addr: 0xffffffff81312344}
	for _, c := range []struct {
		name     string
		probes   []answer.Probe
		kallsyms string
		want     int64
		err      error
	}{
		{"measured at the first kernel point", []answer.Probe{vfsRead}, kallsyms, 0x1f000000, nil},
		{"a point at _text+N", []answer.Probe{{Attach: answer.Attach{Symbol: "_text", Offset: 0x312344}, Addr: 0xffffffff81312344}}, kallsyms, 0x1f000000, nil},
		{"nokaslr", []answer.Probe{{Attach: answer.Attach{Symbol: "vfs_read"}, Addr: 0xffffffffa0312340}}, kallsyms, 0, nil},
		{"user and module points are passed over", []answer.Probe{{User: true, Attach: answer.Attach{Symbol: "main"}, Addr: 0x1139}, {Attach: answer.Attach{Module: "overlay", Symbol: "ovl_lookup"}, Addr: 0x10}, vfsRead}, kallsyms, 0x1f000000, nil},
		{"only a module's points", []answer.Probe{{Attach: answer.Attach{Module: "overlay", Symbol: "vfs_read"}, Addr: 0x10}}, kallsyms, 0, ErrNoAnchor},
		{"a symbol the running kernel lacks", []answer.Probe{{Attach: answer.Attach{Symbol: "do_file_open"}, Addr: 0xffffffff81000000}}, kallsyms, 0, ErrNoAnchor},
		{"kptr_restrict", []answer.Probe{vfsRead}, "0000000000000000 T vfs_read\n", 0, ErrHiddenAddresses},
	} {
		got, err := KernelOffset(c.probes, strings.NewReader(c.kallsyms))
		if !errors.Is(err, c.err) || got != c.want {
			t.Errorf("%s: %#x, %v; want %#x, %v", c.name, got, err, c.want, c.err)
		}
	}
}

func TestReadsKernelGlobal(t *testing.T) {
	global := answer.ArgRead{Loc: answer.Location{Kind: answer.LocAddress, Symbol: "jiffies"}}
	pie := answer.ArgRead{Loc: answer.Location{Kind: answer.LocAddress, FileOffset: true}}
	for _, c := range []struct {
		name   string
		probes []answer.Probe
		want   bool
	}{
		{"a kernel global", []answer.Probe{{Args: []answer.ArgRead{global}}}, true},
		{"a user binary's global", []answer.Probe{{User: true, Args: []answer.ArgRead{global, pie}}}, false},
		{"a module's global", []answer.Probe{{Attach: answer.Attach{Module: "overlay"}, Args: []answer.ArgRead{global}}}, false},
		{"registers only", []answer.Probe{{Args: []answer.ArgRead{{Loc: reg("di")}}}}, false},
	} {
		if got := readsKernelGlobal(c.probes); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
