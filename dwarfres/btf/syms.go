package btf

import (
	"bufio"
	"debug/elf"
	"io"
	"slices"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres/elfsym"
)

// The symbols a probe from BTF needs besides BTF: is the function's name
// unique, where is each copy (for _text+OFFS), is it traceable. From a
// vmlinux's symbol table (ELFSyms) offline, or from the running kernel's
// /proc/kallsyms and ftrace's available_filter_functions (Kallsyms) when
// there is no vmlinux at all.

// Symbols is what a probe from BTF asks of the kernel's function
// symbols: the vmlinux's symbol table (ELFSyms), or the running kernel's
// kallsyms and ftrace list (Kallsyms).
type Symbols interface {
	// FuncSyms returns the text symbols named name, one per address,
	// in address order.
	FuncSyms(name string) []elfsym.Sym
	// Text returns the address of _text, for _text+OFFS targets.
	Text() (uint64, bool)
	// Notrace reports whether s has no ftrace call site; known is false
	// when that cannot be told.
	Notrace(s elfsym.Sym) (notrace, known bool)
	// Code returns the first n bytes of s's code; false when the code
	// is not at hand (the running kernel's).
	Code(s elfsym.Sym, n int) ([]byte, bool)
}

// ELFSyms answers from a vmlinux's (or a module's) symbol table and
// ftrace table, as the DWARF path does.
type ELFSyms struct{ F ELF }

// FuncSyms returns the function symbols named name, one per address:
// those of perf's kernel map (.text), else the one symbol of the name
// elsewhere (an __init function in .init.text, which the map leaves out).
func (k ELFSyms) FuncSyms(name string) []elfsym.Sym {
	var out []elfsym.Sym
	for _, s := range k.F.Symbols().Lookup(name) {
		if s.Type == elf.STT_FUNC && !slices.ContainsFunc(out, func(o elfsym.Sym) bool { return o.Start == s.Start }) {
			out = append(out, s)
		}
	}
	if addr, ok := k.F.SymbolAddr(name); ok && len(out) == 0 {
		out = append(out, elfsym.Sym{Name: name, Start: addr, Type: elf.STT_FUNC, Section: k.F.SectionName(addr)})
	}
	return out
}

// Text returns _text's address.
func (k ELFSyms) Text() (uint64, bool) {
	st := k.F.Symbols()
	return st.Text, st.HasText
}

// UniqueBefore is the nearest symbol before addr whose name is unique,
// to name one copy of a module's function of several copies.
func (k ELFSyms) UniqueBefore(addr uint64) (elfsym.Sym, bool) {
	return k.F.Symbols().UniqueBefore(addr)
}

// Notrace is elfsym.Image.Notrace at the symbol's start.
func (k ELFSyms) Notrace(s elfsym.Sym) (bool, bool) { return k.F.Notrace(s.Start) }

// Code returns the first n bytes of s's code.
func (k ELFSyms) Code(s elfsym.Sym, n int) ([]byte, bool) {
	b, err := k.F.Bytes(s.Start, uint64(n))
	return b, err == nil
}

// Kallsyms is the running kernel's text symbols (vmlinux's, not
// modules') and, when ftrace's list could be read, its traceable
// functions.
type Kallsyms struct {
	byName    map[string][]elfsym.Sym
	text      uint64
	hasText   bool
	traceable map[string]bool // nil when unknown
}

// ParseKallsyms reads /proc/kallsyms ("ADDR TYPE NAME [MODULE]") and, if
// filter is not nil, available_filter_functions ("NAME [MODULE]", one a
// line). Addresses read as zero (kptr_restrict, not root) leave _text
// unknown: a name that is not unique then cannot be probed by address.
func ParseKallsyms(kallsyms, filter io.Reader) (*Kallsyms, error) {
	k := &Kallsyms{byName: map[string][]elfsym.Sym{}}
	err := elfsym.ReadKallsyms(kallsyms, func(s elfsym.Kallsym) bool {
		if s.Module != "" || s.Type != 't' && s.Type != 'T' && s.Name != "_text" {
			return true // a module's symbol, or not text
		}
		if s.Name == "_text" && s.Addr != 0 {
			k.text, k.hasText = s.Addr, true
		}
		if !slices.ContainsFunc(k.byName[s.Name], func(o elfsym.Sym) bool { return o.Start == s.Addr && s.Addr != 0 }) {
			k.byName[s.Name] = append(k.byName[s.Name], elfsym.Sym{Name: s.Name, Start: s.Addr, Type: elf.STT_FUNC})
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if filter == nil {
		return k, nil
	}
	k.traceable = map[string]bool{}
	sc := bufio.NewScanner(filter)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 1 {
			k.traceable[f[0]] = true
		}
	}
	return k, sc.Err()
}

// FuncSyms returns the text symbols named name.
func (k *Kallsyms) FuncSyms(name string) []elfsym.Sym { return k.byName[name] }

// Text returns _text's address, unknown when kallsyms hides addresses.
func (k *Kallsyms) Text() (uint64, bool) { return k.text, k.hasText }

// Code is unknown: the running kernel's text is not read.
func (k *Kallsyms) Code(elfsym.Sym, int) ([]byte, bool) { return nil, false }

// Notrace reports a function ftrace does not list as traceable: by name,
// so a name of several copies is traceable if one is.
func (k *Kallsyms) Notrace(s elfsym.Sym) (bool, bool) {
	if k.traceable == nil {
		return false, false
	}
	return !k.traceable[s.Name], true
}
