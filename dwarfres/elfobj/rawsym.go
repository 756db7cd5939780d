package elfobj

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
)

// RawSym is one symbol-table entry, its name still an offset in the
// string table and its value laid out (SectionBase added for a
// relocatable object).
type RawSym struct {
	Name uint32
	Info uint8
	// Other is st_other: the visibility, and on ppc64le the local entry
	// point's offset (arch.LocalEntryOffset).
	Other uint8
	Shndx elf.SectionIndex
	Value uint64
	Size  uint64
}

// SymbolSection returns the first section of type typ (SHT_SYMTAB or
// SHT_DYNSYM) and its string table, straight from the mapping: debug/elf's
// Symbols allocates every name of a 120k-symbol vmlinux, which costs more
// than the query that needs a few of them.
func (o *Object) SymbolSection(typ elf.SectionType) (data, strtab []byte) {
	for _, sec := range o.ELF.Sections {
		if sec.Type != typ || int(sec.Link) >= len(o.ELF.Sections) {
			continue
		}
		str := o.ELF.Sections[sec.Link]
		if sec.Offset+sec.FileSize > uint64(len(o.data)) || str.Offset+str.FileSize > uint64(len(o.data)) {
			return nil, nil
		}
		return o.data[sec.Offset : sec.Offset+sec.FileSize], o.data[str.Offset : str.Offset+str.FileSize]
	}
	return nil, nil
}

// SymbolTable is .symtab, or .dynsym in a stripped file, with its strings.
func (o *Object) SymbolTable() (data, strtab []byte) {
	data, strtab = o.SymbolSection(elf.SHT_SYMTAB)
	if data == nil {
		data, strtab = o.SymbolSection(elf.SHT_DYNSYM)
	}
	return data, strtab
}

// HasSymtab reports whether the file has a .symtab.
func (o *Object) HasSymtab() bool {
	data, _ := o.SymbolSection(elf.SHT_SYMTAB)
	return data != nil
}

// HasSymbols reports whether the file has a symbol table of its own,
// static or dynamic.
func (o *Object) HasSymbols() bool {
	data, _ := o.SymbolTable()
	return data != nil
}

// EachRawSymbol calls fn for every entry of a symbol section but the null one.
func (o *Object) EachRawSymbol(data []byte, fn func(RawSym)) {
	size := o.symSize()
	for i := size; i+size <= len(data); i += size {
		fn(o.decodeRawSym(data[i : i+size]))
	}
}

// RawSymAt is entry i of the symbol section data, its value laid out.
func (o *Object) RawSymAt(data []byte, i uint32) (RawSym, bool) {
	size := uint64(o.symSize())
	at := uint64(i) * size
	if i == 0 || at+size > uint64(len(data)) {
		return RawSym{}, i == 0 // the null symbol is 0
	}
	return o.decodeRawSym(data[at : at+size]), true
}

// RawSymName is the name offset of entry i of the symbol section data,
// read alone (st_name leads both classes' entries).
func (o *Object) RawSymName(data []byte, i uint32) (uint32, bool) {
	size := uint64(o.symSize())
	at := uint64(i) * size
	if i == 0 || at+size > uint64(len(data)) {
		return 0, false
	}
	return o.Order.Uint32(data[at:]), true
}

// SymbolCount is the number of entries in the symbol section data.
func (o *Object) SymbolCount(data []byte) int { return len(data) / o.symSize() }

// symSize is the size of one symbol-table entry.
func (o *Object) symSize() int {
	if o.ELF.Class == elf.ELFCLASS32 {
		return 16
	}
	return 24
}

// decodeRawSym decodes one symbol-table entry. A relocatable object's
// st_value is relative to its section: the section's laid-out address is
// added (layoutSections), so symbols, DWARF and relocations agree.
func (o *Object) decodeRawSym(e []byte) RawSym {
	var r RawSym
	if len(e) == 24 && o.Order == binary.LittleEndian {
		// x86_64's and arm64's, read without ByteOrder's indirect calls
		// (a third of -F's pass over a vmlinux's 150,000 symbols).
		le := binary.LittleEndian
		r.Name, r.Info, r.Other, r.Shndx = le.Uint32(e), e[4], e[5], elf.SectionIndex(le.Uint16(e[6:]))
		r.Value, r.Size = le.Uint64(e[8:])+o.SectionBase(r.Shndx), le.Uint64(e[16:])
		return r
	}
	r.Name = o.Order.Uint32(e)
	if len(e) == 24 {
		r.Info, r.Other, r.Shndx = e[4], e[5], elf.SectionIndex(o.Order.Uint16(e[6:]))
		r.Value, r.Size = o.Order.Uint64(e[8:]), o.Order.Uint64(e[16:])
	} else {
		r.Value, r.Size = uint64(o.Order.Uint32(e[4:])), uint64(o.Order.Uint32(e[8:]))
		r.Info, r.Other, r.Shndx = e[12], e[13], elf.SectionIndex(o.Order.Uint16(e[14:]))
	}
	r.Value += o.SectionBase(r.Shndx)
	return r
}

// NameIs reports whether the NUL-terminated string at off is name, without
// searching for its end: symbol-table scans compare 150k names of a
// vmlinux, and finding each one's NUL cost more than the comparisons.
func NameIs(tab []byte, off uint32, name string) bool {
	end := uint64(off) + uint64(len(name))
	return end < uint64(len(tab)) && tab[end] == 0 && string(tab[off:end]) == name
}

// StrAt returns the NUL-terminated bytes at off, without copying.
func StrAt(tab []byte, off uint32) []byte {
	if int(off) >= len(tab) {
		return nil
	}
	b := tab[off:]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}
