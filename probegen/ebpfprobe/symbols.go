package ebpfprobe

import (
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/dwprobe/dwprobe/dwarfres/elfsym"
)

// KernelSymbols are a running kernel's symbols (its kallsyms listing),
// for printing an argument of type symbol as the kernel's trace prints
// it (%pS): SYMBOL+0xOFF/0xSIZE, " [MODULE]" after a module's, and the
// bare address (0x…) where no symbol holds it.
type KernelSymbols struct {
	syms []ksym // by address; of aliases, the first listed
	end  uint64 // _end: the kernel image's end
}

type ksym struct {
	addr   uint64
	name   string
	module string
}

// RunningKernelSymbols reads the running kernel's /proc/kallsyms (which
// shows addresses to root, or with CAP_SYSLOG where kptr_restrict is 1).
func RunningKernelSymbols() (*KernelSymbols, error) {
	f, err := os.Open(elfsym.KallsymsPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadKernelSymbols(f)
}

// ReadKernelSymbols reads a kallsyms listing. The error wraps
// ErrHiddenAddresses when it lists every address as 0.
func ReadKernelSymbols(r io.Reader) (*KernelSymbols, error) {
	k := &KernelSymbols{}
	var all []ksym
	text := uint64(0)
	err := elfsym.ReadKallsyms(r, func(s elfsym.Kallsym) bool {
		if s.Addr != 0 {
			all = append(all, ksym{s.Addr, s.Name, s.Module})
		}
		switch {
		case s.Module != "":
		case s.Name == "_text":
			text = s.Addr
		case s.Name == "_end":
			k.end = s.Addr
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	// The kernel's own symbols below its image (per-CPU offsets, absolute
	// values) hold no address %pS names (is_ksym_addr).
	for _, s := range all {
		if s.module != "" || s.addr >= text {
			k.syms = append(k.syms, s)
		}
	}
	if len(k.syms) == 0 {
		return nil, ErrHiddenAddresses
	}
	// Stable: of symbols at one address the kernel names the first of
	// its table (get_symbol_pos), which the listing shows in order.
	sort.SliceStable(k.syms, func(i, j int) bool { return k.syms[i].addr < k.syms[j].addr })
	return k, nil
}

// Format prints addr as the kernel's %pS does: the symbol holding it,
// with the offset into it and its size (up to the next symbol at a
// higher address of the kernel, or of the same module), or 0xADDR.
func (k *KernelSymbols) Format(addr uint64) string {
	i := sort.Search(len(k.syms), func(i int) bool { return k.syms[i].addr > addr }) - 1
	if i < 0 {
		return fmt.Sprintf("%#x", addr)
	}
	s := k.syms[i]
	for i > 0 && k.syms[i-1].addr == s.addr {
		i--
		s = k.syms[i]
	}
	next := uint64(0)
	for j := i + 1; j < len(k.syms); j++ {
		if k.syms[j].addr > s.addr && k.syms[j].module == s.module {
			next = k.syms[j].addr
			break
		}
	}
	if s.module == "" && (k.end != 0 && addr >= k.end) || next == 0 {
		return fmt.Sprintf("%#x", addr)
	}
	out := fmt.Sprintf("%s+%#x/%#x", s.name, addr-s.addr, next-s.addr)
	if s.module != "" {
		out += " [" + s.module + "]"
	}
	return out
}
