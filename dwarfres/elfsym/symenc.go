package elfsym

import (
	"debug/elf"
	"encoding/binary"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// symEnc is a Symtab's symbols as the index holds them: all, the numbers
// in the symbol table of every text symbol perf's map holds, by address
// (u32 each), read through the table. Each answer checks the entries it
// reads (the record's comment): a failed check marks the record bad, and
// the Symtab answers from the table's own map from then on (fallback).
type symEnc struct {
	st              *Symtab // its kind decides what the map holds
	obj             *elfobj.Object
	strtab, symdata []byte
	all             []byte
	addrTab         []byte // SymbolAddr's table
	bad             atomic.Bool

	verifyOnce sync.Once // verifyAll's, for Each
	verified   bool
	counted    atomic.Int32 // Count's scans of the table (count)
}

// n is the number of entries of all.
func (e *symEnc) n() int { return len(e.all) / 4 }

// num is entry i's number in the symbol table.
func (e *symEnc) num(i int) uint32 { return binary.LittleEndian.Uint32(e.all[4*i:]) }

// raw is entry i's symbol, unchecked (ok=false: not in the table).
func (e *symEnc) raw(i int) (elfobj.RawSym, bool) { return e.rawAt(e.num(i)) }

// start is entry i's address, 0 when it is not in the table (check
// catches it).
func (e *symEnc) start(i int) uint64 {
	r, _ := e.raw(i)
	return r.Value
}

// check reports whether entry i is a symbol perf's map holds (scanTable's
// and inMap's tests), marking the record bad when not.
func (e *symEnc) check(i int) (elfobj.RawSym, bool) {
	r, ok := e.raw(i)
	if ok && e.mapped(r) {
		return r, true
	}
	e.bad.Store(true)
	return r, false
}

// mapped reports whether Load's scanTable passes r to its map.
func (e *symEnc) mapped(r elfobj.RawSym) bool {
	typ := elf.ST_TYPE(r.Info)
	secs := e.obj.ELF.Sections
	if int(r.Name) >= len(e.strtab) || e.strtab[r.Name] == 0 || r.Shndx == elf.SHN_UNDEF ||
		typ == elf.STT_FILE || typ == elf.STT_SECTION || r.Shndx >= elf.SHN_LORESERVE || int(r.Shndx) >= len(secs) {
		return false
	}
	// inMap looks at the name's first two bytes only (.L, $).
	return e.st.inMap(secs[r.Shndx], typ, e.strtab[r.Name:min(int(r.Name)+2, len(e.strtab))])
}

// ordered reports whether entries i < j are in the record's order (by
// address, then table order), marking the record bad when not.
func (e *symEnc) ordered(i, j int) bool {
	a, b := e.start(i), e.start(j)
	if a < b || a == b && e.num(i) < e.num(j) {
		return true
	}
	e.bad.Store(true)
	return false
}

// symbol is r as a Sym of the list (End: start plus size).
func (e *symEnc) symbol(r elfobj.RawSym) Sym {
	return Sym{Name: string(elfobj.StrAt(e.strtab, r.Name)), Start: r.Value, End: r.Value + r.Size,
		Bind: elf.ST_BIND(r.Info), Type: elf.ST_TYPE(r.Info), Section: e.obj.ELF.Sections[r.Shndx].Name}
}

// run is the entries [first, last] at one address, checked, and the one
// perf's map keeps there (addrMap's rule: the first, unless it has no
// size and a later one has).
func (e *symEnc) run(last int) (first int, kept elfobj.RawSym, ok bool) {
	first = last
	for first > 0 && e.start(first-1) == e.start(last) {
		first--
	}
	for i := first; i <= last; i++ {
		r, ok := e.check(i)
		if !ok || i > first && !e.ordered(i-1, i) {
			return 0, r, false
		}
		if i == first || kept.Value+kept.Size == kept.Value && r.Value+r.Size > r.Value {
			kept = r
		}
	}
	return first, kept, first == 0 || e.ordered(first-1, first)
}

// mapSym is the map's symbol of the run ending at last, whose next entry
// (if any) is checked: its end is the next address for a zero-sized one.
// sec is its section.
func (e *symEnc) mapSym(last int) (s Sym, first int, sec elf.SectionIndex, ok bool) {
	first, r, ok := e.run(last)
	if !ok {
		return Sym{}, 0, 0, false
	}
	s = e.symbol(r)
	if last+1 < e.n() {
		if _, ok := e.check(last + 1); !ok || !e.ordered(last, last+1) {
			return Sym{}, 0, 0, false
		}
		if s.End == s.Start {
			s.End = e.start(last + 1)
		}
	}
	return s, first, r.Shndx, true
}

// before is the last entry at or before addr (-1: none), the first
// entry's place checked when there is none.
func (e *symEnc) before(addr uint64) (int, bool) {
	i := sort.Search(e.n(), func(i int) bool { return e.start(i) > addr }) - 1
	if i < 0 && e.n() > 0 {
		if _, ok := e.check(0); !ok || e.start(0) <= addr {
			e.bad.Store(true)
			return 0, false
		}
	}
	return i, true
}

// at is Symtab.At over the record; good is false when a check failed.
func (e *symEnc) at(addr uint64) (s Sym, found, good bool) {
	i, ok := e.before(addr)
	if !ok || i < 0 {
		return Sym{}, false, ok
	}
	s, _, _, ok = e.mapSym(i)
	if !ok || e.start(i) > addr {
		e.bad.Store(true)
		return Sym{}, false, false
	}
	if addr >= s.End {
		return Sym{}, false, true
	}
	return s, true, true
}

// uniqueBefore is Symtab.UniqueBefore over the record; sections compare
// by index, one per section name.
func (e *symEnc) uniqueBefore(addr uint64, count func(string) int) (s Sym, found, good bool) {
	i, ok := e.before(addr)
	if !ok || i < 0 {
		return Sym{}, false, ok
	}
	var sec0 elf.SectionIndex
	for k := 0; i >= 0; k++ {
		s, first, sec, ok := e.mapSym(i)
		if !ok {
			return Sym{}, false, false
		}
		if k == 0 {
			sec0 = sec
		} else if sec != sec0 {
			break
		}
		if count(s.Name) == 1 {
			return s, true, true
		}
		i = first - 1
	}
	return Sym{}, false, true
}

// lookup is Symtab.Lookup, decoding only the symbols named name: their
// name offsets are read from the table, not the symbols whole.
func (e *symEnc) lookup(name string) (out []Sym, good bool) {
	prev := -1
	for i := 0; i < e.n(); i++ {
		off, ok := e.obj.RawSymName(e.symdata, e.num(i))
		if !ok || !elfobj.NameIs(e.strtab, off, name) {
			continue
		}
		r, ok := e.check(i)
		if !ok || prev >= 0 && !e.ordered(prev, i) {
			return nil, false
		}
		out, prev = append(out, e.symbol(r)), i
	}
	return out, true
}

// verifyAll checks every entry and their order, once: Each hands out all
// of them.
func (e *symEnc) verifyAll() bool {
	e.verifyOnce.Do(func() {
		// check and ordered, each entry read once.
		var prev elfobj.RawSym
		for i := 0; i < e.n(); i++ {
			r, ok := e.raw(i)
			if !ok || !e.mapped(r) || i > 0 && !(prev.Value < r.Value || prev.Value == r.Value && e.num(i-1) < e.num(i)) {
				e.bad.Store(true)
				return
			}
			prev = r
		}
		e.verified = true
	})
	return e.verified
}

// each is Symtab.Each, once verifyAll passed.
func (e *symEnc) each(fn func(Sym)) {
	for i := 0; i < e.n(); i++ {
		r, _ := e.raw(i)
		fn(e.symbol(r))
	}
}

// sym is entry i as a Sym of the list (Each's i-th, verified by then).
func (e *symEnc) sym(i int) Sym {
	r, _ := e.raw(i)
	return e.symbol(r)
}

// verifyText checks st's _text and kind: the kind from the sections,
// _text through the record's own name table.
func (e *symEnc) verifyText() bool {
	st := e.st
	kernel := e.obj.ELF.Section(".init.text") != nil || e.obj.ELF.Section("__ksymtab") != nil
	if st.module != e.obj.IsModule() || st.kernel != (st.HasText && kernel) {
		return false
	}
	text, has := e.addrOf("_text")
	return has == st.HasText && (!has || text == st.Text)
}

// count is Symtab.Count by a scan of the table: the name offsets alone,
// a symbol read whole only when its name matches (listing the names
// first, as Load does, would cost a query more than its other work).
// Past tableCountScans of them, Count lists the names (nameOffs): a scan
// of the list is a fifth of one of the table.
const tableCountScans = 4

func (e *symEnc) count(name string) int {
	n := 0
	for i, end := uint32(1), uint32(e.obj.SymbolCount(e.symdata)); i < end; i++ {
		off, _ := e.obj.RawSymName(e.symdata, i)
		if !elfobj.NameIs(e.strtab, off, name) {
			continue
		}
		s, _ := e.obj.RawSymAt(e.symdata, i)
		if kallsymsListed(s, e.strtab) {
			n++ // scanTable's listed
		}
	}
	return n
}
