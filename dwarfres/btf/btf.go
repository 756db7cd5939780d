package btf

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	ebtf "github.com/cilium/ebpf/btf"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
	"github.com/dwprobe/dwprobe/dwarfres/elfsym"
)

// ErrNoBTF: the input carries no BTF (an ELF without a .BTF section), or
// the BTF could not be decoded (the error says which).
var ErrNoBTF = errors.New("no BTF")

// RunningPath is where the running kernel exposes its BTF; the BTF of a
// loaded module is the file of its name in the same directory, split BTF
// on the vmlinux's (RunningModulePath).
const RunningPath = "/sys/kernel/btf/vmlinux"

// RunningModulePath is where the running kernel whose BTF is at running
// (RunningPath, or a stand-in for it) exposes the BTF of its loaded
// module name.
func RunningModulePath(running, name string) string {
	return filepath.Join(filepath.Dir(running), name)
}

// Types is a kernel's type information from BTF, parsed by cilium/ebpf/btf,
// with what the input says of the kernel it describes. A raw blob says
// neither machine nor version: they are 0 then, and the caller decides.
type Types struct {
	Spec         *ebtf.Spec
	Path         string      // where the types came from, for messages
	Machine      elf.Machine // the ELF's machine; elf.EM_NONE for a raw blob
	Major, Minor int         // the kernel's version; 0, 0 when unknown

	funcs map[string][]*ebtf.Func // every FUNC by name, built once
	names []string                // funcs' keys, sorted
}

// Load reads path: an ELF with a .BTF section (a vmlinux, stripped or
// not: its machine and linux_banner's version are kept) or a raw BTF
// blob (/sys/kernel/btf/vmlinux). Errors wrap ErrNoBTF, elfobj.ErrNotELF
// or the file system's.
func Load(path string) (*Types, error) {
	if isELF(path) {
		// Mapped: a vmlinux with DWARF is hundreds of megabytes, .BTF a few.
		f, err := OpenELF(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return FromFile(*f)
	}
	data, err := elfobj.ReadRegular(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

// isELF reports whether path starts with the ELF magic.
func isELF(path string) bool {
	fh, err := elfobj.OpenRegular(path)
	if err != nil {
		return false
	}
	defer fh.Close()
	magic := make([]byte, len(elf.ELFMAG))
	_, err = io.ReadFull(fh, magic)
	return err == nil && string(magic) == elf.ELFMAG
}

// ELF is a kernel's or module's ELF file as this package reads it: its
// sections, code, path and machine (Object) and its symbols (Image), the
// two halves of a *dwarfres.File (ELF{f.Object, f.Image}); OpenELF
// opens one.
type ELF struct {
	*elfobj.Object
	*elfsym.Image
}

// OpenELF maps path as an ELF file with its own symbol table.
// Errors wrap elfobj.ErrNotELF or elfobj.ErrMalformed.
func OpenELF(path string) (*ELF, error) {
	o, err := elfobj.Open(path)
	if err != nil {
		return nil, err
	}
	return &ELF{Object: o, Image: elfsym.NewImage(o, nil)}, nil
}

// FromFile reads f's .BTF section, with f's machine and kernel version.
// Errors wrap ErrNoBTF.
func FromFile(f ELF) (*Types, error) {
	raw, err := f.Section(".BTF")
	if err != nil || len(raw) == 0 {
		return nil, fmt.Errorf("%s: %w (no .BTF section)", f.Path, ErrNoBTF)
	}
	// A copy: the decoder keeps the bytes, and f's mapping may go first.
	b, err := Parse(bytes.Clone(raw), f.Path)
	if err != nil {
		return nil, err
	}
	b.Machine = f.Machine
	b.Major, b.Minor, _ = f.KernelVersion()
	return b, nil
}

// Parse decodes a raw BTF blob (not an ELF) named name in messages. It
// never panics: cilium/ebpf decodes types lazily and some hostile inputs
// panic inside it, so every type is decoded here once, under recover, and
// the functions indexed. Errors wrap ErrNoBTF.
func Parse(raw []byte, name string) (b *Types, err error) {
	defer elfobj.GuardWith(&err, malformed(name))
	spec, err := ebtf.LoadSpecFromReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", name, ErrNoBTF, err)
	}
	return indexBTF(spec, name)
}

// ParseSplit decodes a module's split BTF (/sys/kernel/btf/MODULE) on
// base, its kernel's; the result has base's machine and version and finds
// the module's functions only.
func ParseSplit(raw []byte, base *Types, name string) (b *Types, err error) {
	defer elfobj.GuardWith(&err, malformed(name))
	spec, err := ebtf.LoadSplitSpecFromReader(bytes.NewReader(raw), base.Spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", name, ErrNoBTF, err)
	}
	if b, err = indexBTF(spec, name); err != nil {
		return nil, err
	}
	b.Machine, b.Major, b.Minor = base.Machine, base.Major, base.Minor
	return b, nil
}

// SplitFromFile reads the .BTF section of f, a kernel module, as split
// BTF on base, its kernel's; the result has f's machine. Errors wrap
// ErrNoBTF.
func SplitFromFile(f ELF, base *Types) (*Types, error) {
	raw, err := f.Section(".BTF")
	if err != nil || len(raw) == 0 {
		return nil, fmt.Errorf("%s: %w (no .BTF section)", f.Path, ErrNoBTF)
	}
	b, err := ParseSplit(bytes.Clone(raw), base, f.Path)
	if err != nil {
		return nil, err
	}
	b.Machine = f.Machine
	return b, nil
}

// malformed words a panic of the BTF decoder on name as an error.
func malformed(name string) func(r any) error {
	return func(r any) error { return fmt.Errorf("%s: %w: malformed BTF (%v)", name, ErrNoBTF, r) }
}

// indexBTF decodes every type of spec, so that later walks of the types
// (members, pointers) read decoded Go values only, and indexes the FUNCs.
func indexBTF(spec *ebtf.Spec, name string) (*Types, error) {
	b := &Types{Spec: spec, Path: name, funcs: map[string][]*ebtf.Func{}}
	for t, err := range spec.All() {
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %v", name, ErrNoBTF, err)
		}
		fn, ok := t.(*ebtf.Func)
		if !ok || fn.Name == "" {
			continue
		}
		if _, ok := fn.Type.(*ebtf.FuncProto); !ok {
			return nil, fmt.Errorf("%s: %w: function %s has no prototype", name, ErrNoBTF, fn.Name)
		}
		if len(b.funcs[fn.Name]) == 0 {
			b.names = append(b.names, fn.Name)
		}
		b.funcs[fn.Name] = append(b.funcs[fn.Name], fn)
	}
	sort.Strings(b.names)
	return b, nil
}

// Funcs returns the FUNC entries named name: several for static
// functions of one name in different files whose prototypes differ.
func (b *Types) Funcs(name string) []*ebtf.Func { return b.funcs[name] }

// FuncNames returns the name of every function BTF describes, sorted,
// each once.
func (b *Types) FuncNames() []string { return b.names }

// ParseRelease reads MAJOR.MINOR from a kernel release ("6.18.44-fc").
func ParseRelease(rel string) (major, minor int, ok bool) {
	majS, rest, found := strings.Cut(rel, ".")
	if !found {
		return 0, 0, false
	}
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	maj, err1 := strconv.Atoi(majS)
	mnr, err2 := strconv.Atoi(rest[:end])
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return maj, mnr, true
}
