package ebpfprobe

import (
	"errors"
	"testing"

	"github.com/cilium/ebpf/link"

	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/tracefs"
)

func TestUprobeOf(t *testing.T) {
	for _, c := range []struct {
		name string
		p    answer.Probe
		want Uprobe
		err  error
	}{
		{"a line: the file offset, not the address",
			answer.Probe{Kind: answer.ProbeLine, User: true, Attach: answer.Attach{Binary: "/bin/app", FileOffset: 0x1168}, Addr: 0x401168, ELFSymbol: "visit", ELFOffset: 47},
			Uprobe{Path: "/bin/app", Symbol: "visit", Options: link.UprobeOptions{Address: 0x1168}}, nil},
		{"a return",
			answer.Probe{Kind: answer.ProbeReturn, User: true, Attach: answer.Attach{Binary: "/bin/app", FileOffset: 0x1139}, ELFSymbol: "visit", Return: true},
			Uprobe{Path: "/bin/app", Symbol: "visit", Return: true, Options: link.UprobeOptions{Address: 0x1139}}, nil},
		{"an SDT marker: its semaphore",
			answer.Probe{Kind: answer.ProbeSDT, User: true, Attach: answer.Attach{Binary: "/bin/app", FileOffset: 0x1200, RefCtrOffset: 0x4010}},
			Uprobe{Path: "/bin/app", Symbol: "dwprobe", Options: link.UprobeOptions{Address: 0x1200, RefCtrOffset: 0x4010}}, nil},
		{"an absolute address in a binary",
			answer.Probe{Kind: answer.ProbeAddress, User: true, Attach: answer.Attach{Binary: "/bin/app", FileOffset: 0x1000}},
			Uprobe{Path: "/bin/app", Symbol: "dwprobe", Options: link.UprobeOptions{Address: 0x1000}}, nil},
		{"no file offset", answer.Probe{Kind: answer.ProbeEntry, User: true, Attach: answer.Attach{Binary: "/bin/app"}}, Uprobe{}, ErrNoFileOffset},
		{"a kernel point", answer.Probe{Kind: answer.ProbeEntry, Attach: answer.Attach{Symbol: "vfs_read"}}, Uprobe{}, ErrKind},
		{"a tracepoint", answer.Probe{Kind: answer.ProbeTracepoint, Function: "sched_switch"}, Uprobe{}, ErrTracepoint},
		{"no kind", answer.Probe{User: true, Attach: answer.Attach{FileOffset: 1}}, Uprobe{}, ErrKind},
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
		p    answer.Probe
		want Kprobe
		err  error
	}{
		{"a line", answer.Probe{Kind: answer.ProbeLine, Attach: answer.Attach{Symbol: "vfs_read", Offset: 114}, Addr: 0xffffffff81300072},
			Kprobe{Symbol: "vfs_read", Options: link.KprobeOptions{Offset: 114}}, nil},
		{"a module's function, by its name alone", answer.Probe{Kind: answer.ProbeEntry, Attach: answer.Attach{Module: "ext4", Symbol: "ext4_sync_fs"}},
			Kprobe{Symbol: "ext4_sync_fs"}, nil},
		{"a return", answer.Probe{Kind: answer.ProbeReturn, Attach: answer.Attach{Symbol: "vfs_read"}, Return: true},
			Kprobe{Symbol: "vfs_read", Return: true}, nil},
		{"an fprobe's return", answer.Probe{Kind: answer.ProbeReturn, EventKind: tracefs.FProbe, Attach: answer.Attach{Symbol: "vfs_read"}, Return: true},
			Kprobe{Symbol: "vfs_read", Return: true}, nil},
		{"a name that is not unique: _text and an offset", answer.Probe{Kind: answer.ProbeLine, Attach: answer.Attach{Symbol: "_text", Offset: 0x12345}},
			Kprobe{Symbol: "_text", Options: link.KprobeOptions{Offset: 0x12345}}, nil},
		{"an absolute address", answer.Probe{Kind: answer.ProbeAddress, Addr: 0xffffffff81000000}, Kprobe{}, ErrAbsoluteAddress},
		{"a tracepoint", answer.Probe{Kind: answer.ProbeTracepoint, Function: "sched_switch"}, Kprobe{}, ErrTracepoint},
		{"a user point", answer.Probe{Kind: answer.ProbeEntry, User: true, Attach: answer.Attach{FileOffset: 0x1000}}, Kprobe{}, ErrKind},
		{"an unknown kind", answer.Probe{Kind: 99, Attach: answer.Attach{Symbol: "f"}}, Kprobe{}, ErrKind},
	} {
		got, err := KprobeOf(c.p)
		if got != c.want || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("%s: %+v, %v\nwant %+v, %v", c.name, got, err, c.want, c.err)
		}
	}
}
