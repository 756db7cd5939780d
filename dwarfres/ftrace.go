package dwarfres

import (
	"debug/dwarf"
	"debug/elf"
	"slices"
	"sort"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// ftraceTable locates the kernel's ftrace call-site table (__mcount_loc,
// between __start_mcount_loc and __stop_mcount_loc), or a module's
// (moduleFtraceTable), once; ok is false when the file has none.
func (f *File) ftraceTable() (start, stop uint64, ok bool) {
	f.ftraceOnce.Do(func() {
		if f.IsModule() {
			f.mcountStart, f.mcountStop, _ = f.moduleFtraceTable()
			return
		}
		start, ok1 := f.SymbolAddr("__start_mcount_loc")
		stop, ok2 := f.SymbolAddr("__stop_mcount_loc")
		if ok1 && ok2 && stop > start && (stop-start)%8 == 0 && f.ELF.Class == elf.ELFCLASS64 {
			f.mcountStart, f.mcountStop = start, stop
		}
	})
	return f.mcountStart, f.mcountStop, f.mcountStop != 0
}

// hasFtraceSite reports whether some ftrace call site lies in [lo, hi):
// a scan of the table as the image stores it, or, for arm64 images that
// leave it zero and fill it at boot, of the R_AARCH64_RELATIVE relocations
// aimed at it, whose addends are the sites. known is false when neither
// names a site. A query asks about a function or two; a probe with many
// points (kmalloc's 1,810) about each, answered from the sites sorted once.
func (f *File) hasFtraceSite(start, stop, lo, hi uint64) (found, known bool) {
	if sites, ok := f.ftraceSites.table(ftraceScans, func() []uint64 { return f.sortedFtraceSites(start, stop) }); ok {
		return ftraceSiteIn(sites, lo, hi)
	}
	return f.scanFtraceSites(start, stop, lo, hi)
}

// ftraceScans is how many functions hasFtraceSite asks about by scanning
// the vmlinux's 38,000 sites (about 0.3 ms) before it sorts them (0.7 ms).
const ftraceScans = 2

// scanFtraceSites is hasFtraceSite's answer from a scan of the table.
func (f *File) scanFtraceSites(start, stop, lo, hi uint64) (found, known bool) {
	f.eachFtraceSite(start, stop, func(a uint64) bool {
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
func (f *File) sortedFtraceSites(start, stop uint64) []uint64 {
	var sites []uint64
	f.eachFtraceSite(start, stop, func(a uint64) bool {
		sites = append(sites, a)
		return true
	})
	slices.Sort(sites)
	return sites
}

// eachFtraceSite calls fn with each ftrace call site of the table at
// [start, stop), while fn returns true: the table's non-zero entries, or,
// when it has none, the addends of the relocations aimed at it.
func (f *File) eachFtraceSite(start, stop uint64, fn func(uint64) bool) {
	b, err := f.Bytes(start, stop-start)
	if err != nil {
		return
	}
	any := false
	for i := 0; i+8 <= len(b); i += 8 {
		if a := f.Order.Uint64(b[i:]); a != 0 {
			any = true
			if !fn(a) {
				return
			}
		}
	}
	if any {
		return
	}
	for _, s := range f.ELF.Sections {
		if s.Type != elf.SHT_RELA || s.Info != 0 || s.Entsize != 24 {
			continue
		}
		data, err := f.section(s.Name)
		if err != nil {
			continue
		}
		for i := 0; i+24 <= len(data); i += 24 {
			if off := f.Order.Uint64(data[i:]); off >= start && off < stop {
				if !fn(f.Order.Uint64(data[i+16:])) {
					return
				}
			}
		}
	}
}

// Notrace reports whether the kernel function containing addr has no
// ftrace call site (it is notrace, as out-of-line copies of kernel inline
// functions are): a kernel built without CONFIG_KPROBE_EVENTS_ON_NOTRACE
// refuses kprobe events there ("Failed to register probe event"). known
// is false when the image has no ftrace table or no symbol covers addr.
func (f *File) Notrace(addr uint64) (notrace, known bool) {
	start, stop, ok := f.ftraceTable()
	sym, ok2 := f.Symbols().At(addr)
	if !ok || !ok2 {
		return false, false
	}
	found, known := f.hasFtraceSite(start, stop, sym.Start, sym.End)
	return !found && known, known
}

// FuncDecl is the out-of-line function containing an address, as DWARF
// declares it.
type FuncDecl struct {
	Name    string
	File    string // the declaration's file
	CompDir string // its unit's DW_AT_comp_dir, to find the file
	Line    int    // the declaration's line, 0 when unknown
	// Inline: DW_AT_inline of its abstract instance says the source
	// declares it inline, so this is an out-of-line copy of an inline
	// function. gcc writes no DW_AT_inline for an inline function it
	// never inlined in the unit: false then says nothing (read the
	// declaration's source line).
	Inline bool
}

// FuncAt is the function whose code holds addr; ok is false when no
// debuginfo covers it. It tells which copy of a non-unique name an
// address is in, and whether it is the copy of an inline function.
func (f *File) FuncAt(addr uint64) (fd FuncDecl, ok bool, err error) {
	defer elfobj.Guard(&err, f.Path)
	t, err := f.treeAt(addr)
	if t == nil || err != nil {
		return fd, false, err
	}
	sp := t.realFunc(addr)
	if sp < 0 {
		return fd, false, nil
	}
	fd.Name, fd.File, fd.CompDir = t.name(sp), t.declFile(sp), t.u.compDir
	fd.Line, _ = t.declLine(sp)
	if j := t.integrated(sp, func(d *die) bool { return d.Inline }); j >= 0 {
		// DW_INL_declared_not_inlined (2) or DW_INL_declared_inlined (3):
		// the source says inline. DW_INL_inlined (1) is a function the
		// compiler inlined somewhere on its own (arch/x86's sched_clock).
		if v, ok := t.attrsGet(j, dwarf.AttrInline); ok {
			fd.Inline = v.v == 2 || v.v == 3
		}
	}
	return fd, fd.Name != "", nil
}
