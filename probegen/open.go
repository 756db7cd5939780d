package probegen

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/dwprobe/dwprobe/dwarfres"
	kbtf "github.com/dwprobe/dwprobe/dwarfres/btf"
	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
	"github.com/dwprobe/dwprobe/dwarfres/locate"
	"github.com/dwprobe/dwprobe/probegen/arch"
)

// OpenOptions name a target for Open: a user binary, a vmlinux, a kernel
// module, or (none of them) the running kernel; as dwprobe's -x, -k and
// -m do.
type OpenOptions struct {
	// Binary is a user binary (uprobes); its debuginfo is its own DWARF
	// or separate debuginfo found by build-id or debuglink.
	Binary string
	// Kernel is a vmlinux; with Module, the kernel the module must be
	// built for.
	Kernel string
	// Module is a kernel module: a path (it has a '/' or a module
	// suffix) or a name, found under /lib/modules of Kernel's release
	// (the running kernel's without Kernel).
	Module string
	// Root is where the system's debuginfo directories are looked for
	// (perf's --symfs); "" for /.
	Root string
	// DebugDirs are more directories of separate debuginfo, searched
	// first (by build-id, as /usr/lib/debug is).
	DebugDirs []string
	// Locator, when set, finds debuginfo instead of Root and DebugDirs
	// (a dwarfres.Locator with debuginfod, say).
	Locator *dwarfres.Locator
}

// Open opens the target o names and chooses what answers for it, as
// dwprobe does (OpenTarget): its DWARF; its symbol table when it has
// none; a user binary's SDT notes when it has no debuginfo at all; for a
// kernel or module without debuginfo, or a vmlinux with only symbols and
// .BTF, the kernel's BTF (the vmlinux's .BTF, else the running kernel's
// /sys/kernel/btf, with kallsyms). The errors are dwprobe's: a kernel
// with neither debuginfo nor BTF wraps dwarfres.ErrNoDebugInfo. Close the
// Target.
func Open(o OpenOptions) (*Target, error) {
	if o.Binary != "" && (o.Kernel != "" || o.Module != "") {
		return nil, fmt.Errorf("%w: a user binary or a kernel, not both", ErrNotSupported)
	}
	loc := o.Locator
	if loc == nil {
		loc = dwarfres.NewRootLocator(o.Root, o.DebugDirs...)
	}
	to := TargetOptions{User: o.Binary != "", Module: o.Module != "", WithoutDebug: true}
	to.Open = func() (*dwarfres.File, error) { return openWith(loc, o) }
	to.OpenBinary = func() (*dwarfres.File, error) { return dwarfres.Open(o.Binary) }
	t, err := OpenTarget(to)
	if err != nil {
		return nil, err
	}
	if t.Source == SourceBTF {
		if err := t.openBTF(o); err != nil {
			t.Close()
			return nil, err
		}
	}
	if o.Binary != "" {
		if t.exe, err = filepath.Abs(o.Binary); err != nil {
			t.Close()
			return nil, err
		}
	}
	return t, nil
}

// openWith opens o's target through loc.
func openWith(loc *dwarfres.Locator, o OpenOptions) (*dwarfres.File, error) {
	switch {
	case o.Module != "":
		return openModule(loc, o)
	case o.Binary != "":
		return loc.OpenOrSymbols(o.Binary)
	case o.Kernel != "":
		return loc.OpenOrSymbols(o.Kernel)
	}
	return loc.OpenKernel(dwarfres.RunningKernel())
}

// openModule opens o.Module, built for o.Kernel's release when given.
func openModule(loc *dwarfres.Locator, o OpenOptions) (*dwarfres.File, error) {
	path, rel, err := modulePath(loc, o)
	if err != nil {
		return nil, err
	}
	return loc.OpenModule(path, o.Kernel, rel)
}

// modulePath is the file of o.Module, and the release it must be built
// for (o.Kernel's; "" without it).
func modulePath(loc *dwarfres.Locator, o OpenOptions) (path, rel string, err error) {
	if o.Kernel != "" {
		if rel, err = dwarfres.VmlinuxRelease(o.Kernel); err != nil {
			return "", "", err
		}
	}
	if locate.IsModulePath(o.Module) {
		return o.Module, rel, nil
	}
	find := rel
	if find == "" {
		find = dwarfres.RunningKernel().Release
	}
	path, err = loc.FindModule(find, o.Module)
	return path, rel, err
}

// openBTF opens the kernel's BTF for t, as dwprobe does without --btf.
func (t *Target) openBTF(o OpenOptions) error {
	bo := kbtf.Options{Vmlinux: o.Kernel, Release: dwarfres.RunningKernel().Release}
	if o.Module != "" {
		bo.OpenModule = func() (*dwarfres.File, error) {
			loc := o.Locator
			if loc == nil {
				loc = dwarfres.NewRootLocator(o.Root, o.DebugDirs...)
			}
			path, rel, err := modulePath(loc, o)
			if err != nil {
				return nil, err
			}
			return dwarfres.OpenModuleFile(path, o.Kernel, rel)
		}
	}
	k, err := kbtf.Open(bo)
	if err != nil {
		return err
	}
	t.btf = k
	return nil
}

// UseIndex lets a run of specs (how many it will resolve; counting
// stops at dwarfres.ManySpecs) use the target's persistent index as
// dwprobe does: when it exists, when the run is long enough to pay for
// building it, or on the target's second run; else the first run scans
// and leaves a marker. Answers are the same either way.
func (t *Target) UseIndex(o dwarfres.IndexOptions, specs int) {
	if t.File != nil && t.File.IndexPays(o, specs) {
		t.File.UseIndex(o)
	}
}

// BTF is the kernel's BTF answering for a SourceBTF target; nil for
// another source.
func (t *Target) BTF() *BTFTarget {
	if t.btf == nil {
		return nil
	}
	return BTFTargetOf(t.btf)
}

// Arch is the machine the target's code runs on, from its ELF header,
// never this host's: what ebpfprobe.Generate and Trace take beside its
// probes. false where the target has no ELF file (a raw BTF blob) or
// its machine has no model.
func (t *Target) Arch() (*arch.Arch, bool) {
	if t.File == nil || t.File.ELF == nil {
		return nil, false
	}
	return arch.For(t.File.ELF.Machine)
}

// Close closes the target's files.
func (t *Target) Close() error {
	if t == nil {
		return nil
	}
	if t.btf != nil {
		t.btf.Close()
	}
	if t.File == nil {
		return nil
	}
	return t.File.Close()
}

// DefaultMaxProbes is perf's MAX_PROBES, the default of --max-probes:
// how many points one spec may resolve to.
const DefaultMaxProbes = 128

// Resolver is a Resolver of specs against t with options o (MaxProbes 0
// is DefaultMaxProbes; without LazyLines, a lazy pattern reads the
// sources where the debuginfo says they were built): SDT markers of a binary without debuginfo answer,
// every other spec fails with Why.
func (t *Target) Resolver(o ResolveOptions) *Resolver {
	if o.MaxProbes == 0 {
		o.MaxProbes = DefaultMaxProbes
	}
	if o.LazyLines == nil {
		// Lazy patterns read the sources where the debuginfo says they
		// were built (DW_AT_comp_dir), then from the current directory.
		o.LazyLines = (&Sources{}).LazyLines
	}
	r := &Resolver{File: t.File, Exe: t.exe, Options: o, BTF: t.BTF()}
	if t.Source == SourceSDT {
		r.NoDebug = t.Why
	}
	return r
}

// SpecResult is one spec of a batch, resolved or not.
type SpecResult struct {
	Spec string
	// Resolution is the spec's answer; nil when Err is set.
	Resolution *Resolution
	// Err is why the spec does not resolve.
	Err *SpecError
}

// SpecError is a spec that did not resolve: the spec, the 1-based byte
// column of what was wrong (0 when the error names no place in it) and
// the error.
type SpecError struct {
	Spec string
	Col  int
	Err  error
}

// Error is the error's: every error of a spec names it.
func (e *SpecError) Error() string { return e.Err.Error() }

func (e *SpecError) Unwrap() error { return e.Err }

// ResolveAll resolves every spec; a spec that fails does not stop the
// others (its SpecResult.Err says why). errors.Join of the failures is
// FirstError's business, for a caller that wants all or nothing. Against
// debuginfo, specs resolve on every core at once (they are independent);
// the results keep the specs' order.
func (r *Resolver) ResolveAll(specs []string) []SpecResult {
	out := make([]SpecResult, len(specs))
	one := func(i int) {
		s := specs[i]
		out[i].Spec = s
		_, res, err := r.resolveGuarded(s)
		if err != nil {
			out[i].Err = &SpecError{Spec: s, Col: errorColumn(err), Err: err}
			return
		}
		out[i].Resolution = res
	}
	n := BatchWorkers()
	if r.BTF != nil || r.File == nil {
		n = 1 // BTF's types are not read from several goroutines
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, len(specs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(specs); i = int(next.Add(1) - 1) {
				one(i)
			}
		}()
	}
	wg.Wait()
	return out
}

// BatchWorkers is how many specs a batch resolves at once (ResolveAll,
// dwprobe's spec files): one per core, up to 8. Each spec's own decoding
// already spreads over the cores (units decoded ahead), so more specs at
// once would only multiply the units held in flight.
func BatchWorkers() int { return min(runtime.NumCPU(), 8) }

// resolveGuarded is Resolve on a goroutine of ResolveAll's: a fault
// reading a mapped input (a file truncated under the run) is the spec's
// error, as on a goroutine the caller guarded; any other panic goes on.
func (r *Resolver) resolveGuarded(raw string) (spec *Spec, res *Resolution, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer elfobj.GuardFault(&err)
	return r.Resolve(raw)
}

// FirstError is the first failure of a batch, nil if every spec resolved.
func FirstError(rs []SpecResult) error {
	for _, r := range rs {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
}

// errorColumn is the column a spec's error points at, 0 if none.
func errorColumn(err error) int {
	var se *SyntaxError
	if errors.As(err, &se) {
		return se.Col
	}
	return 0
}
