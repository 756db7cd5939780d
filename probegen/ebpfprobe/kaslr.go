package ebpfprobe

import (
	"fmt"
	"io"
	"os"

	"github.com/dwprobe/dwprobe/dwarfres/elfsym"
	"github.com/dwprobe/dwprobe/probegen/answer"
)

// readsKernelGlobal reports whether a point of the kernel itself (not a
// module's, not a uprobe) reads a global at its address.
func readsKernelGlobal(probes []answer.Probe) bool {
	for _, p := range probes {
		if p.User || p.Attach.Module != "" {
			continue
		}
		for _, a := range p.Args {
			if a.Loc.Kind == answer.LocAddress && !a.Loc.FileOffset {
				return true
			}
		}
	}
	return false
}

// RunningKernelOffset is KernelOffset against the running kernel's
// /proc/kallsyms (which shows addresses to root, or with CAP_SYSLOG where
// kptr_restrict is 1).
func RunningKernelOffset(probes []answer.Probe) (int64, error) {
	f, err := os.Open(elfsym.KallsymsPath)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return KernelOffset(probes, f)
}

// KernelOffset returns the KASLR offset of the kernel whose kallsyms
// listing is r, measured at a point of probes in the kernel itself: where
// the kernel put the point's symbol, plus its offset, minus the point's
// link-time address (answer.Probe.Addr). The symbol a kprobe is written
// at is unique in the kernel's symbols (or "_text"), so the first kernel
// symbol of that name is it. Errors wrap ErrNoAnchor (no point of the
// kernel itself, or its symbol not in r) or ErrHiddenAddresses (r lists
// addresses as 0: kptr_restrict).
func KernelOffset(probes []answer.Probe, r io.Reader) (int64, error) {
	var anchor *answer.Probe
	for i, p := range probes {
		if !p.User && p.Attach.Module == "" && p.Attach.Symbol != "" && p.Addr != 0 {
			anchor = &probes[i]
			break
		}
	}
	if anchor == nil {
		return 0, fmt.Errorf("no point of the kernel itself among %d: %w", len(probes), ErrNoAnchor)
	}
	var at uint64
	found := false
	err := elfsym.ReadKallsyms(r, func(k elfsym.Kallsym) bool {
		if k.Module == "" && k.Name == anchor.Attach.Symbol {
			at, found = k.Addr, true
		}
		return !found
	})
	switch {
	case err != nil:
		return 0, err
	case !found:
		return 0, fmt.Errorf("%s is not in the running kernel's symbols: %w", anchor.Attach.Symbol, ErrNoAnchor)
	case at == 0:
		return 0, ErrHiddenAddresses
	}
	return int64(at + anchor.Attach.Offset - anchor.Addr), nil
}
