package dwarfres

import (
	"bytes"
	"debug/elf"
	"path/filepath"

	"github.com/dwprobe/dwprobe/dwarfres/locate"
)

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
	if b := f.RawSection(".gnu.linkonce.this_module"); len(b) > thisModuleNameOff(f.ELF.Class) {
		if n := cString(b[thisModuleNameOff(f.ELF.Class):]); n != "" {
			return n
		}
	}
	for _, kv := range bytes.Split(f.RawSection(".modinfo"), []byte{0}) {
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

// cString is b up to its first NUL.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
