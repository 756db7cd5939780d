package dwarfres

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"hash/crc32"
	"slices"
	"sort"
)

// The index also keeps the symbol map (Symbols), sorted: reading and
// sorting a vmlinux's 150k symbols is most of a single query's work once
// the index chooses its units. The record names the symbol table it was
// made from (its size and checksum): a stripped binary and its unstripped
// twin share a build-id, not a symbol table, and a record of another
// table is ignored.
//
// Record: u64 symtab size, u32 CRC-32C of it, u64 Text, u32 flags (bit 0
// HasText, bit 1 kernel, bit 2 module), u32 count, entries of symEntSize bytes (u32 name
// offset, u32 name length, u64 start, u64 end, u16 section, u8 info), u32
// count, kallsyms name offsets, u32 count, and SymbolAddr's table: the
// value of the first defined symbol of each name, as entries of
// addrEntSize bytes (u32 name offset, u32 name length, u64 value) sorted by
// name.
const (
	symEntSize  = 32
	addrEntSize = 16
)

// symtabID is the identity of f's symbol table: its size and checksum.
func (f *File) symtabID() (uint64, uint32) {
	data, _ := f.symbolTable()
	return uint64(len(data)), crc32.Checksum(data, castagnoli)
}

// encodeSyms records st, the symbol map of f.
func (f *File) encodeSyms(st *Symtab) []byte {
	le := binary.LittleEndian
	size, sum := f.symtabID()
	b := le.AppendUint64(nil, size)
	b = le.AppendUint32(b, sum)
	b = le.AppendUint64(b, st.Text)
	var flags uint32
	if st.HasText {
		flags |= 1
	}
	if st.kernel {
		flags |= 2
	}
	if st.module {
		flags |= 4
	}
	b = le.AppendUint32(b, flags)
	secIdx := map[string]uint16{}
	for i, s := range f.ELF.Sections {
		if _, ok := secIdx[s.Name]; !ok {
			secIdx[s.Name] = uint16(i)
		}
	}
	// Any copy of a name in the string table will do.
	data, strtab := f.symbolTable()
	nameOff := map[string]uint32{}
	f.eachRawSymbol(data, func(s rawSym) { nameOff[string(strAt(strtab, s.name))] = s.name })
	for _, list := range [][]Sym{st.all, st.byAddr} {
		b = le.AppendUint32(b, uint32(len(list)))
		for _, s := range list {
			var e [symEntSize]byte
			le.PutUint32(e[0:], nameOff[s.Name])
			le.PutUint32(e[4:], uint32(len(s.Name)))
			le.PutUint64(e[8:], s.Start)
			le.PutUint64(e[16:], s.End)
			le.PutUint16(e[24:], secIdx[s.Section])
			e[26] = byte(s.Bind)<<4 | byte(s.Type)&0xf
			b = append(b, e[:]...)
		}
	}
	b = le.AppendUint32(b, uint32(len(st.names)))
	for _, n := range st.names {
		b = le.AppendUint32(b, n)
	}
	return f.appendAddrTable(b)
}

// appendAddrTable appends SymbolAddr's answers for every name, sorted.
func (f *File) appendAddrTable(b []byte) []byte {
	data, strtab := f.symbolTable()
	type ent struct {
		name  []byte
		off   uint32
		value uint64
	}
	var ents []ent
	seen := map[string]bool{}
	f.eachRawSymbol(data, func(s rawSym) {
		name := strAt(strtab, s.name)
		if s.shndx == elf.SHN_UNDEF || len(name) == 0 || seen[string(name)] {
			return
		}
		seen[string(name)] = true
		ents = append(ents, ent{name, s.name, s.value})
	})
	slices.SortFunc(ents, func(a, b ent) int { return bytes.Compare(a.name, b.name) })
	le := binary.LittleEndian
	b = le.AppendUint32(b, uint32(len(ents)))
	for _, e := range ents {
		b = le.AppendUint32(b, e.off)
		b = le.AppendUint32(b, uint32(len(e.name)))
		b = le.AppendUint64(b, e.value)
	}
	return b
}

// addrOf is SymbolAddr from the index's table; known is false without one.
func (st *Symtab) addrOf(name string) (addr uint64, ok, known bool) {
	t := st.addrTab
	if t == nil {
		return 0, false, false
	}
	le := binary.LittleEndian
	n := len(t) / addrEntSize
	at := func(i int) []byte {
		e := t[i*addrEntSize:]
		off, l := le.Uint32(e), le.Uint32(e[4:])
		if uint64(off)+uint64(l) > uint64(len(st.strtab)) {
			return nil
		}
		return st.strtab[off : off+l]
	}
	i := sort.Search(n, func(i int) bool { return string(at(i)) >= name })
	if i < n && string(at(i)) == name {
		return le.Uint64(t[i*addrEntSize+8:]), true, true
	}
	return 0, false, true
}

// decodeSyms is the symbol map a record holds, ok=false when it is of
// another symbol table or does not decode. The symbols stay encoded: a
// query looks up a few of 60k (symEnc), and decoding them all would cost
// more than the rest of it.
func (f *File) decodeSyms(rec []byte) (st *Symtab, ok bool) {
	d := &indexDecoder{b: rec}
	size, sum := d.u64(), d.u32()
	data, strtab := f.symbolTable()
	if d.bad || size != uint64(len(data)) || sum != crc32.Checksum(data, castagnoli) {
		return nil, false
	}
	st = &Symtab{strtab: strtab, Text: d.u64()}
	flags := d.u32()
	st.HasText, st.kernel, st.module = flags&1 != 0, flags&2 != 0, flags&4 != 0
	enc := &symEnc{f: f, strtab: strtab}
	enc.all = d.bytes(symEntSize * int(d.u32()))
	enc.byAddr = d.bytes(symEntSize * int(d.u32()))
	names := d.bytes(4 * int(d.u32()))
	st.addrTab = d.bytes(addrEntSize * int(d.u32()))
	if d.bad || len(d.b) != 0 || !enc.valid(enc.all) || !enc.valid(enc.byAddr) {
		return nil, false
	}
	st.enc = enc
	le := binary.LittleEndian
	st.names = make([]uint32, len(names)/4)
	for i := range st.names {
		st.names[i] = le.Uint32(names[4*i:])
	}
	return st, true
}

// symEnc is a Symtab's symbols as the index holds them: all (every text
// symbol, by address) and byAddr (perf's map), entries of symEntSize bytes.
type symEnc struct {
	f           *File
	strtab      []byte
	all, byAddr []byte
}

// valid checks that every entry's name and section are in range.
func (e *symEnc) valid(list []byte) bool {
	le := binary.LittleEndian
	for i := 0; i+symEntSize <= len(list); i += symEntSize {
		off, l := le.Uint32(list[i:]), le.Uint32(list[i+4:])
		if uint64(off)+uint64(l) > uint64(len(e.strtab)) || int(le.Uint16(list[i+24:])) >= len(e.f.ELF.Sections) {
			return false
		}
	}
	return true
}

// sym decodes entry i of list.
func (e *symEnc) sym(list []byte, i int) Sym {
	le := binary.LittleEndian
	b := list[i*symEntSize:]
	off, l := le.Uint32(b), le.Uint32(b[4:])
	return Sym{Name: string(e.strtab[off : off+l]), Start: le.Uint64(b[8:]), End: le.Uint64(b[16:]),
		Bind: elf.SymBind(b[26] >> 4), Type: elf.SymType(b[26] & 0xf), Section: e.f.ELF.Sections[le.Uint16(b[24:])].Name}
}

// before is the index of the last entry of byAddr starting at or before
// addr, or -1.
func (e *symEnc) before(addr uint64) int {
	le := binary.LittleEndian
	n := len(e.byAddr) / symEntSize
	return sort.Search(n, func(i int) bool { return le.Uint64(e.byAddr[i*symEntSize+8:]) > addr }) - 1
}

// at is Symtab.At over the encoded map.
func (e *symEnc) at(addr uint64) (Sym, bool) {
	i := e.before(addr)
	if i >= 0 && addr < binary.LittleEndian.Uint64(e.byAddr[i*symEntSize+16:]) {
		return e.sym(e.byAddr, i), true
	}
	return Sym{}, false
}

// uniqueBefore is Symtab.UniqueBefore over the encoded map; sections
// compare by index, one per section name.
func (e *symEnc) uniqueBefore(addr uint64, count func(string) int) (Sym, bool) {
	le := binary.LittleEndian
	sec := func(i int) uint16 { return le.Uint16(e.byAddr[i*symEntSize+24:]) }
	i := e.before(addr)
	if i < 0 {
		return Sym{}, false
	}
	for s0 := sec(i); i >= 0 && sec(i) == s0; i-- {
		if s := e.sym(e.byAddr, i); count(s.Name) == 1 {
			return s, true
		}
	}
	return Sym{}, false
}

// lookup is Symtab.Lookup, decoding only the symbols named name.
func (e *symEnc) lookup(name string) []Sym {
	le := binary.LittleEndian
	var out []Sym
	for i := 0; i*symEntSize < len(e.all); i++ {
		b := e.all[i*symEntSize:]
		if off, l := le.Uint32(b), le.Uint32(b[4:]); int(l) == len(name) && string(e.strtab[off:off+l]) == name {
			out = append(out, e.sym(e.all, i))
		}
	}
	return out
}

// each is Symtab.Each.
func (e *symEnc) each(fn func(Sym)) {
	for i := 0; i*symEntSize < len(e.all); i++ {
		fn(e.sym(e.all, i))
	}
}
