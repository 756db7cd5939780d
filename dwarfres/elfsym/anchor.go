package elfsym

import (
	"bytes"
	"debug/elf"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// SectionAnchor names a symbol the kernel can find a module's global
// through when the global's own name is not unique (gcc's __func__.N:
// the kernel's kallsyms_lookup_name searches the vmlinux first, then
// every module, and takes the first of the name). The global is the
// symbol named name at addr; the anchor is another symbol of the same
// section, so that its distance to the global is the module's own
// layout, whose name is once in the module and is no compiler-made
// local name (no '.', no __UNIQUE_ID_, no __key). A global symbol comes
// first (the kernel's build keeps those unique across the kernel), then
// the nearest. ok is false when the section has none.
func (im *Image) SectionAnchor(addr uint64, name string) (anchor string, start uint64, section string, ok bool) {
	data, strtab := im.obj.SymbolTable()
	shndx := elf.SHN_UNDEF
	counts := map[string]int{}
	im.obj.EachRawSymbol(data, func(s elfobj.RawSym) {
		n := elfobj.StrAt(strtab, s.Name)
		if len(n) == 0 || s.Shndx == elf.SHN_UNDEF {
			return
		}
		counts[string(n)]++
		if shndx == elf.SHN_UNDEF && s.Value == addr && string(n) == name {
			shndx = s.Shndx
		}
	})
	if shndx == elf.SHN_UNDEF || shndx >= elf.SHN_LORESERVE {
		return "", 0, "", false
	}
	var best elfobj.RawSym
	found := false
	better := func(s elfobj.RawSym) bool {
		if !found {
			return true
		}
		g, bg := elf.ST_BIND(s.Info) == elf.STB_GLOBAL, elf.ST_BIND(best.Info) == elf.STB_GLOBAL
		if g != bg {
			return g
		}
		d, bd := distance(s.Value, addr), distance(best.Value, addr)
		return d < bd || d == bd && s.Value < best.Value
	}
	im.obj.EachRawSymbol(data, func(s elfobj.RawSym) {
		typ := elf.ST_TYPE(s.Info)
		if s.Shndx != shndx || typ == elf.STT_SECTION || typ == elf.STT_FILE {
			return
		}
		n := elfobj.StrAt(strtab, s.Name)
		if !anchorName(n) || counts[string(n)] != 1 {
			return
		}
		if better(s) {
			best, found = s, true
		}
	})
	if !found {
		return "", 0, "", false
	}
	if int(shndx) < len(im.obj.ELF.Sections) {
		section = im.obj.ELF.Sections[shndx].Name
	}
	return string(elfobj.StrAt(strtab, best.Name)), best.Value, section, true
}

// anchorName reports a name fit to find a module's global by: none the
// compiler makes per unit, nor one kallsyms leaves out.
func anchorName(n []byte) bool {
	return len(n) > 0 && !isMappingSymbol(n) && bytes.IndexByte(n, '.') < 0 &&
		!bytes.HasPrefix(n, []byte("__UNIQUE_ID_")) && !bytes.HasPrefix(n, []byte("__key")) &&
		!bytes.HasPrefix(n, []byte("__pfx_")) && !bytes.HasPrefix(n, []byte("__cfi_"))
}

func distance(a, b uint64) uint64 {
	if a > b {
		return a - b
	}
	return b - a
}
