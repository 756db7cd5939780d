package dwarfres

import (
	"cmp"
	"debug/elf"
	"slices"
	"sort"
	"strings"
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
	names   []string // every kallsyms-visible symbol name, for Count
	Text    uint64   // address of _text (kernel) or 0
	HasText bool
}

// Symbols loads the symbol table once.
func (f *File) Symbols() *Symtab {
	f.symOnce.Do(func() { f.syms = f.loadSymbols() })
	return f.syms
}

// IsKernel reports whether the file looks like a vmlinux.
func (f *File) IsKernel() bool {
	st := f.Symbols()
	return st.HasText && f.ELF.Section("__ksymtab") != nil || f.ELF.Section(".init.text") != nil && st.HasText
}

func (f *File) loadSymbols() *Symtab {
	st := &Symtab{}
	var syms []elf.Symbol
	func() {
		defer func() { recover() }()
		syms, _ = f.ELF.Symbols()
	}()
	if len(syms) == 0 {
		func() {
			defer func() { recover() }()
			syms, _ = f.ELF.DynamicSymbols()
		}()
	}
	kernel := false
	for _, s := range syms {
		if s.Name == "_text" && s.Section != elf.SHN_UNDEF {
			st.Text, st.HasText = s.Value, true
			kernel = f.ELF.Section(".init.text") != nil
		}
	}
	for _, s := range syms {
		typ := elf.ST_TYPE(s.Info)
		if s.Name == "" || s.Section == elf.SHN_UNDEF || typ == elf.STT_FILE || typ == elf.STT_SECTION {
			continue
		}
		st.names = append(st.names, s.Name)
		if s.Section >= elf.SHN_LORESERVE || int(s.Section) >= len(f.ELF.Sections) {
			continue
		}
		sec := f.ELF.Sections[s.Section]
		if sec.Flags&elf.SHF_EXECINSTR == 0 {
			continue
		}
		// perf's kernel map holds .text only; other text sections
		// (.init.text) live in separate maps it does not search.
		if kernel && sec.Name != ".text" {
			continue
		}
		if typ != elf.STT_FUNC && !(typ == elf.STT_NOTYPE && kernel) {
			continue
		}
		if strings.HasPrefix(s.Name, ".L") || strings.HasPrefix(s.Name, "$") {
			continue
		}
		st.all = append(st.all, Sym{Name: s.Name, Start: s.Value, End: s.Value + s.Size, Bind: elf.ST_BIND(s.Info), Type: typ, Section: sec.Name})
	}
	// Stable by address (symbol-table order among aliases matters); an
	// index sort avoids moving the structs around.
	idx := make([]int32, len(st.all))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int {
		if c := cmp.Compare(st.all[a].Start, st.all[b].Start); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	sorted := make([]Sym, len(st.all))
	for i, j := range idx {
		sorted[i] = st.all[j]
	}
	st.all = sorted
	// perf probe keeps aliases (symbol_conf.allow_aliases) in an rbtree
	// filled in symbol-table order; a lookup meets the alias inserted
	// first, since later ones at the same address go below it. Keep that
	// one, unless it is a zero-sized label and a sized symbol follows.
	for _, s := range st.all {
		n := len(st.byAddr)
		if n > 0 && st.byAddr[n-1].Start == s.Start {
			if prev := st.byAddr[n-1]; prev.End == prev.Start && s.End > s.Start {
				st.byAddr[n-1] = s
			}
			continue
		}
		st.byAddr = append(st.byAddr, s)
	}
	// symbols__fixup_end: a zero-sized symbol ends where the next begins.
	for i := range st.byAddr {
		if st.byAddr[i].End == st.byAddr[i].Start && i+1 < len(st.byAddr) {
			st.byAddr[i].End = st.byAddr[i+1].Start
		}
	}
	return st
}

// At returns the symbol containing addr, as perf's map__find_symbol does.
func (st *Symtab) At(addr uint64) (Sym, bool) {
	i := sort.Search(len(st.byAddr), func(i int) bool { return st.byAddr[i].Start > addr }) - 1
	if i >= 0 && addr < st.byAddr[i].End {
		return st.byAddr[i], true
	}
	return Sym{}, false
}

// Lookup returns every text symbol named name, in address order. A linear
// scan: a query asks a handful of times, building a map would cost more.
func (st *Symtab) Lookup(name string) []Sym {
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
	n := 0
	for _, s := range st.names {
		if s == name {
			n++
		}
	}
	return n
}

// Each calls fn for every text symbol in address order.
func (st *Symtab) Each(fn func(Sym)) {
	for _, s := range st.all {
		fn(s)
	}
}
