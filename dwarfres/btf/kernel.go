package btf

import (
	"debug/elf"
	"io"
	"os"

	"github.com/dwprobe/dwprobe/dwarfres/elfsym"
)

// KallsymsPath is the running kernel's symbol list.
const KallsymsPath = elfsym.KallsymsPath

// Options says which kernel Open reads. The zero value is the running
// kernel from its own BTF and kallsyms.
type Options struct {
	// BTF is a file of types: an ELF with .BTF (its symbols, machine and
	// version come too, unless Vmlinux gives them) or a raw blob. "" for
	// Vmlinux's .BTF, or the running kernel's without Vmlinux.
	BTF string
	// Vmlinux is the kernel's ELF: its symbols, machine and version, and
	// its .BTF when BTF is "".
	Vmlinux string
	// Running stands for RunningPath ("" for it): the running kernel's
	// BTF, beside which its modules' split BTF is.
	Running string
	// Kallsyms stands for KallsymsPath ("" for it).
	Kallsyms string
	// Traceable returns ftrace's available_filter_functions, read with
	// kallsyms for the running kernel; nil (or a nil reader) leaves
	// whether a function is traceable unknown.
	Traceable func() io.Reader
	// Machine and Release are the running kernel's, taken for a raw blob
	// which names neither (the caller knows them: tracefs.HostDialect);
	// EM_NONE leaves the machine unknown, "" the version.
	Machine elf.Machine
	Release string
	// OpenModule opens the kernel module to probe (found and checked by
	// the caller), whose BTF is split on the kernel's; nil for the
	// vmlinux. It is called once the kernel's types are read.
	OpenModule func() (*Module, error)
}

// Module is a kernel module the caller opened (Options.OpenModule): its
// ELF (a *dwarfres.File's halves), the name the kernel gives it, and the
// file closed with the Kernel.
type Module struct {
	ELF
	Name string
	File io.Closer
}

// Kernel is a kernel, or one of its modules, opened for probes from BTF:
// its types, the symbols that place them, and where each comes from.
type Kernel struct {
	Types   *Types
	Machine elf.Machine
	// Major, Minor is the kernel's version; 0, 0 when unknown.
	Major, Minor int
	// Syms is nil when no symbol table is known (a raw blob offline).
	Syms Symbols
	// Module is the name of the module Types and Syms describe; "" for
	// the vmlinux.
	Module string
	// Vmlinux is the kernel's ELF (Options.Vmlinux, or Options.BTF when
	// that is an ELF), nil without one; ModFile is the module's .ko.
	Vmlinux *ELF
	ModFile *Module
	// From says where the types and symbols come from.
	From Source
}

// TypesFrom is which BTF a Kernel's vmlinux types are.
type TypesFrom int

const (
	TypesFile    TypesFrom = iota // Options.BTF's file
	TypesVmlinux                  // the .BTF section of Options.Vmlinux
	TypesRunning                  // the running kernel's (Options.Running)
)

// SymsFrom is which symbols answer for a Kernel's vmlinux.
type SymsFrom int

const (
	// SymsNone: none, a raw blob (or the module's .ko answers alone).
	SymsNone SymsFrom = iota
	// SymsELF: the vmlinux's symbol table.
	SymsELF
	// SymsKallsyms: the running kernel's kallsyms (and ftrace's list).
	SymsKallsyms
)

// Source is where a Kernel's types and symbols come from, for a note.
type Source struct {
	Types     TypesFrom
	TypesPath string // the file the vmlinux's types were read from
	Syms      SymsFrom
	SymsPath  string // the vmlinux or kallsyms; "" for SymsNone
	// Assumed is set for a raw blob other than the running kernel's: it
	// names neither machine nor version, so the running kernel's
	// (Machine, Release) are taken.
	Assumed bool
	Machine elf.Machine
	Release string
	// ModuleTypes is where the module's split BTF was read: the running
	// kernel's /sys/kernel/btf/MODULE (ModuleRunning), else the .ko's
	// .BTF section; "" for the vmlinux.
	ModuleTypes   string
	ModuleRunning bool
}

// Close closes the files k holds.
func (k *Kernel) Close() {
	if k.Vmlinux != nil {
		k.Vmlinux.Close()
	}
	if k.ModFile != nil {
		k.ModFile.File.Close()
	}
}

// Open reads the kernel o names from BTF: o.BTF's types (an ELF with
// .BTF, or a raw blob; o.Vmlinux then gives the symbols, machine and
// version), o.Vmlinux's own .BTF, or the running kernel's. A raw blob
// other than the running kernel's says neither machine nor version: the
// running kernel's are taken, and its symbols are not. With o.OpenModule
// the result is the module's: its BTF split on the kernel's, its .ko's
// symbols and machine. Errors wrap ErrNoBTF, or are elfobj's, the file
// system's or OpenModule's.
func Open(o Options) (*Kernel, error) {
	if o.Running == "" {
		o.Running = RunningPath
	}
	if o.Kallsyms == "" {
		o.Kallsyms = KallsymsPath
	}
	k := &Kernel{}
	if err := k.open(&o); err != nil {
		k.Close()
		return nil, err
	}
	return k, nil
}

func (k *Kernel) open(o *Options) error {
	var err error
	if o.Vmlinux != "" {
		if k.Vmlinux, err = OpenELF(o.Vmlinux); err != nil {
			return err
		}
	}
	if k.Types, err = k.loadTypes(o); err != nil {
		return err
	}
	k.Machine, k.Major, k.Minor = k.Types.Machine, k.Types.Major, k.Types.Minor
	switch {
	case k.Vmlinux != nil:
		k.Machine = k.Vmlinux.Machine
		k.Major, k.Minor, _ = k.Vmlinux.KernelVersion()
		k.Syms = ELFSyms{F: *k.Vmlinux}
		k.From.Syms, k.From.SymsPath = SymsELF, k.Vmlinux.Path
	case k.Types.Machine == elf.EM_NONE:
		if err := k.rawBlob(o); err != nil {
			return err
		}
	}
	if o.OpenModule != nil {
		return k.openModule(o)
	}
	return nil
}

// loadTypes reads the BTF o names: o.BTF's file, o.Vmlinux's .BTF or the
// running kernel's.
func (k *Kernel) loadTypes(o *Options) (*Types, error) {
	switch {
	case o.BTF != "":
		k.From.Types, k.From.TypesPath = TypesFile, o.BTF
		b, err := Load(o.BTF)
		if err == nil && k.Vmlinux == nil && b.Machine != elf.EM_NONE {
			// An ELF with .BTF: its symbols too.
			k.Vmlinux, err = OpenELF(o.BTF)
		}
		return b, err
	case k.Vmlinux != nil:
		k.From.Types, k.From.TypesPath = TypesVmlinux, k.Vmlinux.Path
		return FromFile(*k.Vmlinux)
	}
	k.From.Types, k.From.TypesPath = TypesRunning, o.Running
	return Load(o.Running)
}

// rawBlob completes a kernel known from a raw blob alone: the running
// kernel's machine and version; its symbols when the blob is the running
// kernel's own and no module's .ko answers instead.
func (k *Kernel) rawBlob(o *Options) error {
	k.Machine = o.Machine
	k.Major, k.Minor, _ = ParseRelease(o.Release)
	switch {
	case sameFile(k.Types.Path, o.Running) && o.OpenModule != nil:
		// The module's own symbols answer (openModule).
	case sameFile(k.Types.Path, o.Running):
		syms, err := runningSyms(o)
		if err != nil {
			return err
		}
		k.Syms = syms
		k.From.Syms, k.From.SymsPath = SymsKallsyms, o.Kallsyms
	default:
		k.From.Assumed, k.From.Machine, k.From.Release = true, k.Machine, o.Release
	}
	return nil
}

// openModule turns k, the kernel's, into o.OpenModule's module's: its
// BTF split on the kernel's, its .ko's symbols and machine.
func (k *Kernel) openModule(o *Options) error {
	var err error
	if k.ModFile, err = o.OpenModule(); err != nil {
		return err
	}
	if k.Types, err = k.moduleTypes(o, k.Types); err != nil {
		return err
	}
	k.Syms, k.Machine, k.Module = ELFSyms{F: k.ModFile.ELF}, k.ModFile.Machine, k.ModFile.Name
	return nil
}

// moduleTypes reads the module's BTF, split on base: the running kernel's
// /sys/kernel/btf/MODULE when base is the running kernel's and it has
// loaded the module, else the .ko's .BTF.
func (k *Kernel) moduleTypes(o *Options, base *Types) (*Types, error) {
	if sameFile(base.Path, o.Running) {
		p := RunningModulePath(o.Running, k.ModFile.Name)
		if raw, err := os.ReadFile(p); err == nil {
			k.From.ModuleTypes, k.From.ModuleRunning = p, true
			return ParseSplit(raw, base, p)
		}
	}
	k.From.ModuleTypes = k.ModFile.Path
	return SplitFromFile(k.ModFile.ELF, base)
}

// runningSyms reads the running kernel's kallsyms and, when o can give
// it, ftrace's list of traceable functions.
func runningSyms(o *Options) (*Kallsyms, error) {
	ks, err := os.Open(o.Kallsyms)
	if err != nil {
		return nil, err
	}
	defer ks.Close()
	var filter io.Reader
	if o.Traceable != nil {
		filter = o.Traceable()
	}
	return ParseKallsyms(ks, filter)
}

// sameFile reports whether a and b are one file.
func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
