package probegen

import (
	"debug/elf"
	"fmt"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// ftraceSiteNote warns of a kprobe on riscv64's ftrace site: the
// patchable NOPs at a traceable function's symbol (arch.EntryNOPBytes),
// where every kretprobe goes (the kernel takes them at +0 only). riscv64
// has no KPROBES_ON_FTRACE in Linux 6.12 (arch/riscv/Kconfig selects no
// HAVE_KPROBES_ON_FTRACE), so check_ftrace_location refuses a kprobe at
// the site with EINVAL ("Failed to register probe event"): seen on the
// booted Debian 6.12 riscv64 kernel for ksys_read%return and
// do_sys_openat2+0. Entry probes from DWARF are past the NOPs already.
//
// A kernel built with CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS (Debian's 7.x:
// four NOPs before the symbol too, elfsym's FtraceLead) has its site at
// the symbol's +4 (ftrace_call_adjust: the recorded NOPs + 8 + the
// auipc's 4), and ftrace_location maps +0 there, not to +0: a kretprobe
// at +0 is taken (booted 7.2.11), and an entry probe's offset counts from
// past the NOPs, so no point of a spec lands on +4.
func ftraceSiteNote(t *dwarfres.File, p point) (string, bool) {
	if t.ELF.Machine != elf.EM_RISCV {
		return "", false
	}
	a, _ := arch.For(t.ELF.Machine)
	sym, ok := t.Symbols().At(p.addr)
	if !ok || p.addr >= sym.Start+uint64(a.EntryNOPBytes()) {
		return "", false
	}
	if nt, known := t.Notrace(p.addr); !known || nt {
		return "", false
	}
	if t.FtraceLead() != 0 {
		return "", false
	}
	what := "a kprobe"
	if p.ret {
		what = "a kretprobe (the kernel takes them at a function's +0 only)"
	}
	return fmt.Sprintf("%s is in %s's ftrace site (its first %d bytes, the NOPs ftrace patches): a riscv64 kernel without CONFIG_KPROBES_ON_FTRACE (Debian's 6.12) refuses %s there with \"Failed to register probe event\"; an entry probe past them (%s+%d) is taken",
		p.at.Place(), sym.Name, a.EntryNOPBytes(), what, sym.Name, a.EntryNOPBytes()), true
}
