package dwarfres

import (
	"bufio"
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres/locate"
)

// moduleBase is where the first allocated section of a relocatable object
// is laid out: libdwfl's OFFLINE_REDZONE, which perf's offline reporting
// of a .ko goes through. Address 0 stays free, as DWARF uses it for code
// that was discarded.
const moduleBase = 0x10000

// IsModule reports whether the file is a relocatable object (ET_REL), as a
// kernel module (.ko) is: its sections start at 0 and Open lays them out
// (layoutSections), and its debug sections are read relocated.
func (f *File) IsModule() bool { return f.ELF.Type == elf.ET_REL }

// layoutSections gives every allocated section of a relocatable object a
// distinct address, in section order and aligned, from moduleBase, as
// libdwfl does for an offline ET_REL: .text, .init.text, .exit.text and
// the data sections are told apart, and the symbols (symtab.go) and
// relocations (reloc.go) use the same bases.
func layoutSections(ef *elf.File) {
	if ef.Type != elf.ET_REL {
		return
	}
	next := uint64(moduleBase)
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

// SetKernelData tells a module how to learn whether the kernel it is
// loaded into lists data symbols in kallsyms (CONFIG_KALLSYMS_ALL), which
// KallsymsHasData then answers: a module global is read through @SYMBOL,
// which the kernel resolves through kallsyms. hasData is called once, when
// first asked; unset, the answer is yes.
func (f *File) SetKernelData(hasData func() bool) { f.kernelData = hasData }

// RunningKallsymsHasData reports whether the running kernel's
// /proc/kallsyms lists data symbols, as a kernel built with
// CONFIG_KALLSYMS_ALL does (tens of thousands; without it a few special
// ones remain). True when it cannot be read.
func RunningKallsymsHasData() bool {
	return kallsymsHasData("/proc/kallsyms")
}

// kallsymsHasData is RunningKallsymsHasData for a kallsyms file at path:
// more than minDataSyms symbols of a data type (d, b, r, either case).
func kallsymsHasData(path string) bool {
	const minDataSyms = 1000
	fh, err := os.Open(path)
	if err != nil {
		return true
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	n, lines := 0, 0
	for sc.Scan() {
		lines++
		// "ffffffff81000000 T _text" (then "\t[module]" for modules)
		f := strings.Fields(sc.Text())
		if len(f) >= 3 && strings.Contains("dDbBrR", f[1]) && len(f[1]) == 1 {
			if n++; n > minDataSyms {
				return true
			}
		}
	}
	return lines == 0 || sc.Err() != nil
}

// ftraceSections are a module's tables of ftrace call sites, one per
// architecture: x86_64's __mcount_loc and arm64's
// __patchable_function_entries, whose entries are relocations against
// the text sections.
var ftraceSections = []string{"__mcount_loc", "__patchable_function_entries"}

// relocatedSection reports whether section name of a module is read with
// its relocations applied: the debug sections, and the ftrace tables.
func relocatedSection(name string) bool {
	return strings.HasPrefix(name, ".debug_") || slices.Contains(ftraceSections, name)
}

// moduleFtraceTable is a module's ftrace call-site table, relocated in
// place, as [start, stop) addresses; ok is false when it has none.
func (f *File) moduleFtraceTable() (start, stop uint64, ok bool) {
	for _, n := range ftraceSections {
		s := f.ELF.Section(n)
		if s == nil || s.Size == 0 || s.Size%8 != 0 {
			continue
		}
		if b, err := f.section(n); err != nil || b == nil {
			return 0, 0, false
		}
		return s.Addr, s.Addr + s.Size, true
	}
	return 0, 0, false
}

// sectionBase is the laid-out address of section i (0 for a section that
// is not allocated, and for special indexes such as SHN_ABS): what a
// section-relative st_value of a relocatable object is added to.
func (f *File) sectionBase(i elf.SectionIndex) uint64 {
	if f.ELF.Type != elf.ET_REL || i == elf.SHN_UNDEF || i >= elf.SHN_LORESERVE || int(i) >= len(f.ELF.Sections) {
		return 0
	}
	return f.ELF.Sections[i].Addr
}

// thisModuleNameOff is the offset of the name in struct module, which
// .gnu.linkonce.this_module holds; perf's find_module_name hardcodes it
// the same way (it has not moved in a long time).
func thisModuleNameOff(c elf.Class) int {
	if c == elf.ELFCLASS32 {
		return 12
	}
	return 24
}

// ModuleName is the name the kernel gives the module, which a kprobe
// definition writes as MODULE:SYMBOL+OFFS: the name in
// .gnu.linkonce.this_module as perf reads it, else .modinfo's name=, else
// the file name less its .ko (and compression) suffix, with '-' as '_'.
func (f *File) ModuleName() string {
	if b := f.allocData(".gnu.linkonce.this_module"); len(b) > thisModuleNameOff(f.ELF.Class) {
		if n := cString(b[thisModuleNameOff(f.ELF.Class):]); n != "" {
			return n
		}
	}
	for _, kv := range bytes.Split(f.allocData(".modinfo"), []byte{0}) {
		if n, ok := bytes.CutPrefix(kv, []byte("name=")); ok && len(n) > 0 {
			return string(n)
		}
	}
	return moduleFileName(f.Path)
}

// moduleFileName is the module name of a file: "overlay" for
// ".../overlay.ko.xz" (ModuleName's rule), else its base name, with '-'
// written '_' as the kernel does.
func moduleFileName(path string) string {
	if n, ok := locate.ModuleName(path); ok {
		return n
	}
	return locate.NormModuleName(filepath.Base(path))
}

// allocData is the file bytes of the binary's own section name (never the
// separate debuginfo's, whose allocated sections are empty), nil if absent.
func (f *File) allocData(name string) []byte {
	s := f.ELF.Section(name)
	if s == nil || s.Type == elf.SHT_NOBITS || s.Offset+s.FileSize > uint64(len(f.data)) {
		return nil
	}
	return f.data[s.Offset : s.Offset+s.FileSize]
}

// cString is b up to its first NUL.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
