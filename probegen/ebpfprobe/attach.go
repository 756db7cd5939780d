package ebpfprobe

import (
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/dwprobe/dwprobe/probegen/answer"
)

// Uprobe is where cilium/ebpf attaches a user probe point:
// link.OpenExecutable(Path), then Executable.Uprobe(Symbol, prog,
// &Options), or Uretprobe when Return.
type Uprobe struct {
	Path string
	// Symbol only names the event cilium/ebpf creates if it falls back
	// to tracefs; Options.Address places the probe.
	Symbol  string
	Options link.UprobeOptions
	Return  bool
}

// Kprobe is where cilium/ebpf attaches a kernel probe point:
// link.Kprobe(Symbol, prog, &Options), or link.Kretprobe when Return.
type Kprobe struct {
	Symbol  string
	Options link.KprobeOptions
	Return  bool
}

// UprobeOf returns the uprobe of user probe point p. cilium/ebpf takes
// UprobeOptions.Address as the offset in the file, as the kernel's uprobe
// does (link/uprobe.go: Executable.address returns it as it is, and it is
// what perf_event_open's probe_offset gets), so it is p.Attach.FileOffset, not the
// link-time address. An SDT marker's semaphore becomes RefCtrOffset.
// Errors: ErrKind for a kernel point, a tracepoint or an unknown kind;
// ErrNoFileOffset.
func UprobeOf(p answer.Probe) (Uprobe, error) {
	if err := attachable(p); err != nil {
		return Uprobe{}, err
	}
	if !p.User {
		return Uprobe{}, fmt.Errorf("kernel %s probe as a uprobe: %w", p.Kind, ErrKind)
	}
	if p.Attach.FileOffset == 0 {
		// Address 0 would make cilium/ebpf look the symbol up instead.
		return Uprobe{}, fmt.Errorf("%s probe in %s: %w", p.Kind, p.Attach.Binary, ErrNoFileOffset)
	}
	sym := p.ELFSymbol
	if sym == "" {
		sym = "dwprobe"
	}
	return Uprobe{Path: p.Attach.Binary, Symbol: sym, Return: p.Return,
		Options: link.UprobeOptions{Address: p.Attach.FileOffset, RefCtrOffset: p.Attach.RefCtrOffset}}, nil
}

// KprobeOf returns the kprobe of kernel probe point p: its symbol and the
// offset in it (p.Attach; for an absolute address, the ELF symbol covering
// it). A module's symbol is given without the module's name
// (link.Kprobe refuses "MOD:SYM"); the kernel finds module symbols by name
// too. Errors: ErrKind for a user point or an unknown kind,
// ErrTracepoint, ErrAbsoluteAddress.
func KprobeOf(p answer.Probe) (Kprobe, error) {
	if err := attachable(p); err != nil {
		return Kprobe{}, err
	}
	if p.User {
		return Kprobe{}, fmt.Errorf("user %s probe as a kprobe: %w", p.Kind, ErrKind)
	}
	sym, off := p.Attach.Symbol, p.Attach.Offset
	if sym == "" {
		// An absolute address: the same place from the symbol covering it.
		sym, off = p.ELFSymbol, p.ELFOffset
	}
	if sym == "" {
		return Kprobe{}, fmt.Errorf("%s probe at %#x: %w", p.Kind, p.Addr, ErrAbsoluteAddress)
	}
	return Kprobe{Symbol: sym, Return: p.Return, Options: link.KprobeOptions{Offset: off}}, nil
}

// attachable refuses the kinds no link attaches at an address.
func attachable(p answer.Probe) error {
	switch p.Kind {
	case answer.ProbeEntry, answer.ProbeLine, answer.ProbeOffset, answer.ProbeReturn, answer.ProbeSDT, answer.ProbeAddress:
		return nil
	case answer.ProbeTracepoint:
		return fmt.Errorf("%s: %w", p.Function, ErrTracepoint)
	}
	return fmt.Errorf("%s: %w", p.Kind, ErrKind)
}

// Attach attaches prog (of type ebpf.Kprobe) at p: a uprobe or uretprobe
// of p.Attach.Binary for a user point, a kprobe or kretprobe otherwise. Errors
// are UprobeOf's, KprobeOf's and cilium/ebpf's.
func Attach(p answer.Probe, prog *ebpf.Program) (link.Link, error) {
	return AttachCookie(p, prog, 0)
}

// AttachCookie is Attach with a cookie the program reads with
// bpf_get_attach_cookie (Linux 5.15): which of several points it runs at.
func AttachCookie(p answer.Probe, prog *ebpf.Program, cookie uint64) (link.Link, error) {
	return attach(p, prog, cookie, 0)
}

// attach is AttachCookie, a uprobe only for process pid when not 0.
func attach(p answer.Probe, prog *ebpf.Program, cookie uint64, pid int) (link.Link, error) {
	if p.User {
		u, err := UprobeOf(p)
		if err != nil {
			return nil, err
		}
		ex, err := link.OpenExecutable(u.Path)
		if err != nil {
			return nil, err
		}
		u.Options.Cookie, u.Options.PID = cookie, pid
		if u.Return {
			return ex.Uretprobe(u.Symbol, prog, &u.Options)
		}
		return ex.Uprobe(u.Symbol, prog, &u.Options)
	}
	k, err := KprobeOf(p)
	if err != nil {
		return nil, err
	}
	k.Options.Cookie = cookie
	if k.Return {
		return link.Kretprobe(k.Symbol, prog, &k.Options)
	}
	return link.Kprobe(k.Symbol, prog, &k.Options)
}
