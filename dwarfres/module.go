package dwarfres

import (
	"bufio"
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

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

// moduleFtraceTable is a module's ftrace call-site table, relocated in
// place, as [start, stop) addresses; ok is false when it has none.
func (f *File) moduleFtraceTable() (start, stop uint64, ok bool) {
	for _, n := range elfobj.FtraceSections {
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
	if n, ok := ModuleName(path); ok {
		return n
	}
	return NormModuleName(filepath.Base(path))
}

// cString is b up to its first NUL.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
