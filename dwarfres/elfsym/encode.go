package elfsym

import (
	"bytes"
	"cmp"
	"debug/elf"
	"encoding/binary"
	"hash/crc32"
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
// HasText, bit 1 kernel, bit 2 module); u32 count and the u32 numbers in
// the symbol table of the text symbols perf's map holds, by address and
// then table order; u32 count and SymbolAddr's table: the u32 number of
// the first defined symbol of each name, sorted by name. A symbol's name,
// address, size, section and kind are the table's own, read through its
// number; perf's map (one symbol per address, ends of the zero-sized)
// and kallsyms's names are made from the table when asked.
//
// The record is not trusted: its checksum only catches accidents, and
// whoever writes the cache could reorder it or list a symbol perf's map
// leaves out. It is checked where it is used (symEnc): every symbol an
// answer reads is one perf's map holds, in order with the entries beside
// it, and the first check that fails sets the record aside for the
// table's own map (Load), before an answer is given from it. A record
// can still leave a symbol out, which changes how an address is named
// (the symbol before it, or _text), never which address a name has.
// Checking only what a query uses keeps a warm query from a pass over
// the whole table.

// symtabID is the identity of f's symbol table: its size and checksum.
func symtabID(obj *elfobj.Object) (uint64, uint32) {
	data, _ := obj.SymbolTable()
	return uint64(len(data)), crc32.Checksum(data, record.Castagnoli)
}

// Encode records st, the symbol map of obj, as the index stores it.
func Encode(obj *elfobj.Object, st *Symtab) []byte {
	return encodeWith(obj, st, mapNumbers(obj, st))
}

// EncodeTable is Encode(obj, Load(obj)) without the symbols Load decodes
// and sorts, which the record does not need (the index's build).
func EncodeTable(obj *elfobj.Object) []byte {
	data, strtab := obj.SymbolTable()
	st := &Symtab{strtab: strtab, module: obj.IsModule()}
	st.Text, st.HasText, st.kernel = textOf(obj, data, strtab)
	return encodeWith(obj, st, mapNumbers(obj, st))
}

// encodeWith records st with nums, its map's symbols (mapNumbers).
func encodeWith(obj *elfobj.Object, st *Symtab, nums []uint32) []byte {
	le := binary.LittleEndian
	size, sum := symtabID(obj)
	data, _ := obj.SymbolTable()
	b := make([]byte, 0, 64+4*len(nums)+4*obj.SymbolCount(data))
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
	b = le.AppendUint32(b, uint32(len(nums)))
	for _, n := range nums {
		b = le.AppendUint32(b, n)
	}
	return appendAddrTable(obj, b)
}

// mapNumbers is the numbers of the symbols st maps, by address and then
// table order (sortByAddr's).
func mapNumbers(obj *elfobj.Object, st *Symtab) []uint32 {
	data, strtab := obj.SymbolTable()
	type ent struct {
		start uint64
		num   uint32
	}
	ents := make([]ent, 0, obj.SymbolCount(data)/2) // about half are text symbols
	st.scanTable(obj, data, strtab, func(uint32) {}, func(num uint32, s elfobj.RawSym, _ []byte, _ *elf.Section) {
		ents = append(ents, ent{s.Value, num})
	})
	slices.SortFunc(ents, func(a, b ent) int {
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		return cmp.Compare(a.num, b.num)
	})
	nums := make([]uint32, len(ents))
	for i, e := range ents {
		nums[i] = e.num
	}
	return nums
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
// another symbol table or does not decode. The symbols stay in the
// table: a query looks up a few of 60k (symEnc), and decoding them all
// would cost more than the rest of it.
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
	enc := &symEnc{st: st, obj: obj, strtab: strtab, symdata: data}
	enc.all = d.Bytes(4 * int(d.U32()))
	enc.addrTab = d.Bytes(4 * int(d.U32()))
	if d.Bad || len(d.B) != 0 || !enc.verifyText() {
		return nil, false
	}
	st.enc = enc
	return st, true
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
