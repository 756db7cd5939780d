package elfsym

import (
	"bytes"
	"debug/elf"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// DataSymbol names a data address for a global-variable fetcharg: the
// object symbol starting at addr named prefer if there is one, else the
// object (or other non-function) symbol containing addr. A linear scan of
// the raw table: a probe asks for a few globals at most.
func (im *Image) DataSymbol(addr uint64, prefer string) (name string, start uint64, ok bool) {
	data, strtab := im.obj.SymbolTable()
	var best elfobj.RawSym
	found := false
	im.obj.EachRawSymbol(data, func(s elfobj.RawSym) {
		typ := elf.ST_TYPE(s.Info)
		if s.Shndx == elf.SHN_UNDEF || typ == elf.STT_FILE || typ == elf.STT_SECTION || typ == elf.STT_FUNC {
			return
		}
		n := elfobj.StrAt(strtab, s.Name)
		if len(n) == 0 || isMappingSymbol(n) || addr < s.Value || addr >= s.Value+max(s.Size, 1) {
			return
		}
		switch {
		case !found,
			prefer != "" && string(n) == prefer && s.Value == addr,
			string(elfobj.StrAt(strtab, best.Name)) != prefer && s.Value > best.Value:
			best, found = s, true
		}
	})
	if !found {
		return "", 0, false
	}
	return string(elfobj.StrAt(strtab, best.Name)), best.Value, true
}

// SymbolAddr returns the address of the first non-function symbol named
// name (a global declared in one unit, defined in another).
func (im *Image) SymbolAddr(name string) (uint64, bool) {
	if addr, ok, known := im.Symbols().AddrOf(name); known {
		return addr, ok
	}
	return im.symAddrs.lookup(name, im.symbolAddr)
}

func (im *Image) symbolAddr(name string) (uint64, bool) {
	data, strtab := im.obj.SymbolTable()
	var addr uint64
	found := false
	im.obj.EachRawSymbol(data, func(s elfobj.RawSym) {
		if found || s.Shndx == elf.SHN_UNDEF || !elfobj.NameIs(strtab, s.Name, name) {
			return
		}
		addr, found = s.Value, true
	})
	return addr, found
}

// KallsymsHasData reports whether the kernel's kallsyms lists data symbols
// (CONFIG_KALLSYMS_ALL), which a @SYMBOL fetcharg needs: Debian's arm64
// cloud kernel lists functions only. It compares kallsyms_num_syms, read
// from the image, with the symbol table's function count; true when it
// cannot tell.
func (im *Image) KallsymsHasData() bool {
	im.kallsymsOnce.Do(func() {
		im.kallsymsData = true
		if im.obj.IsModule() { // the kernel's kallsyms, not the module's
			im.kallsymsData = im.kernelData == nil || im.kernelData()
			return
		}
		addr, ok := im.SymbolAddr("kallsyms_num_syms")
		if !ok {
			return
		}
		b, err := im.obj.Bytes(addr, 4)
		if err != nil {
			return
		}
		num := uint64(im.obj.Order.Uint32(b))
		var funcs, objs uint64
		data, _ := im.obj.SymbolSection(elf.SHT_SYMTAB)
		im.obj.EachRawSymbol(data, func(s elfobj.RawSym) {
			switch elf.ST_TYPE(s.Info) {
			case elf.STT_FUNC:
				funcs++
			case elf.STT_OBJECT:
				objs++
			}
		})
		im.kallsymsData = num > funcs+objs/2
	})
	return im.kallsymsData
}

// ExportedData reports whether this is a shared library (ET_DYN without an
// interpreter) exporting a data symbol named name (global, default
// visibility, in .dynsym): executables may copy-relocate such a variable.
func (im *Image) ExportedData(name string) bool {
	if name == "" || im.obj.ELF.Type != elf.ET_DYN {
		return false
	}
	for _, p := range im.obj.ELF.Progs {
		if p.Type == elf.PT_INTERP {
			return false
		}
	}
	data, strtab := im.obj.SymbolSection(elf.SHT_DYNSYM)
	found := false
	im.obj.EachRawSymbol(data, func(s elfobj.RawSym) {
		if !found && s.Shndx != elf.SHN_UNDEF && elf.ST_TYPE(s.Info) == elf.STT_OBJECT &&
			elf.ST_BIND(s.Info) == elf.STB_GLOBAL && string(elfobj.StrAt(strtab, s.Name)) == name {
			found = true
		}
	})
	return found
}

// isMappingSymbol is the kernel's is_mapping_symbol
// (include/linux/module_symbol.h): names kallsyms never lists, such as
// arm64's $d and $x, which mark where data or code starts in a section
// and sit at the same address as the symbol that names the object.
func isMappingSymbol(n []byte) bool {
	return len(n) > 0 && n[0] == '$' || bytes.HasPrefix(n, []byte(".L")) || bytes.HasPrefix(n, []byte("L0"))
}
