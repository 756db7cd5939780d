package dwarfres

import (
	"debug/elf"

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
	if f.dbg != nil && !f.HasSymtab() && f.dbg.HasSymtab() && (!f.HasSymbols() || !isLibrary(f.ELF)) {
		// A program stripped as distributions ship it keeps a .dynsym
		// of imports only: its functions are in the debuginfo's table.
		return f.dbg.Symbols()
	}
	if ix := f.index(); ix != nil {
		if st, ok := elfsym.Decode(f.Object, ix.syms); ok {
			return st
		}
	}
	return nil
}

// isLibrary reports a shared library: ET_DYN without a PT_INTERP (a PIE
// program has one).
func isLibrary(ef *elf.File) bool {
	if ef.Type != elf.ET_DYN {
		return false
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			return false
		}
	}
	return true
}
