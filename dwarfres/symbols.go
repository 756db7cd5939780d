package dwarfres

import (
	"debug/elf"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
	"github.com/dwprobe/dwprobe/dwarfres/elfsym"
)

// Sym and Symtab are elfsym's: dwarfres's callers name symbols through
// them.
type (
	Sym    = elfsym.Sym
	Symtab = elfsym.Symtab
)

// symbolSource is where File's symbol map comes from before its own
// table: the kernel image's vmlinux, a strip -s binary or a program
// with a .dynsym only (strip --strip-all) has none, and gets the
// separate debuginfo's, as gdb and perf read them (a library keeps its
// .dynsym: the debuginfo's .symtab names versioned aliases,
// memcpy@GLIBC_2.2.5, that perf and the dynamic linker know as plain
// names); an index holds the map already read and sorted. nil: the
// file's own table.
func (f *File) symbolSource() *elfsym.Symtab {
	if f.symbolsInDebuginfo() {
		return f.dbg.Symbols()
	}
	if ix := f.index(); ix != nil {
		if st, ok := elfsym.Decode(f.Object, ix.syms); ok {
			return st
		}
	}
	return nil
}

// EachTextName calls fn with the name of every symbol of the symbol map
// (Symbols().Each's), in symbol-table order, each a view of the string
// table valid during the call: one pass over the table the map comes
// from (symbolSource's choice), without the map's order, an index, or a
// string per name. -F lists names sorted and keeps a few of 150,000.
func (f *File) EachTextName(fn func(name string)) {
	if f.symbolsInDebuginfo() {
		f.dbg.EachTextName(fn)
		return
	}
	elfsym.EachTextName(f.Object, fn)
}

// symbolsInDebuginfo reports whether f's symbols are its separate
// debuginfo's: a program stripped as distributions ship it keeps a
// .dynsym of imports only, and its functions are in the debuginfo's table.
func (f *File) symbolsInDebuginfo() bool {
	return f.dbg != nil && !f.HasSymtab() && f.dbg.HasSymtab() && (!f.HasSymbols() || !isLibrary(f))
}

// isLibrary reports a binary whose .dynsym holds functions of its own, as
// a shared library's does (glibc's libc.so.6 has a PT_INTERP too, so that
// it runs, and is still a library); a program stripped as distributions
// ship it keeps a .dynsym of imports only.
func isLibrary(f *File) bool {
	data, _ := f.SymbolSection(elf.SHT_DYNSYM)
	defines := false
	f.EachRawSymbol(data, func(s elfobj.RawSym) {
		defines = defines || s.Shndx != elf.SHN_UNDEF && elf.ST_TYPE(s.Info) == elf.STT_FUNC
	})
	return defines
}
