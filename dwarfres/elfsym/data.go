package elfsym

import (
	"bytes"
	"debug/elf"
	"slices"
	"strings"

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
	if st := im.sourcedSymbols(); st != nil {
		if addr, ok, known := st.AddrOf(name); known {
			return addr, ok
		}
	}
	return im.symAddrs.lookup(name, im.symbolAddr)
}

// symbolAddr is SymbolAddr from the object's own symbol table. It finds
// the string table's copies of name first and then compares only each
// symbol's name offset: decoding every symbol of a vmlinux (150k) cost a
// line query 4 ms per name.
func (im *Image) symbolAddr(name string) (uint64, bool) {
	data, strtab := im.obj.SymbolTable()
	offs := nameOffsets(strtab, name)
	if len(offs) == 0 {
		return 0, false
	}
	n := im.obj.SymbolCount(data)
	for i := 1; i < n; i++ {
		off, _ := im.obj.RawSymName(data, uint32(i))
		if !slices.Contains(offs, off) {
			continue
		}
		if s, ok := im.obj.RawSymAt(data, uint32(i)); ok && s.Shndx != elf.SHN_UNDEF {
			return s.Value, true
		}
	}
	return 0, false
}

// nameOffsets are the offsets in strtab at which the string name starts:
// every place "name\x00" is, since a symbol may name the tail of a longer
// string. It looks for the name's rarest-looking byte (commonBytes), not
// its first: every other symbol of a kernel starts with '_'.
func nameOffsets(strtab []byte, name string) []uint32 {
	if name == "" {
		return nil
	}
	pat := name + "\x00"
	j := 0
	for k := range len(name) {
		if commonness(name[k]) < commonness(name[j]) {
			j = k
		}
	}
	var offs []uint32
	for at := j; at < len(strtab); {
		i := bytes.IndexByte(strtab[at:], pat[j])
		if i < 0 {
			break
		}
		start := at + i - j
		if start >= 0 && start+len(pat) <= len(strtab) && string(strtab[start:start+len(pat)]) == pat {
			offs = append(offs, uint32(start))
		}
		at += i + 1
	}
	return offs
}

// commonBytes are the bytes of symbol names, most common first, as
// counted in 6.1 amd64's vmlinux string table ('_' is 17% of it, 'j'
// 0.08%); any other byte is rarer than all of them.
const commonBytes = "_etrsacinpoldmbkufgyvhxw.q4263I10USC8ETzD5jN7Q9KRAFBOPMLY-HZWXGVJ"

func commonness(c byte) int {
	if i := strings.IndexByte(commonBytes, c); i >= 0 {
		return len(commonBytes) - i
	}
	return 0
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
