package dwarfres

import "github.com/dwprobe/dwprobe/dwarfres/elfsym"

// Sym and Symtab are elfsym's: dwarfres's callers name symbols through
// them.
type (
	Sym    = elfsym.Sym
	Symtab = elfsym.Symtab
)

// symbolSource is where File's symbol map comes from before its own
// table: the kernel image's vmlinux or a strip -s binary has none, and
// gets the separate debuginfo's, as gdb reads them (a library keeps its
// .dynsym: the debuginfo's .symtab names versioned aliases,
// memcpy@GLIBC_2.2.5, that perf and the dynamic linker know as plain
// names); an index holds the map already read and sorted. nil: the
// file's own table.
func (f *File) symbolSource() *elfsym.Symtab {
	if f.dbg != nil && !f.HasSymbols() && f.dbg.HasSymtab() {
		return f.dbg.Symbols()
	}
	if ix := f.index(); ix != nil {
		if st, ok := elfsym.Decode(f.Object, ix.syms); ok {
			return st
		}
	}
	return nil
}
