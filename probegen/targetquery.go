package probegen

import (
	"debug/elf"

	"github.com/dwprobe/dwprobe/dwarfres"
	kbtf "github.com/dwprobe/dwprobe/dwarfres/btf"
	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
	"github.com/dwprobe/dwprobe/dwarfres/locate"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/listing"
)

// Target's listings, index and facts: what dwprobe's -L, -V, -F,
// --build-index and the checks before adding kprobes ask of an opened
// target, so that a caller needs no *dwarfres.File. Each is the
// package-level call of the same name on Target.File, with the target's
// own Sources where one reads lines; on a Target without a File (the
// kernel's BTF alone) they answer as noted.

// IndexOptions are the options of a target's persistent index (UseIndex,
// BuildIndex): where it lives, the progress of a build, the note of an
// index rebuilt or not used.
type IndexOptions = dwarfres.IndexOptions

// IndexReport is what became of a target's index: loaded, built,
// rebuilt (Stale says why) or not used (Err says why).
type IndexReport = dwarfres.IndexReport

// ManySpecs is the run length (UseIndex's specs) from which building a
// target's index pays: counting the specs may stop there.
const ManySpecs = dwarfres.ManySpecs

// ListLines is ListLines on t with t's Sources (dwprobe -L).
func (t *Target) ListLines(spec string) (*listing.Listing, error) {
	return ListLines(t.File, spec, t.sources)
}

// ListLineVars is ListLineVars on t with t's Sources (dwprobe -L
// --detail).
func (t *Target) ListLineVars(spec string, vo listing.VarOptions) (*listing.Listing, error) {
	return ListLineVars(t.File, spec, t.sources, vo)
}

// AvailableVars is AvailableVars on t (dwprobe -V); o as Options makes
// it.
func (t *Target) AvailableVars(spec *grammar.Spec, o ResolveOptions, vo listing.VarOptions) ([]listing.VarList, error) {
	return AvailableVars(t.File, spec, o, vo)
}

// Functions is probegen/listing's Functions on t (dwprobe -F): from its
// DWARF, or its symbol table when it was opened for that alone.
func (t *Target) Functions(rules string) ([]string, error) {
	return listing.Functions(t.File, rules)
}

// Mapper is a probegen/listing Mapper with t's debuginfo (dwprobe -l);
// it reads t's File, so it is used before t is closed.
func (t *Target) Mapper() *listing.Mapper {
	return listing.NewMapper(t.File)
}

// NeedsDebuginfo is NeedsDebuginfo on t: a *NeedsDebuginfoError when t
// was opened for its symbol table alone; nil without a File.
func (t *Target) NeedsDebuginfo(what string) error {
	if t.File == nil {
		return nil
	}
	return NeedsDebuginfo(t.File, what)
}

// BuildIndex builds t's persistent index, or checks that the one there
// is current (dwprobe --build-index); the report says which, and why it
// failed.
func (t *Target) BuildIndex(o IndexOptions) IndexReport {
	_, r := dwarfres.EnsureIndex(t.File, o)
	return r
}

// HasFile reports whether t has its ELF file open: false for the
// kernel's BTF alone (a raw blob, or no debuginfo found for it).
func (t *Target) HasFile() bool { return t.File != nil }

// ReleasePages lets the kernel drop the pages of t's file read so far
// (dwarfres.File.ReleasePages): a long run's memory stays bounded.
func (t *Target) ReleasePages() {
	if t.File != nil {
		t.File.ReleasePages()
	}
}

// Built is what an opened kernel, module or program was built as: the
// facts the command line names in its messages and checks against the
// running kernel before it adds kprobes.
type Built struct {
	Path    string      // the file opened (a fetched copy's path)
	Machine elf.Machine // from its ELF header
	BuildID string      // its GNU build-id, "" when none
	// IsModule is set for a kernel module (a relocatable .ko); Module
	// is then its name (.gnu.linkonce.this_module, else the file's)
	// and ModuleRelease the release its vermagic names ("" when none).
	IsModule      bool
	Module        string
	ModuleRelease string
}

// Built is what t's file was built as; the zero Built without a File.
func (t *Target) Built() Built {
	return builtOf(t.File)
}

// builtOf is f's Built; the zero Built for a nil f.
func builtOf(f *dwarfres.File) Built {
	if f == nil {
		return Built{}
	}
	b := builtOfObject(f.Object)
	if b.IsModule {
		b.Module, b.ModuleRelease = f.ModuleName(), locate.VermagicRelease(f.ModInfo("vermagic"))
	}
	return b
}

// builtOfObject is o's Built, without a module's name and release.
func builtOfObject(o *elfobj.Object) Built {
	return Built{Path: o.Path, Machine: o.Machine, BuildID: o.BuildID(), IsModule: o.IsModule()}
}

// CheckRelease refuses module b when its vermagic names another release
// than release (the running kernel's), with a *dwarfres.ReleaseError
// (dwarfres.CheckRelease). A module without vermagic, or an unknown
// release, is not refused.
func (b Built) CheckRelease(release string) error {
	if b.ModuleRelease == "" || release == "" || b.ModuleRelease == release {
		return nil
	}
	return &dwarfres.ReleaseError{Module: b.Path, ModRelease: b.ModuleRelease, KernelRelease: release}
}

// RunningBuild is the running kernel's release (uname -r) and GNU
// build-id, each "" when unknown.
func RunningBuild() (release, buildID string) {
	k := dwarfres.RunningKernel()
	return k.Release, k.BuildID
}

// LoadedModuleBuildID is the GNU build-id of the module the running
// kernel loaded under name (/sys/module/NAME/notes), "" when it is not
// loaded or has none.
func LoadedModuleBuildID(name string) string {
	return dwarfres.LoadedModuleBuildID(name)
}

// BinaryBuildID is the GNU build-id of the ELF file at path, "" when it
// has none or does not open.
func BinaryBuildID(path string) string {
	f, err := dwarfres.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	return f.BuildID()
}

// BTFOrigin is where a SourceBTF target's types and symbols come from,
// for the note a caller prints, and the ELF files they came with.
type BTFOrigin struct {
	TypesPath    string // the file the vmlinux's types were read from
	TypesVmlinux bool   // they are the .BTF section of a vmlinux
	// SymsPath is the vmlinux whose symbol table answers (SymsELF) or
	// the running kernel's kallsyms (SymsKallsyms); "" for neither (a
	// raw blob, or the module's .ko answers alone).
	SymsPath     string
	SymsELF      bool
	SymsKallsyms bool
	// Assumed is set for a raw blob other than the running kernel's: it
	// names neither machine nor version, so the running kernel's
	// (Machine, Release) are taken.
	Assumed bool
	Machine elf.Machine
	Release string
	// ModuleTypes is where a module's split BTF was read: the running
	// kernel's /sys/kernel/btf/MODULE (ModuleRunning), else the .ko's
	// .BTF section; "" for the vmlinux.
	ModuleTypes   string
	ModuleRunning bool
	// Vmlinux and Module are the kernel's ELF and the module's .ko the
	// BTF came with; nil without one.
	Vmlinux, Module *Built
}

// BTFOrigin is where t's BTF comes from; false for a target BTF does
// not answer for.
func (t *Target) BTFOrigin() (BTFOrigin, bool) {
	k := t.btf
	if k == nil {
		return BTFOrigin{}, false
	}
	from := k.From
	o := BTFOrigin{
		TypesPath: from.TypesPath, TypesVmlinux: from.Types == kbtf.TypesVmlinux,
		SymsPath: from.SymsPath, SymsELF: from.Syms == kbtf.SymsELF, SymsKallsyms: from.Syms == kbtf.SymsKallsyms,
		Assumed: from.Assumed, Machine: from.Machine, Release: from.Release,
		ModuleTypes: from.ModuleTypes, ModuleRunning: from.ModuleRunning,
	}
	if k.Vmlinux != nil {
		b := builtOfObject(k.Vmlinux.Object)
		o.Vmlinux = &b
	}
	if k.ModFile != nil {
		b := builtOfObject(k.ModFile.Object)
		if f, ok := k.ModFile.File.(*dwarfres.File); ok {
			b = builtOf(f) // as Open opened it: with its name and release
		}
		o.Module = &b
	}
	return o, true
}
