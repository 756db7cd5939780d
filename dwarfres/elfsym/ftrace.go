package elfsym

import (
	"debug/elf"
	"slices"
	"sort"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// ftraceTable locates the kernel's ftrace call-site table (__mcount_loc,
// between __start_mcount_loc and __stop_mcount_loc), or a module's
// (moduleFtraceTable), once; ok is false when the file has none.
func (im *Image) ftraceTable() (start, stop uint64, ok bool) {
	im.ftraceOnce.Do(func() {
		if im.obj.IsModule() {
			im.mcountStart, im.mcountStop, _ = im.moduleFtraceTable()
		} else {
			start, ok1 := im.SymbolAddr("__start_mcount_loc")
			stop, ok2 := im.SymbolAddr("__stop_mcount_loc")
			if ok1 && ok2 && stop > start && (stop-start)%8 == 0 && im.obj.ELF.Class == elf.ELFCLASS64 {
				im.mcountStart, im.mcountStop = start, stop
			}
		}
		if m := im.obj.ELF.Machine; im.mcountStop != 0 && (m == elf.EM_AARCH64 || m == elf.EM_RISCV) {
			im.ftraceLead = im.preEntrySites(im.mcountStart, im.mcountStop)
		}
	})
	return im.mcountStart, im.mcountStop, im.mcountStop != 0
}

// preEntryLead is how far before its function's symbol an arm64 kernel
// built with CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS (6.12's Debian kernel,
// -fpatchable-function-entry=4,2) records the function's ftrace site: at
// the first of the two NOPs placed before the symbol, which the kernel
// patches with the ops pointer (arch/arm64/kernel/ftrace.c,
// ftrace_call_adjust). Other layouts (6.1's =2, x86's __fentry__ call)
// record a site inside the function. riscv64 kernels with it (Debian's
// 7.x, -fpatchable-function-entry=8,4 with compressed NOPs) record the
// first of four two-byte NOPs before the symbol, 8 bytes too
// (arch/riscv/kernel/ftrace.c, ftrace_call_adjust: addr + 8 + 4); 6.12's
// (=4, no ops) records the symbol.
const preEntryLead = 8

// FtraceLead is how far before a function's symbol the kernel's ftrace
// table records its site: preEntryLead on arm64 and riscv64 kernels built
// with CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS, else 0.
func (im *Image) FtraceLead() uint64 {
	im.ftraceTable()
	return im.ftraceLead
}

// preEntrySites tells the layouts apart from the table's first sites:
// preEntryLead when more of them lie that far before a symbol's start
// than at one, else 0.
func (im *Image) preEntrySites(start, stop uint64) uint64 {
	before, at, n := 0, 0, 0
	im.eachFtraceSite(start, stop, func(a uint64) bool {
		if s, ok := im.Symbols().At(a + preEntryLead); ok && s.Start == a+preEntryLead {
			before++
		}
		if s, ok := im.Symbols().At(a); ok && s.Start == a {
			at++
		}
		n++
		return n < 32
	})
	if before > at {
		return preEntryLead
	}
	return 0
}

// hasFtraceSite reports whether some ftrace call site lies in [lo, hi):
// a scan of the table as the image stores it, or, for arm64 images that
// leave it zero and fill it at boot, of the R_AARCH64_RELATIVE relocations
// aimed at it, whose addends are the sites. known is false when neither
// names a site. A query asks about a function or two; a probe with many
// points (kmalloc's 1,810) about each, answered from the sites sorted once.
func (im *Image) hasFtraceSite(start, stop, lo, hi uint64) (found, known bool) {
	if sites, ok := im.ftraceSites.table(ftraceScans, func() []uint64 { return im.sortedFtraceSites(start, stop) }); ok {
		return ftraceSiteIn(sites, lo, hi)
	}
	return im.scanFtraceSites(start, stop, lo, hi)
}

// ftraceScans is how many functions hasFtraceSite asks about by scanning
// the vmlinux's 38,000 sites (about 0.3 ms) before it sorts them (0.7 ms).
const ftraceScans = 2

// scanFtraceSites is hasFtraceSite's answer from a scan of the table.
func (im *Image) scanFtraceSites(start, stop, lo, hi uint64) (found, known bool) {
	im.eachFtraceSite(start, stop, func(a uint64) bool {
		known = true
		found = a >= lo && a < hi
		return !found
	})
	return found, known
}

// ftraceSiteIn is hasFtraceSite's answer from the sorted sites.
func ftraceSiteIn(sites []uint64, lo, hi uint64) (found, known bool) {
	i := sort.Search(len(sites), func(i int) bool { return sites[i] >= lo })
	return i < len(sites) && sites[i] < hi, len(sites) > 0
}

// sortedFtraceSites is every ftrace call site, sorted.
func (im *Image) sortedFtraceSites(start, stop uint64) []uint64 {
	var sites []uint64
	im.eachFtraceSite(start, stop, func(a uint64) bool {
		sites = append(sites, a)
		return true
	})
	slices.Sort(sites)
	return sites
}

// eachFtraceSite calls fn with each ftrace call site of the table at
// [start, stop), while fn returns true: the table's non-zero entries, or,
// when it has none, the addends of the relocations aimed at it.
func (im *Image) eachFtraceSite(start, stop uint64, fn func(uint64) bool) {
	b, err := im.obj.Bytes(start, stop-start)
	if err != nil {
		return
	}
	any := false
	for i := 0; i+8 <= len(b); i += 8 {
		if a := im.obj.Order.Uint64(b[i:]); a != 0 {
			any = true
			if !fn(a) {
				return
			}
		}
	}
	if any {
		return
	}
	for _, s := range im.obj.ELF.Sections {
		if s.Type != elf.SHT_RELA || s.Info != 0 || s.Entsize != 24 {
			continue
		}
		data, err := im.obj.Section(s.Name)
		if err != nil {
			continue
		}
		for i := 0; i+24 <= len(data); i += 24 {
			if off := im.obj.Order.Uint64(data[i:]); off >= start && off < stop {
				if !fn(im.obj.Order.Uint64(data[i+16:])) {
					return
				}
			}
		}
	}
}

// Notrace reports whether a kernel built without
// CONFIG_KPROBE_EVENTS_ON_NOTRACE (Debian's) refuses kprobe events in the
// function containing addr ("Failed to register probe event"), as
// trace_kprobe.c's within_notrace_func decides (6.1 and 6.12 alike): the
// function has no ftrace call site (it is notrace, as out-of-line copies
// of kernel inline functions are), and, when its name has a suffix
// (print_cpu.cold, foo.isra.0), neither has the function of its base name.
// known is false when the image has no ftrace table or no symbol covers
// addr.
func (im *Image) Notrace(addr uint64) (notrace, known bool) {
	start, stop, ok := im.ftraceTable()
	sym, ok2 := im.Symbols().At(addr)
	if !ok || !ok2 {
		return false, false
	}
	found, known := im.hasFtraceSite(start, stop, im.siteFrom(sym.Start), sym.End)
	if found || !known {
		return false, known
	}
	if base, _, cut := strings.Cut(sym.Name, "."); cut {
		return !im.baseHasSite(start, stop, base), true
	}
	return true, true
}

// siteFrom is the lowest address a site of the function starting at
// addr can have: its start, or preEntryLead before it on arm64 kernels
// that record the NOPs placed before the function.
func (im *Image) siteFrom(addr uint64) uint64 {
	if addr < im.ftraceLead {
		return 0
	}
	return addr - im.ftraceLead
}

// baseHasSite reports whether the function named base has an ftrace
// site: of several so named, the one at the lowest address, which
// kallsyms_lookup_name (kprobe_lookup_name) returns in 6.1 and 6.12 alike
// (scripts/kallsyms.c sorts equal names by address). No such function is
// no site, as within_notrace_func has it.
func (im *Image) baseHasSite(start, stop uint64, base string) bool {
	syms := im.Symbols().Lookup(base)
	if len(syms) == 0 {
		return false
	}
	first := syms[0]
	for _, s := range syms[1:] {
		if s.Start < first.Start {
			first = s
		}
	}
	found, _ := im.hasFtraceSite(start, stop, im.siteFrom(first.Start), first.End)
	return found
}

// moduleFtraceTable is a module's ftrace call-site table, relocated in
// place, as [start, stop) addresses; ok is false when it has none.
func (im *Image) moduleFtraceTable() (start, stop uint64, ok bool) {
	for _, n := range elfobj.FtraceSections {
		s := im.obj.ELF.Section(n)
		if s == nil || s.Size == 0 || s.Size%8 != 0 {
			continue
		}
		if b, err := im.obj.Section(n); err != nil || b == nil {
			return 0, 0, false
		}
		return s.Addr, s.Addr + s.Size, true
	}
	return 0, 0, false
}
