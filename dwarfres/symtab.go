package dwarfres

import (
	"bytes"
	"cmp"
	"debug/elf"
	"slices"
	"sort"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// Sym is one ELF symbol as perf's symbol map sees it: End is st_value +
// st_size, or the next symbol's start for zero-sized ones.
type Sym struct {
	Name       string
	Start, End uint64
	Bind       elf.SymBind
	Type       elf.SymType
	Section    string
}

// Symtab is the function-symbol map used to name probe addresses the way
// perf does (symbol+offset), plus name counts for kallsyms uniqueness.
type Symtab struct {
	byAddr  []Sym    // text symbols, sorted by Start, duplicates resolved
	all     []Sym    // every text symbol, including aliases
	names   []uint32 // strtab offsets of every kallsyms-visible symbol, for Count
	counts  afterScans[map[string]int32]
	strtab  []byte
	enc     *symEnc // all and byAddr as the index holds them, instead
	Text    uint64  // address of _text (kernel) or 0
	HasText bool
	kernel  bool // a vmlinux: _text plus kernel-only sections
	module  bool // a kernel module: labels count as in the kernel's map
}

// Symbols loads the symbol table once, from the index when it has it.
func (f *File) Symbols() *Symtab {
	f.symOnce.Do(func() {
		if f.dbg != nil && !f.HasSymbols() && f.dbg.HasSymtab() {
			// The kernel image's vmlinux, a strip -s binary: the
			// separate debuginfo's symbols, as gdb reads them. A
			// library keeps its .dynsym: the debuginfo's .symtab
			// names versioned aliases (memcpy@GLIBC_2.2.5) that
			// perf and the dynamic linker know as plain names.
			f.syms = f.dbg.Symbols()
			return
		}
		if ix := f.index(); ix != nil {
			if st, ok := f.decodeSyms(ix.syms); ok {
				f.syms = st
				return
			}
		}
		f.syms = f.loadSymbols()
	})
	return f.syms
}

// IsKernel reports whether the file looks like a vmlinux.
func (f *File) IsKernel() bool { return f.Symbols().kernel }

// loadSymbols reads the symbol table into perf's kernel or user map.
func (f *File) loadSymbols() *Symtab {
	st := &Symtab{}
	data, strtab := f.SymbolTable()
	st.strtab = strtab
	st.module = f.IsModule()
	f.EachRawSymbol(data, func(s elfobj.RawSym) {
		if s.Shndx != elf.SHN_UNDEF && elfobj.NameIs(strtab, s.Name, "_text") {
			st.Text, st.HasText = s.Value, true
			st.kernel = f.ELF.Section(".init.text") != nil || f.ELF.Section("__ksymtab") != nil
		}
	})
	f.EachRawSymbol(data, func(s elfobj.RawSym) {
		typ := elf.ST_TYPE(s.Info)
		if int(s.Name) >= len(strtab) || strtab[s.Name] == 0 || s.Shndx == elf.SHN_UNDEF || typ == elf.STT_FILE || typ == elf.STT_SECTION {
			return // no name, or not a symbol kallsyms lists
		}
		st.names = append(st.names, s.Name)
		if s.Shndx >= elf.SHN_LORESERVE || int(s.Shndx) >= len(f.ELF.Sections) {
			return
		}
		sec := f.ELF.Sections[s.Shndx]
		if sec.Flags&elf.SHF_EXECINSTR == 0 {
			return // inMap's first test, before the name's end is looked for
		}
		if name := elfobj.StrAt(strtab, s.Name); st.inMap(sec, typ, name) {
			st.all = append(st.all, Sym{Name: string(name), Start: s.Value, End: s.Value + s.Size, Bind: elf.ST_BIND(s.Info), Type: typ, Section: sec.Name})
		}
	})
	st.all = sortByAddr(st.all)
	st.byAddr = addrMap(st.all)
	return st
}

// inMap reports whether perf's symbol map holds a symbol of type typ named
// name in section sec: functions in executable sections, less local labels.
func (st *Symtab) inMap(sec *elf.Section, typ elf.SymType, name []byte) bool {
	if sec.Flags&elf.SHF_EXECINSTR == 0 {
		return false
	}
	// perf's kernel map holds .text only; other text sections
	// (.init.text) live in separate maps it does not search. A module
	// file is mapped whole: .init.text and .exit.text are searched too.
	if st.kernel && sec.Name != ".text" {
		return false
	}
	if typ != elf.STT_FUNC && !(typ == elf.STT_NOTYPE && (st.kernel || st.module)) {
		return false
	}
	return !bytes.HasPrefix(name, []byte(".L")) && !bytes.HasPrefix(name, []byte("$"))
}

// sortByAddr sorts symbols by address, stably (symbol-table order among
// aliases matters); an index sort avoids moving the structs around.
func sortByAddr(all []Sym) []Sym {
	idx := make([]int32, len(all))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int {
		if c := cmp.Compare(all[a].Start, all[b].Start); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	sorted := make([]Sym, len(all))
	for i, j := range idx {
		sorted[i] = all[j]
	}
	return sorted
}

// addrMap is perf's map of sorted symbols: one per address, each ending
// where the next begins when it has no size.
func addrMap(sorted []Sym) []Sym {
	var out []Sym
	// perf probe keeps aliases (symbol_conf.allow_aliases) in an rbtree
	// filled in symbol-table order; a lookup meets the alias inserted
	// first, since later ones at the same address go below it. Keep that
	// one, unless it is a zero-sized label and a sized symbol follows.
	for _, s := range sorted {
		n := len(out)
		if n > 0 && out[n-1].Start == s.Start {
			if prev := out[n-1]; prev.End == prev.Start && s.End > s.Start {
				out[n-1] = s
			}
			continue
		}
		out = append(out, s)
	}
	// symbols__fixup_end: a zero-sized symbol ends where the next begins.
	for i := range out {
		if out[i].End == out[i].Start && i+1 < len(out) {
			out[i].End = out[i+1].Start
		}
	}
	return out
}

// At returns the symbol containing addr, as perf's map__find_symbol does.
func (st *Symtab) At(addr uint64) (Sym, bool) {
	if st.enc != nil {
		return st.enc.at(addr)
	}
	i := sort.Search(len(st.byAddr), func(i int) bool { return st.byAddr[i].Start > addr }) - 1
	if i >= 0 && addr < st.byAddr[i].End {
		return st.byAddr[i], true
	}
	return Sym{}, false
}

// UniqueBefore returns the closest symbol of the map at or before addr,
// in the section of the symbol containing addr, whose name no other
// symbol bears: a name the kernel resolves to that one symbol, from which
// an offset reaches addr.
func (st *Symtab) UniqueBefore(addr uint64) (Sym, bool) {
	if st.enc != nil {
		return st.enc.uniqueBefore(addr, st.Count)
	}
	i := sort.Search(len(st.byAddr), func(i int) bool { return st.byAddr[i].Start > addr }) - 1
	if i < 0 {
		return Sym{}, false
	}
	sec := st.byAddr[i].Section
	for ; i >= 0 && st.byAddr[i].Section == sec; i-- {
		if st.Count(st.byAddr[i].Name) == 1 {
			return st.byAddr[i], true
		}
	}
	return Sym{}, false
}

// Lookup returns every text symbol named name, in address order. A linear
// scan: a query asks a handful of times, building a map would cost more.
func (st *Symtab) Lookup(name string) []Sym {
	if st.enc != nil {
		return st.enc.lookup(name)
	}
	var out []Sym
	for _, s := range st.all {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// Count returns how many symbols (of any kind kallsyms lists) bear name.
func (st *Symtab) Count(name string) int {
	if m, ok := st.counts.table(countScans, func() map[string]int32 { return nameCounts(st) }); ok {
		return int(m[name])
	}
	n := 0
	for _, off := range st.names {
		if elfobj.NameIs(st.strtab, off, name) {
			n++
		}
	}
	return n
}

// EachName calls fn with the name of every defined symbol (of any kind
// kallsyms lists), in symbol-table order.
func (st *Symtab) EachName(fn func(string)) {
	for _, off := range st.names {
		fn(string(elfobj.StrAt(st.strtab, off)))
	}
}

// Each calls fn for every text symbol in address order.
func (st *Symtab) Each(fn func(Sym)) {
	if st.enc != nil {
		st.enc.each(fn)
		return
	}
	for _, s := range st.all {
		fn(s)
	}
}

// DataSymbol names a data address for a global-variable fetcharg: the
// object symbol starting at addr named prefer if there is one, else the
// object (or other non-function) symbol containing addr. A linear scan of
// the raw table: a probe asks for a few globals at most.
func (f *File) DataSymbol(addr uint64, prefer string) (name string, start uint64, ok bool) {
	data, strtab := f.SymbolTable()
	var best elfobj.RawSym
	found := false
	f.EachRawSymbol(data, func(s elfobj.RawSym) {
		typ := elf.ST_TYPE(s.Info)
		if s.Shndx == elf.SHN_UNDEF || typ == elf.STT_FILE || typ == elf.STT_SECTION || typ == elf.STT_FUNC {
			return
		}
		n := elfobj.StrAt(strtab, s.Name)
		if len(n) == 0 || addr < s.Value || addr >= s.Value+max(s.Size, 1) {
			return
		}
		switch {
		case !found,
			prefer != "" && string(n) == prefer && s.Value == addr,
			string(elfobj.StrAt(strtab, best.Name)) != prefer && s.Value > best.Value:
			best, found = s, true
		}
	})
	if !found {
		return "", 0, false
	}
	return string(elfobj.StrAt(strtab, best.Name)), best.Value, true
}

// SymbolAddr returns the address of the first non-function symbol named
// name (a global declared in one unit, defined in another).
func (f *File) SymbolAddr(name string) (uint64, bool) {
	if f.index() != nil {
		if enc := f.Symbols().enc; enc != nil {
			return enc.addrOf(name)
		}
	}
	return f.symAddrs.lookup(name, f.symbolAddr)
}

func (f *File) symbolAddr(name string) (uint64, bool) {
	data, strtab := f.SymbolTable()
	var addr uint64
	found := false
	f.EachRawSymbol(data, func(s elfobj.RawSym) {
		if found || s.Shndx == elf.SHN_UNDEF || !elfobj.NameIs(strtab, s.Name, name) {
			return
		}
		addr, found = s.Value, true
	})
	return addr, found
}

// KallsymsHasData reports whether the kernel's kallsyms lists data symbols
// (CONFIG_KALLSYMS_ALL), which a @SYMBOL fetcharg needs: Debian's arm64
// cloud kernel lists functions only. It compares kallsyms_num_syms, read
// from the image, with the symbol table's function count; true when it
// cannot tell.
func (f *File) KallsymsHasData() bool {
	f.kallsymsOnce.Do(func() {
		f.kallsymsData = true
		if f.IsModule() { // the kernel's kallsyms, not the module's
			f.kallsymsData = f.kernelData == nil || f.kernelData()
			return
		}
		addr, ok := f.SymbolAddr("kallsyms_num_syms")
		if !ok {
			return
		}
		b, err := f.Bytes(addr, 4)
		if err != nil {
			return
		}
		num := uint64(f.Order.Uint32(b))
		var funcs, objs uint64
		data, _ := f.SymbolSection(elf.SHT_SYMTAB)
		f.EachRawSymbol(data, func(s elfobj.RawSym) {
			switch elf.ST_TYPE(s.Info) {
			case elf.STT_FUNC:
				funcs++
			case elf.STT_OBJECT:
				objs++
			}
		})
		f.kallsymsData = num > funcs+objs/2
	})
	return f.kallsymsData
}

// ExportedData reports whether this is a shared library (ET_DYN without an
// interpreter) exporting a data symbol named name (global, default
// visibility, in .dynsym): executables may copy-relocate such a variable.
func (f *File) ExportedData(name string) bool {
	if name == "" || f.ELF.Type != elf.ET_DYN {
		return false
	}
	for _, p := range f.ELF.Progs {
		if p.Type == elf.PT_INTERP {
			return false
		}
	}
	data, strtab := f.SymbolSection(elf.SHT_DYNSYM)
	found := false
	f.EachRawSymbol(data, func(s elfobj.RawSym) {
		if !found && s.Shndx != elf.SHN_UNDEF && elf.ST_TYPE(s.Info) == elf.STT_OBJECT &&
			elf.ST_BIND(s.Info) == elf.STB_GLOBAL && string(elfobj.StrAt(strtab, s.Name)) == name {
			found = true
		}
	})
	return found
}
