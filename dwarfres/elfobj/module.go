package elfobj

import (
	"bytes"
	"debug/elf"
	"slices"
	"strings"
)

// ModuleBase is where the first allocated section of a relocatable object
// is laid out: libdwfl's OFFLINE_REDZONE, which perf's offline reporting
// of a .ko goes through. Address 0 stays free, as DWARF uses it for code
// that was discarded.
const ModuleBase = 0x10000

// IsModule reports whether the file is a relocatable object (ET_REL), as a
// kernel module (.ko) is: its sections start at 0 and Open lays them out
// (layoutSections), and its debug sections are read relocated.
func (o *Object) IsModule() bool { return o.ELF.Type == elf.ET_REL }

// ModInfo returns the value of key in a kernel module's .modinfo section
// ("key=value" strings, NUL-separated), or "" when absent.
func (o *Object) ModInfo(key string) string {
	for _, kv := range bytes.Split(o.RawSection(".modinfo"), []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte(key+"=")); ok {
			return string(v)
		}
	}
	return ""
}

// IsGo reports a program built by the Go toolchain (its .go.buildinfo
// section), whose goroutine stacks move.
func (o *Object) IsGo() bool { return o.ELF.Section(".go.buildinfo") != nil }

// layoutSections gives every allocated section of a relocatable object a
// distinct address, in section order and aligned, from ModuleBase, as
// libdwfl does for an offline ET_REL: .text, .init.text, .exit.text and
// the data sections are told apart, and the symbols (rawsym.go) and
// relocations (reloc.go) use the same bases.
func layoutSections(ef *elf.File) {
	if ef.Type != elf.ET_REL {
		return
	}
	next := uint64(ModuleBase)
	for _, s := range ef.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		if a := s.Addralign; a > 1 {
			next = (next + a - 1) &^ (a - 1)
		}
		s.Addr = next
		next += s.Size
	}
}

// FtraceSections are a module's tables of ftrace call sites, one per
// architecture: x86_64's __mcount_loc and arm64's
// __patchable_function_entries, whose entries are relocations against
// the text sections.
var FtraceSections = []string{"__mcount_loc", "__patchable_function_entries"}

// relocatedSection reports whether section name of a module is read with
// its relocations applied: the debug sections, the ftrace tables and the
// static branches' (__jump_table).
func relocatedSection(name string) bool {
	return strings.HasPrefix(name, ".debug_") || slices.Contains(FtraceSections, name) || name == "__jump_table"
}

// SectionBase is the laid-out address of section i (0 for a section that
// is not allocated, and for special indexes such as SHN_ABS): what a
// section-relative st_value of a relocatable object is added to.
func (o *Object) SectionBase(i elf.SectionIndex) uint64 {
	if o.ELF.Type != elf.ET_REL || i == elf.SHN_UNDEF || i >= elf.SHN_LORESERVE || int(i) >= len(o.ELF.Sections) {
		return 0
	}
	return o.ELF.Sections[i].Addr
}
