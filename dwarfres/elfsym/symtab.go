package elfsym

import (
	"bytes"
	"cmp"
	"debug/elf"
	"slices"
	"sort"
	"strings"
	"sync"
	"unsafe"

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
	byAddr []Sym    // text symbols, sorted by Start, duplicates resolved
	all    []Sym    // every text symbol, including aliases
	names  []uint32 // strtab offsets of every kallsyms-visible symbol, for Count
	counts afterScans[map[string]int32]
	known  knownCounts // CountAhead's answers
	named  afterScans[byName]
	strtab []byte
	enc    *symEnc // all and byAddr as an index holds them, instead
	// fallback: all, byAddr and names read from the table (Load) once
	// enc fails a check, or names asked of an enc.
	fallbackOnce, namesOnce sync.Once
	Text                    uint64 // address of _text (kernel) or 0
	HasText                 bool
	kernel                  bool // a vmlinux: _text plus kernel-only sections
	module                  bool // a kernel module: labels count as in the kernel's map
}

// Load reads obj's symbol table into perf's kernel or user map.
func Load(obj *elfobj.Object) *Symtab {
	st := &Symtab{}
	data, strtab := obj.SymbolTable()
	st.strtab = strtab
	st.module = obj.IsModule()
	st.Text, st.HasText, st.kernel = textOf(obj, data, strtab)
	st.scanTable(obj, data, strtab, func(off uint32) { st.names = append(st.names, off) },
		func(_ uint32, s elfobj.RawSym, name []byte, sec *elf.Section) {
			st.all = append(st.all, Sym{Name: string(name), Start: s.Value, End: s.Value + s.Size, Bind: elf.ST_BIND(s.Info), Type: elf.ST_TYPE(s.Info), Section: sec.Name})
		})
	st.all = sortByAddr(st.all)
	st.byAddr = addrMap(st.all)
	return st
}

// textOf is _text's address, whether there is one, and whether obj is a
// vmlinux (_text plus kernel-only sections).
func textOf(obj *elfobj.Object, data, strtab []byte) (text uint64, has, kernel bool) {
	obj.EachRawSymbol(data, func(s elfobj.RawSym) {
		if s.Shndx != elf.SHN_UNDEF && elfobj.NameIs(strtab, s.Name, "_text") {
			text, has = s.Value, true
			kernel = obj.ELF.Section(".init.text") != nil || obj.ELF.Section("__ksymtab") != nil
		}
	})
	return text, has, kernel
}

// scanTable is Load's pass over the symbol table, in table order: listed
// gets the name offset of every symbol kallsyms lists, mapped the number
// and entry of every one perf's map holds (st's kind set).
func (st *Symtab) scanTable(obj *elfobj.Object, data, strtab []byte, listed func(uint32), mapped func(uint32, elfobj.RawSym, []byte, *elf.Section)) {
	num := uint32(0)
	obj.EachRawSymbol(data, func(s elfobj.RawSym) {
		num++
		if !kallsymsListed(s, strtab) {
			return // no name, or not a symbol kallsyms lists
		}
		typ := elf.ST_TYPE(s.Info)
		listed(s.Name)
		if s.Shndx >= elf.SHN_LORESERVE || int(s.Shndx) >= len(obj.ELF.Sections) {
			return
		}
		sec := obj.ELF.Sections[s.Shndx]
		if sec.Flags&elf.SHF_EXECINSTR == 0 {
			return // inMap's first test, before the name's end is looked for
		}
		if name := elfobj.StrAt(strtab, s.Name); st.inMap(sec, typ, name) {
			mapped(num, s, name, sec)
		}
	})
}

// kallsymsListed reports whether kallsyms lists s: a named, defined symbol that
// names neither a file nor a section (Count counts these).
func kallsymsListed(s elfobj.RawSym, strtab []byte) bool {
	typ := elf.ST_TYPE(s.Info)
	return int(s.Name) < len(strtab) && strtab[s.Name] != 0 && s.Shndx != elf.SHN_UNDEF && typ != elf.STT_FILE && typ != elf.STT_SECTION
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
	if e := st.encoded(); e != nil {
		if s, ok, good := e.at(addr); good {
			return s, ok
		}
		st.fallback()
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
	if e := st.encoded(); e != nil {
		if s, ok, good := e.uniqueBefore(addr, st.Count); good {
			return s, ok
		}
		st.fallback()
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

// Lookup returns every text symbol named name, in address order: a
// linear scan while a query asks a handful of times, then Named's table.
func (st *Symtab) Lookup(name string) []Sym {
	if t, ok := st.named.table(nameScans, func() byName { return nameTable(st) }); ok {
		key, _, _ := strings.Cut(name, "@")
		return st.at(t.at[key], func(s Sym) bool { return s.Name == name })
	}
	if e := st.encoded(); e != nil {
		if out, good := e.lookup(name); good {
			return out
		}
		st.fallback()
	}
	var out []Sym
	for _, s := range st.all {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// Named returns the text symbols whose name less an "@VERSION" is name,
// in address order, as a scan with Each finds them; ok is false while a
// scan is cheaper, and when some name is mangled (C++, Rust: a name may
// be meant demangled), for the caller to scan.
func (st *Symtab) Named(name string) (syms []Sym, ok bool) {
	t, ok := st.named.table(nameScans, func() byName { return nameTable(st) })
	if !ok || t.mangled {
		return nil, false
	}
	return st.at(t.at[name], func(Sym) bool { return true }), true
}

// at returns the text symbols at positions idx of Each's order that keep
// accepts.
func (st *Symtab) at(idx []int32, keep func(Sym) bool) []Sym {
	var out []Sym
	for _, i := range idx {
		var s Sym
		if e := st.encoded(); e != nil {
			s = e.sym(int(i))
		} else {
			s = st.all[i]
		}
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

// Count returns how many symbols (of any kind kallsyms lists) bear name.
func (st *Symtab) Count(name string) int {
	if n, ok := st.known.get(name); ok {
		return int(n)
	}
	if m, ok := st.counts.table(countScans, func() map[string]int32 { return nameCounts(st) }); ok {
		return int(m[name])
	}
	if st.enc != nil && st.enc.counted.Add(1) <= tableCountScans {
		return st.enc.count(name)
	}
	n := 0
	for _, off := range st.nameOffs() {
		if elfobj.NameIs(st.strtab, off, name) {
			n++
		}
	}
	return n
}

// EachName calls fn with the name of every defined symbol (of any kind
// kallsyms lists), in symbol-table order.
func (st *Symtab) EachName(fn func(string)) {
	for _, off := range st.nameOffs() {
		fn(string(elfobj.StrAt(st.strtab, off)))
	}
}

// Each calls fn for every text symbol in address order.
func (st *Symtab) Each(fn func(Sym)) {
	if e := st.encoded(); e != nil && e.verifyAll() {
		e.each(fn)
		return
	}
	st.fallback()
	for _, s := range st.all {
		fn(s)
	}
}

// EachTextName calls fn with the name of every symbol Load's map holds
// (Each's, aliases included), in symbol-table order, each a view of the
// string table valid during the call: scanTable's pass alone, with
// textOf's search for _text in it, without the map's sorting or a string
// per name.
func EachTextName(obj *elfobj.Object, fn func(name string)) {
	data, strtab := obj.SymbolTable()
	// A kernel's sections, as textOf's rule; _text decides after the pass.
	st := &Symtab{module: obj.IsModule(), kernel: obj.ELF.Section(".init.text") != nil || obj.ELF.Section("__ksymtab") != nil}
	hasText := false
	var names []uint64 // offset<<32 | length, each name's end found once
	keep := func(_ uint32, s elfobj.RawSym, name []byte, _ *elf.Section) {
		names = append(names, uint64(s.Name)<<32|uint64(len(name)))
	}
	st.scanTable(obj, data, strtab, func(off uint32) {
		hasText = hasText || elfobj.NameIs(strtab, off, "_text")
	}, keep)
	if st.kernel && !hasText {
		// Not a kernel after all: its other text sections count too.
		st.kernel, names = false, names[:0]
		st.scanTable(obj, data, strtab, func(uint32) {}, keep)
	}
	for _, n := range names {
		b := strtab[n>>32 : n>>32+n&(1<<32-1)]
		fn(unsafe.String(unsafe.SliceData(b), len(b)))
	}
}

// Kind says whether the map is a vmlinux's (_text and kernel-only
// sections: .text alone is mapped) or a kernel module's (labels count).
func (st *Symtab) Kind() (kernel, module bool) { return st.kernel, st.module }

// encoded is st's record when it has one that has not failed a check;
// nil once it has (fallback is then what answers).
func (st *Symtab) encoded() *symEnc {
	if st.enc == nil {
		return nil
	}
	if st.enc.bad.Load() {
		st.fallback()
		return nil
	}
	return st.enc
}

// fallback reads st's map from the table, once, for a record that failed
// a check; nothing for a map Load made.
func (st *Symtab) fallback() {
	st.fallbackOnce.Do(func() {
		if st.enc != nil {
			l := Load(st.enc.obj)
			st.all, st.byAddr = l.all, l.byAddr
		}
	})
}

// nameOffs is st.names: for a record, listed from the table when first
// asked (scanTable's pass, without its map).
func (st *Symtab) nameOffs() []uint32 {
	if st.enc == nil {
		return st.names
	}
	st.namesOnce.Do(func() {
		data, strtab := st.enc.obj.SymbolTable()
		st.names = make([]uint32, 0, st.enc.obj.SymbolCount(data))
		st.scanTable(st.enc.obj, data, strtab, func(off uint32) { st.names = append(st.names, off) },
			func(uint32, elfobj.RawSym, []byte, *elf.Section) {})
	})
	return st.names
}
