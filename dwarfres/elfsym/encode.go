package elfsym

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"hash/crc32"
	"math"
	"slices"
	"sort"

	"github.com/dwprobe/dwprobe/dwarfres/internal/record"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// The index also keeps the symbol map (Symbols), sorted: reading and
// sorting a vmlinux's 150k symbols is most of a single query's work once
// the index chooses its units. The record names the symbol table it was
// made from (its size and checksum): a stripped binary and its unstripped
// twin share a build-id, not a symbol table, and a record of another
// table is ignored.
//
// Record: u64 symtab size, u32 CRC-32C of it, u64 Text, u32 flags (bit 0
// HasText, bit 1 kernel, bit 2 module); u32 count and the text symbols
// by address, entries of symEntSize bytes (u32 name offset, u64 start,
// u32 size, u16 section, u8 info, a pad byte); u32 count and perf's map,
// entries of mapEntSize bytes (u32 number in the list before, u64 end);
// u32 count and the kallsyms name offsets; u32 count and SymbolAddr's
// table: the u32 number of the first defined symbol of each name, sorted
// by name. A symbol of 4 GiB or more leaves the record out.
const (
	symEntSize = 20
	mapEntSize = 12
)

// sameButEnd reports whether a and b are one symbol, whatever their ends.
func sameButEnd(a, b Sym) bool {
	a.End = b.End
	return a == b
}

// symtabID is the identity of f's symbol table: its size and checksum.
func symtabID(obj *elfobj.Object) (uint64, uint32) {
	data, _ := obj.SymbolTable()
	return uint64(len(data)), crc32.Checksum(data, record.Castagnoli)
}

// Encode records st, the symbol map of obj, as the index stores it.
func Encode(obj *elfobj.Object, st *Symtab) []byte {
	le := binary.LittleEndian
	size, sum := symtabID(obj)
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
	for i, s := range obj.ELF.Sections {
		if _, ok := secIdx[s.Name]; !ok {
			secIdx[s.Name] = uint16(i)
		}
	}
	// Any copy of a name in the string table will do.
	data, strtab := obj.SymbolTable()
	nameOff := map[string]uint32{}
	obj.EachRawSymbol(data, func(s elfobj.RawSym) { nameOff[string(elfobj.StrAt(strtab, s.Name))] = s.Name })
	b = le.AppendUint32(b, uint32(len(st.all)))
	for _, s := range st.all {
		if s.End < s.Start || s.End-s.Start > math.MaxUint32 {
			return nil // a size the record cannot hold: no record, the table is read
		}
		var e [symEntSize]byte
		le.PutUint32(e[0:], nameOff[s.Name])
		le.PutUint64(e[4:], s.Start)
		le.PutUint32(e[12:], uint32(s.End-s.Start))
		le.PutUint16(e[16:], secIdx[s.Section])
		e[18] = byte(s.Bind)<<4 | byte(s.Type)&0xf
		b = append(b, e[:]...)
	}
	// perf's map is made of symbols of all, some with another end.
	b = le.AppendUint32(b, uint32(len(st.byAddr)))
	j := 0
	for _, s := range st.byAddr {
		for j < len(st.all) && st.all[j].Start < s.Start {
			j++
		}
		k := j
		for k < len(st.all) && !sameButEnd(st.all[k], s) {
			k++
		}
		b = le.AppendUint32(b, uint32(k))
		b = le.AppendUint64(b, s.End)
	}
	b = le.AppendUint32(b, uint32(len(st.names)))
	for _, n := range st.names {
		b = le.AppendUint32(b, n)
	}
	return appendAddrTable(obj, b)
}

// appendAddrTable appends SymbolAddr's answers: the number of the first
// defined symbol of each name in the symbol table, sorted by name.
func appendAddrTable(obj *elfobj.Object, b []byte) []byte {
	data, strtab := obj.SymbolTable()
	type ent struct {
		name []byte
		num  uint32
	}
	var ents []ent
	seen := map[string]bool{}
	num := uint32(0)
	obj.EachRawSymbol(data, func(s elfobj.RawSym) {
		num++
		name := elfobj.StrAt(strtab, s.Name)
		if s.Shndx == elf.SHN_UNDEF || len(name) == 0 || seen[string(name)] {
			return
		}
		seen[string(name)] = true
		ents = append(ents, ent{name, num})
	})
	slices.SortFunc(ents, func(a, b ent) int { return bytes.Compare(a.name, b.name) })
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ents)))
	for _, e := range ents {
		b = binary.LittleEndian.AppendUint32(b, e.num)
	}
	return b
}

// rawAt decodes symbol number n of the symbol table, ok=false past its end.
func (e *symEnc) rawAt(n uint32) (elfobj.RawSym, bool) {
	if n == 0 {
		return elfobj.RawSym{}, false
	}
	return e.obj.RawSymAt(e.symdata, n)
}

// addrOf is SymbolAddr by binary search of the index's table.
func (e *symEnc) addrOf(name string) (uint64, bool) {
	le := binary.LittleEndian
	n := len(e.addrTab) / 4
	nameOf := func(i int) string {
		s, ok := e.rawAt(le.Uint32(e.addrTab[4*i:]))
		if !ok {
			return ""
		}
		return string(elfobj.StrAt(e.strtab, s.Name))
	}
	i := sort.Search(n, func(i int) bool { return nameOf(i) >= name })
	if i < n && nameOf(i) == name {
		s, _ := e.rawAt(le.Uint32(e.addrTab[4*i:]))
		return s.Value, true
	}
	return 0, false
}

// Decode is the symbol map a record holds, ok=false when it is of
// another symbol table or does not decode. The symbols stay encoded: a
// query looks up a few of 60k (symEnc), and decoding them all would cost
// more than the rest of it.
func Decode(obj *elfobj.Object, rec []byte) (st *Symtab, ok bool) {
	d := &record.Decoder{B: rec}
	size, sum := d.U64(), d.U32()
	data, strtab := obj.SymbolTable()
	if d.Bad || size != uint64(len(data)) || sum != crc32.Checksum(data, record.Castagnoli) {
		return nil, false
	}
	st = &Symtab{strtab: strtab, Text: d.U64()}
	flags := d.U32()
	st.HasText, st.kernel, st.module = flags&1 != 0, flags&2 != 0, flags&4 != 0
	enc := &symEnc{obj: obj, strtab: strtab, symdata: data}
	enc.all = d.Bytes(symEntSize * int(d.U32()))
	enc.byAddr = d.Bytes(mapEntSize * int(d.U32()))
	names := d.Bytes(4 * int(d.U32()))
	enc.addrTab = d.Bytes(4 * int(d.U32()))
	if d.Bad || len(d.B) != 0 || !enc.valid() {
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
// symbol, by address, entries of symEntSize bytes) and byAddr (perf's
// map, entries of mapEntSize bytes naming symbols of all).
type symEnc struct {
	obj             *elfobj.Object
	strtab, symdata []byte
	all, byAddr     []byte
	addrTab         []byte // SymbolAddr's table
}

// valid checks that every entry's name, section and symbol are in range.
func (e *symEnc) valid() bool {
	le := binary.LittleEndian
	for i := 0; i+symEntSize <= len(e.all); i += symEntSize {
		if int(le.Uint32(e.all[i:])) >= len(e.strtab) || int(le.Uint16(e.all[i+16:])) >= len(e.obj.ELF.Sections) {
			return false
		}
	}
	for i := 0; i+mapEntSize <= len(e.byAddr); i += mapEntSize {
		if int(le.Uint32(e.byAddr[i:])) >= len(e.all)/symEntSize {
			return false
		}
	}
	return true
}

// mapped is entry i of perf's map: its number in all, and its end.
func (e *symEnc) mapped(i int) (int, uint64) {
	b := e.byAddr[i*mapEntSize:]
	return int(binary.LittleEndian.Uint32(b)), binary.LittleEndian.Uint64(b[4:])
}

// mapSym decodes entry i of perf's map.
func (e *symEnc) mapSym(i int) Sym {
	j, end := e.mapped(i)
	s := e.sym(e.all, j)
	s.End = end
	return s
}

// sym decodes entry i of list.
func (e *symEnc) sym(list []byte, i int) Sym {
	le := binary.LittleEndian
	b := list[i*symEntSize:]
	start := le.Uint64(b[4:])
	return Sym{Name: string(elfobj.StrAt(e.strtab, le.Uint32(b))), Start: start, End: start + uint64(le.Uint32(b[12:])),
		Bind: elf.SymBind(b[18] >> 4), Type: elf.SymType(b[18] & 0xf), Section: e.obj.ELF.Sections[le.Uint16(b[16:])].Name}
}

// before is the index of the last entry of perf's map starting at or
// before addr, or -1.
func (e *symEnc) before(addr uint64) int {
	start := func(i int) uint64 {
		j, _ := e.mapped(i)
		return binary.LittleEndian.Uint64(e.all[j*symEntSize+4:])
	}
	return sort.Search(len(e.byAddr)/mapEntSize, func(i int) bool { return start(i) > addr }) - 1
}

// at is Symtab.At over the encoded map.
func (e *symEnc) at(addr uint64) (Sym, bool) {
	i := e.before(addr)
	if i < 0 {
		return Sym{}, false
	}
	if _, end := e.mapped(i); addr < end {
		return e.mapSym(i), true
	}
	return Sym{}, false
}

// uniqueBefore is Symtab.UniqueBefore over the encoded map; sections
// compare by index, one per section name.
func (e *symEnc) uniqueBefore(addr uint64, count func(string) int) (Sym, bool) {
	sec := func(i int) uint16 {
		j, _ := e.mapped(i)
		return binary.LittleEndian.Uint16(e.all[j*symEntSize+16:])
	}
	i := e.before(addr)
	if i < 0 {
		return Sym{}, false
	}
	for s0 := sec(i); i >= 0 && sec(i) == s0; i-- {
		if s := e.mapSym(i); count(s.Name) == 1 {
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
		if elfobj.NameIs(e.strtab, le.Uint32(e.all[i*symEntSize:]), name) {
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

// Encoded reports whether st was decoded from an index (Decode), its
// symbols still encoded.
func (st *Symtab) Encoded() bool { return st.enc != nil }

// AddrOf is SymbolAddr's answer from an index's table: the address of
// the first defined symbol named name. known is false for a map read
// from the symbol table, which keeps no such table.
func (st *Symtab) AddrOf(name string) (addr uint64, ok, known bool) {
	if st.enc == nil {
		return 0, false, false
	}
	addr, ok = st.enc.addrOf(name)
	return addr, ok, true
}
