package probegen

import (
	"debug/elf"
	"fmt"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
)

// lastTextNote warns of a kprobe in the last function of an x86-64
// module's core text. Registering a kprobe, x86's can_optimize decodes the
// whole function around it, and the module's kallsyms gives its last
// function a size that runs to the end of the text's pages: past the code
// it decodes the zeroed padding as 2-byte instructions, and when the
// padding is odd the last one reads past the page and the kernel oopses.
// Seen on the 6.12 amd64 guest: cuse:cuse_process_init_reply.cold+0
// faulted in insn_get_modrm (kprobes-optimization=0 does not help; the
// decoding is done whenever a kprobe is registered).
func lastTextNote(t *dwarfres.File, p point) (string, bool) {
	if !t.IsModule() || t.ELF.Machine != elf.EM_X86_64 {
		return "", false
	}
	sym, ok := t.Symbols().At(p.addr)
	if !ok {
		return "", false
	}
	nt, known := t.Notrace(p.addr)
	switch {
	case known && nt:
		// The kernel refuses it first (within_notrace_func), as the
		// notrace note says: configfs_exit, last in configfs.ko.
		return "", false
	case known && p.addr-sym.Start <= 4 && !strings.Contains(sym.Name, ".cold"):
		// At the ftrace call site (after endbr64): an ftrace-based
		// kprobe, which is never optimized. (Notrace judges a .cold
		// part by its base name, as the kernel does; the part itself
		// has no call site.)
		return "", false
	}
	var last *elf.Section
	end := uint64(0)
	for _, s := range t.ELF.Sections {
		if s.Flags&(elf.SHF_ALLOC|elf.SHF_EXECINSTR) != elf.SHF_ALLOC|elf.SHF_EXECINSTR || strings.HasPrefix(s.Name, ".init") || s.Size == 0 {
			continue
		}
		if a := s.Addralign; a > 1 {
			end = (end + a - 1) &^ (a - 1)
		}
		end += s.Size
		last = s
	}
	const page = 4096
	pad := (end+page-1)&^(page-1) - end
	if last == nil || sym.Section != last.Name || sym.End != last.Addr+last.Size || pad%2 == 0 {
		return "", false
	}
	return fmt.Sprintf("%s (%#x) is in %s, the last function of the module's text: registering a kprobe there, x86's can_optimize decodes on into the %d bytes of zero padding that end the module's text pages and reads past them, which oopses the kernel (Linux 6.12, kprobes-optimization or not); probe another function", p.at.Place(), p.addr, sym.Name, pad), true
}
