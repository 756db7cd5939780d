package elfsym

import (
	"cmp"
	"debug/elf"
	"slices"
	"sort"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// FuncSymbolAt names an address no symbol of the .text map covers (init
// text, arm64's EFI stub copies such as __efistub_vsnprintf) by the sized
// function symbol covering it in any executable section, as perf's offline
// post-processing does with a map of the whole file: the DWARF name would
// make the kernel probe another function of that name. Of the symbols
// covering it, the one starting last; of those starting there, the first
// in the table. A scan of the raw table for a query's few points outside
// .text, a table sorted once for a probe with many.
func (im *Image) FuncSymbolAt(addr uint64) (Sym, bool) {
	var best elfobj.RawSym
	var found bool
	if t, ok := im.funcSyms.table(funcSymScans, im.sortedFuncSyms); ok {
		best, found = t.at(addr)
	} else {
		best, found = im.scanFuncSyms(addr)
	}
	if !found {
		return Sym{}, false
	}
	_, strtab := im.obj.SymbolTable()
	return Sym{Name: string(elfobj.StrAt(strtab, best.Name)), Start: best.Value, End: best.Value + best.Size,
		Bind: elf.ST_BIND(best.Info), Type: elf.STT_FUNC, Section: im.obj.ELF.Sections[best.Shndx].Name}, true
}

// funcSymScans is how many addresses funcSymbolAt looks up by scanning:
// a scan decodes every symbol (about 6 ms on a vmlinux), the sorted table
// costs about 27 ms.
const funcSymScans = 4

// scanFuncSyms is funcSymbolAt's answer from a scan of the symbol table.
func (im *Image) scanFuncSyms(addr uint64) (best elfobj.RawSym, found bool) {
	data, _ := im.obj.SymbolTable()
	im.obj.EachRawSymbol(data, func(s elfobj.RawSym) {
		if im.isFuncSym(s) && addr >= s.Value && addr < s.Value+s.Size && (!found || s.Value > best.Value) {
			best, found = s, true
		}
	})
	return best, found
}

// isFuncSym reports whether s is a function defined in an executable
// section.
func (im *Image) isFuncSym(s elfobj.RawSym) bool {
	return elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Shndx != elf.SHN_UNDEF && s.Shndx < elf.SHN_LORESERVE &&
		int(s.Shndx) < len(im.obj.ELF.Sections) && im.obj.ELF.Sections[s.Shndx].Flags&elf.SHF_EXECINSTR != 0
}

// funcSymTable is funcSymbolAt's table: the sized function symbols of
// executable sections, by start, in table order where they start alike,
// and the largest size, which bounds how far back one can cover an address.
type funcSymTable struct {
	syms    []elfobj.RawSym
	maxSize uint64
}

func (im *Image) sortedFuncSyms() funcSymTable {
	data, _ := im.obj.SymbolTable()
	var t funcSymTable
	im.obj.EachRawSymbol(data, func(s elfobj.RawSym) {
		if im.isFuncSym(s) && s.Size > 0 {
			t.syms = append(t.syms, s)
			t.maxSize = max(t.maxSize, s.Size)
		}
	})
	slices.SortStableFunc(t.syms, func(a, b elfobj.RawSym) int { return cmp.Compare(a.Value, b.Value) })
	return t
}

// at is funcSymbolAt's answer from the table: the symbols starting at or
// before addr, from the last, while one could still reach it. The first
// that covers it starts last; stable sorting kept table order among those
// starting there, and the first of them in the table is the answer.
func (t funcSymTable) at(addr uint64) (best elfobj.RawSym, found bool) {
	syms := t.syms
	i := sort.Search(len(syms), func(i int) bool { return syms[i].Value > addr })
	for j := i - 1; j >= 0 && syms[j].Value+t.maxSize > addr && (!found || syms[j].Value == best.Value); j-- {
		if addr < syms[j].Value+syms[j].Size {
			best, found = syms[j], true
		}
	}
	return best, found
}
