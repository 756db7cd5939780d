package ebpfprobe

import (
	"errors"
	"testing"

	"github.com/cilium/ebpf/link"

	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/tracefs"
)

func TestUprobeOf(t *testing.T) {
	for _, c := range []struct {
		name string
		p    probegen.Probe
		want Uprobe
		err  error
	}{
		{"a line: the file offset, not the address",
			probegen.Probe{Kind: probegen.ProbeLine, User: true, Attach: probegen.Attach{Binary: "/bin/app", FileOffset: 0x1168}, Addr: 0x401168, ELFSymbol: "visit", ELFOffset: 47},
			Uprobe{Path: "/bin/app", Symbol: "visit", Options: link.UprobeOptions{Address: 0x1168}}, nil},
		{"a return",
			probegen.Probe{Kind: probegen.ProbeReturn, User: true, Attach: probegen.Attach{Binary: "/bin/app", FileOffset: 0x1139}, ELFSymbol: "visit", Return: true},
			Uprobe{Path: "/bin/app", Symbol: "visit", Return: true, Options: link.UprobeOptions{Address: 0x1139}}, nil},
		{"an SDT marker: its semaphore",
			probegen.Probe{Kind: probegen.ProbeSDT, User: true, Attach: probegen.Attach{Binary: "/bin/app", FileOffset: 0x1200, RefCtrOffset: 0x4010}},
			Uprobe{Path: "/bin/app", Symbol: "dwprobe", Options: link.UprobeOptions{Address: 0x1200, RefCtrOffset: 0x4010}}, nil},
		{"an absolute address in a binary",
			probegen.Probe{Kind: probegen.ProbeAddress, User: true, Attach: probegen.Attach{Binary: "/bin/app", FileOffset: 0x1000}},
			Uprobe{Path: "/bin/app", Symbol: "dwprobe", Options: link.UprobeOptions{Address: 0x1000}}, nil},
		{"no file offset", probegen.Probe{Kind: probegen.ProbeEntry, User: true, Attach: probegen.Attach{Binary: "/bin/app"}}, Uprobe{}, ErrNoFileOffset},
		{"a kernel point", probegen.Probe{Kind: probegen.ProbeEntry, Attach: probegen.Attach{Symbol: "vfs_read"}}, Uprobe{}, ErrKind},
		{"a tracepoint", probegen.Probe{Kind: probegen.ProbeTracepoint, Function: "sched_switch"}, Uprobe{}, ErrTracepoint},
		{"no kind", probegen.Probe{User: true, Attach: probegen.Attach{FileOffset: 1}}, Uprobe{}, ErrKind},
	} {
		got, err := UprobeOf(c.p)
		if got != c.want || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("%s: %+v, %v\nwant %+v, %v", c.name, got, err, c.want, c.err)
		}
	}
}

func TestKprobeOf(t *testing.T) {
	for _, c := range []struct {
		name string
		p    probegen.Probe
		want Kprobe
		err  error
	}{
		{"a line", probegen.Probe{Kind: probegen.ProbeLine, Attach: probegen.Attach{Symbol: "vfs_read", Offset: 114}, Addr: 0xffffffff81300072},
			Kprobe{Symbol: "vfs_read", Options: link.KprobeOptions{Offset: 114}}, nil},
		{"a module's function, by its name alone", probegen.Probe{Kind: probegen.ProbeEntry, Attach: probegen.Attach{Module: "ext4", Symbol: "ext4_sync_fs"}},
			Kprobe{Symbol: "ext4_sync_fs"}, nil},
		{"a return", probegen.Probe{Kind: probegen.ProbeReturn, Attach: probegen.Attach{Symbol: "vfs_read"}, Return: true},
			Kprobe{Symbol: "vfs_read", Return: true}, nil},
		{"an fprobe's return", probegen.Probe{Kind: probegen.ProbeReturn, EventKind: tracefs.FProbe, Attach: probegen.Attach{Symbol: "vfs_read"}, Return: true},
			Kprobe{Symbol: "vfs_read", Return: true}, nil},
		{"a name that is not unique: _text and an offset", probegen.Probe{Kind: probegen.ProbeLine, Attach: probegen.Attach{Symbol: "_text", Offset: 0x12345}},
			Kprobe{Symbol: "_text", Options: link.KprobeOptions{Offset: 0x12345}}, nil},
		{"an absolute address", probegen.Probe{Kind: probegen.ProbeAddress, Addr: 0xffffffff81000000}, Kprobe{}, ErrAbsoluteAddress},
		{"a tracepoint", probegen.Probe{Kind: probegen.ProbeTracepoint, Function: "sched_switch"}, Kprobe{}, ErrTracepoint},
		{"a user point", probegen.Probe{Kind: probegen.ProbeEntry, User: true, Attach: probegen.Attach{FileOffset: 0x1000}}, Kprobe{}, ErrKind},
		{"an unknown kind", probegen.Probe{Kind: 99, Attach: probegen.Attach{Symbol: "f"}}, Kprobe{}, ErrKind},
	} {
		got, err := KprobeOf(c.p)
		if got != c.want || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("%s: %+v, %v\nwant %+v, %v", c.name, got, err, c.want, c.err)
		}
	}
}
