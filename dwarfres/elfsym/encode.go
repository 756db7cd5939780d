package elfsym

import (
	"bytes"
	"cmp"
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
// by address, entries of symEntSize bytes (u32 number in the symbol
// table, u32 name offset, u64 start, u32 size, u16 section, u8 info, a
// pad byte); u32 count and perf's map, entries of mapEntSize bytes (u32
// number in the list before, u64 end); u32 count and the kallsyms name
// offsets; u32 count and SymbolAddr's table: the u32 number of the first
// defined symbol of each name, sorted by name. A symbol of 4 GiB or more
// leaves the record out.
//
// The record is not trusted: its checksum only catches accidents, and
// whoever writes the cache could shift an address or rename a symbol,
// which would print a wrong definition. Decode checks it against the
// symbol table it names (verify: every entry is the table's entry it
// points to, all of them are there, and perf's map, the kallsyms names
// and _text are what Load would make of them): one pass over the table
// without the allocations and the sort that reading it costs.
const (
	symEntSize = 24
	mapEntSize = 12
)

// symtabID is the identity of f's symbol table: its size and checksum.
func symtabID(obj *elfobj.Object) (uint64, uint32) {
	data, _ := obj.SymbolTable()
	return uint64(len(data)), crc32.Checksum(data, record.Castagnoli)
}

// Encode records st, the symbol map of obj, as the index stores it.
func Encode(obj *elfobj.Object, st *Symtab) []byte {
	ents, ok := mapEntries(obj, st, func(uint32) {})
	if !ok {
		return nil
	}
	return encodeWith(obj, st, ents)
}

// EncodeTable is Encode(obj, Load(obj)) without the symbols Load decodes
// and sorts, which the record does not need: one pass over the table
// gives the map's entries and kallsyms's names (the index's build).
func EncodeTable(obj *elfobj.Object) []byte {
	data, strtab := obj.SymbolTable()
	st := &Symtab{strtab: strtab, module: obj.IsModule(), names: make([]uint32, 0, obj.SymbolCount(data))}
	st.Text, st.HasText, st.kernel = textOf(obj, data, strtab)
	ents, ok := mapEntries(obj, st, func(off uint32) { st.names = append(st.names, off) })
	if !ok {
		return nil
	}
	return encodeWith(obj, st, ents)
}

// encodeWith records st with ents, its map's entries (mapEntries).
func encodeWith(obj *elfobj.Object, st *Symtab, ents []byte) []byte {
	le := binary.LittleEndian
	size, sum := symtabID(obj)
	n := len(ents) / symEntSize
	data, _ := obj.SymbolTable()
	b := make([]byte, 0, 64+len(ents)+mapEntSize*n+4*len(st.names)+4*obj.SymbolCount(data))
	b = le.AppendUint64(b, size)
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
	b = le.AppendUint32(b, uint32(len(ents)/symEntSize))
	b = append(b, ents...)
	idx, ends := addrMapOf(len(ents)/symEntSize, func(i int) (uint64, uint64) { return entSpan(ents, i) })
	b = le.AppendUint32(b, uint32(len(idx)))
	for k := range idx {
		b = le.AppendUint32(b, uint32(idx[k]))
		b = le.AppendUint64(b, ends[k])
	}
	b = le.AppendUint32(b, uint32(len(st.names)))
	for _, n := range st.names {
		b = le.AppendUint32(b, n)
	}
	return appendAddrTable(obj, b)
}

// mapEntries is the encoded list of the symbols st maps, by address and
// then table order (sortByAddr's), each naming its table entry; listed
// gets what scanTable lists. ok is false when a size does not fit the
// record.
func mapEntries(obj *elfobj.Object, st *Symtab, listed func(uint32)) (out []byte, ok bool) {
	le := binary.LittleEndian
	data, strtab := obj.SymbolTable()
	ents := make([]byte, 0, symEntSize*obj.SymbolCount(data)/2) // about half are text symbols
	ok = true
	st.scanTable(obj, data, strtab, listed, func(num uint32, s elfobj.RawSym, _ []byte, _ *elf.Section) {
		if s.Size > math.MaxUint32 {
			ok = false
		}
		var e [symEntSize]byte
		le.PutUint32(e[0:], num)
		le.PutUint32(e[4:], s.Name)
		le.PutUint64(e[8:], s.Value)
		le.PutUint32(e[16:], uint32(s.Size))
		le.PutUint16(e[20:], uint16(s.Shndx))
		e[22] = s.Info
		ents = append(ents, e[:]...)
	})
	if !ok {
		return nil, false
	}
	n := len(ents) / symEntSize
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	// By start, then table order (the entries are in it): stable.
	start := func(i int32) uint64 { return le.Uint64(ents[int(i)*symEntSize+8:]) }
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(start(a), start(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	out = make([]byte, 0, len(ents))
	for _, i := range order {
		out = append(out, ents[int(i)*symEntSize:(int(i)+1)*symEntSize]...)
	}
	return out, true
}

// entSpan is entry i's start and end (start plus size).
func entSpan(ents []byte, i int) (uint64, uint64) {
	b := ents[i*symEntSize:]
	start := binary.LittleEndian.Uint64(b[8:])
	return start, start + uint64(binary.LittleEndian.Uint32(b[16:]))
}

// addrMapOf is addrMap over n sorted symbols given by span: the number of
// each symbol of perf's map, and its end.
func addrMapOf(n int, span func(int) (uint64, uint64)) (idx []int, ends []uint64) {
	for i := 0; i < n; i++ {
		start, end := span(i)
		if k := len(idx) - 1; k >= 0 {
			if ks, _ := span(idx[k]); ks == start {
				if ends[k] == ks && end > start {
					idx[k], ends[k] = i, end
				}
				continue
			}
		}
		idx, ends = append(idx, i), append(ends, end)
	}
	for k := range idx {
		if s, _ := span(idx[k]); ends[k] == s && k+1 < len(idx) {
			ends[k], _ = span(idx[k+1])
		}
	}
	return idx, ends
}

// appendAddrTable appends SymbolAddr's answers: the number of the first
// defined symbol of each name in the symbol table, sorted by name. All
// are sorted by name and number, and the first of each name kept: no set
// of the names seen.
func appendAddrTable(obj *elfobj.Object, b []byte) []byte {
	data, strtab := obj.SymbolTable()
	type ent struct {
		name []byte
		num  uint32
	}
	ents := make([]ent, 0, obj.SymbolCount(data))
	num := uint32(0)
	obj.EachRawSymbol(data, func(s elfobj.RawSym) {
		num++
		if s.Shndx == elf.SHN_UNDEF || int(s.Name) >= len(strtab) || strtab[s.Name] == 0 {
			return
		}
		ents = append(ents, ent{elfobj.StrAt(strtab, s.Name), num})
	})
	slices.SortFunc(ents, func(a, b ent) int {
		if c := bytes.Compare(a.name, b.name); c != 0 {
			return c
		}
		return cmp.Compare(a.num, b.num)
	})
	var n uint32
	at := len(b)
	b = binary.LittleEndian.AppendUint32(b, 0)
	for i, e := range ents {
		if i == 0 || !bytes.Equal(e.name, ents[i-1].name) {
			b = binary.LittleEndian.AppendUint32(b, e.num)
			n++
		}
	}
	binary.LittleEndian.PutUint32(b[at:], n)
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
	if d.Bad || len(d.B) != 0 {
		return nil, false
	}
	le := binary.LittleEndian
	st.names = make([]uint32, len(names)/4)
	for i := range st.names {
		st.names[i] = le.Uint32(names[4*i:])
	}
	if !enc.verify(st) {
		return nil, false
	}
	st.enc = enc
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

// verify checks the record against the symbol table (see the record's
// comment): every entry of all is the table's entry it names, in
// sortByAddr's order and once; perf's map is what addrMap makes of them;
// _text and the kind are the table's. It reads only the entries the
// record names, not the whole table (a pass over a vmlinux's table, as
// Load's, would cost more than the rest of a warm query): a record can
// still leave a symbol out, which changes how an address is named (the
// symbol before it, or _text), never which address a name has.
func (e *symEnc) verify(st *Symtab) bool {
	le := binary.LittleEndian
	if !e.verifyText(st) {
		return false
	}
	n := len(e.all) / symEntSize
	seen := make([]uint64, len(e.symdata)/16/64+1) // a bit per table entry (16 bytes: ELF32's, the smaller)
	secs := e.obj.ELF.Sections
	var prevStart uint64
	var prevNum uint32
	for i := 0; i < n; i++ {
		b := e.all[i*symEntSize:]
		num, start := le.Uint32(b), le.Uint64(b[8:])
		r, ok := e.rawAt(num)
		if !ok || seen[num/64]&(1<<(num%64)) != 0 || i > 0 && (start < prevStart || start == prevStart && num <= prevNum) {
			return false // not in the table, twice, or out of order
		}
		seen[num/64] |= 1 << (num % 64)
		// inMap looks at the name's first two bytes only (.L, $).
		sec := int(le.Uint16(b[20:]))
		if r.Name != le.Uint32(b[4:]) || r.Value != start || r.Size != uint64(le.Uint32(b[16:])) || r.Info != b[22] ||
			sec >= len(secs) || int(r.Shndx) >= len(secs) || secs[sec].Name != secs[r.Shndx].Name ||
			int(r.Name) >= len(e.strtab) || !st.inMap(secs[r.Shndx], elf.ST_TYPE(r.Info), e.strtab[r.Name:min(int(r.Name)+2, len(e.strtab))]) {
			return false
		}
		prevStart, prevNum = start, num
	}
	return e.verifyMap(n)
}

// verifyText checks st's _text and kind: the kind from the sections,
// _text through the record's own name table (checked entry by entry).
func (e *symEnc) verifyText(st *Symtab) bool {
	kernel := e.obj.ELF.Section(".init.text") != nil || e.obj.ELF.Section("__ksymtab") != nil
	if st.module != e.obj.IsModule() || st.kernel != (st.HasText && kernel) {
		return false
	}
	text, has := e.addrOf("_text")
	return has == st.HasText && (!has || text == st.Text)
}

// verifyMap checks perf's map against addrMap's answer for all.
func (e *symEnc) verifyMap(n int) bool {
	idx, ends := addrMapOf(n, func(i int) (uint64, uint64) { return entSpan(e.all, i) })
	if len(idx)*mapEntSize != len(e.byAddr) {
		return false
	}
	for k := range idx {
		if j, end := e.mapped(k); j != idx[k] || end != ends[k] {
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
	start := le.Uint64(b[8:])
	return Sym{Name: string(elfobj.StrAt(e.strtab, le.Uint32(b[4:]))), Start: start, End: start + uint64(le.Uint32(b[16:])),
		Bind: elf.ST_BIND(b[22]), Type: elf.ST_TYPE(b[22]), Section: e.obj.ELF.Sections[le.Uint16(b[20:])].Name}
}

// before is the index of the last entry of perf's map starting at or
// before addr, or -1.
func (e *symEnc) before(addr uint64) int {
	start := func(i int) uint64 {
		j, _ := e.mapped(i)
		return binary.LittleEndian.Uint64(e.all[j*symEntSize+8:])
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
		return binary.LittleEndian.Uint16(e.all[j*symEntSize+20:])
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
		if elfobj.NameIs(e.strtab, le.Uint32(e.all[i*symEntSize+4:]), name) {
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
