package dwarfres

import (
	"debug/elf"
	"slices"
	"sort"
)

// ftraceSites lists the kernel's ftrace call sites (the __mcount_loc table
// between __start_mcount_loc and __stop_mcount_loc), sorted; nil when the
// file has none. arm64 images leave the table zero and fill it through
// R_AARCH64_RELATIVE relocations at boot: their addends are the sites.
func (f *File) ftraceSites() []uint64 {
	f.ftraceOnce.Do(func() {
		start, ok1 := f.SymbolAddr("__start_mcount_loc")
		stop, ok2 := f.SymbolAddr("__stop_mcount_loc")
		if !ok1 || !ok2 || stop <= start || (stop-start)%8 != 0 || f.ELF.Class != elf.ELFCLASS64 {
			return
		}
		b, err := f.Bytes(start, stop-start)
		if err != nil {
			return
		}
		var out []uint64
		for i := 0; i+8 <= len(b); i += 8 {
			if a := f.Order.Uint64(b[i:]); a != 0 {
				out = append(out, a)
			}
		}
		if len(out) == 0 {
			out = f.relativeAddends(start, stop)
		}
		slices.Sort(out)
		f.ftrace = out
	})
	return f.ftrace
}

// relativeAddends returns the addends of the RELA relocations (of any
// SHT_RELA section that applies to the loaded image) whose offsets fall in
// [start, stop).
func (f *File) relativeAddends(start, stop uint64) []uint64 {
	var out []uint64
	for _, s := range f.ELF.Sections {
		if s.Type != elf.SHT_RELA || s.Info != 0 || s.Entsize != 24 {
			continue
		}
		data, err := f.section(s.Name)
		if err != nil {
			continue
		}
		for i := 0; i+24 <= len(data); i += 24 {
			off := f.Order.Uint64(data[i:])
			if off >= start && off < stop {
				out = append(out, f.Order.Uint64(data[i+16:]))
			}
		}
	}
	return out
}

// Notrace reports whether the kernel function containing addr has no
// ftrace call site (it is notrace, as out-of-line copies of kernel inline
// functions are): a kernel built without CONFIG_KPROBE_EVENTS_ON_NOTRACE
// refuses kprobe events there ("Failed to register probe event"). known
// is false when the image has no ftrace table or no symbol covers addr.
func (f *File) Notrace(addr uint64) (notrace, known bool) {
	sites := f.ftraceSites()
	sym, ok := f.Symbols().At(addr)
	if len(sites) == 0 || !ok {
		return false, false
	}
	i := sort.Search(len(sites), func(i int) bool { return sites[i] >= sym.Start })
	return !(i < len(sites) && sites[i] < sym.End), true
}
