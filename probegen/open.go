package probegen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	kbtf "github.com/dwprobe/dwprobe/dwarfres/btf"
	"github.com/dwprobe/dwprobe/dwarfres/debuginfod"
	"github.com/dwprobe/dwprobe/dwarfres/locate"
	"github.com/dwprobe/dwprobe/dwarfres/sdt"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/sources"
	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// OpenOptions name a target for Open: a user binary, a vmlinux, a kernel
// module, or (none of them) the running kernel; as dwprobe's -x, -k and
// -m do. Every field is one of dwprobe's options, and dwprobe opens every
// target through Open with them.
type OpenOptions struct {
	// Binary is a user binary (uprobes); its debuginfo is its own DWARF
	// or separate debuginfo found by build-id or debuglink. Its uprobes
	// name it by its absolute path with its symlinks resolved (under Root
	// or TargetNS: inside that root), as the kernel resolves it.
	Binary string
	// Kernel is a vmlinux; with Module, the kernel the module must be
	// built for.
	Kernel string
	// BuildID is a kernel's GNU build-id, instead of Kernel: its vmlinux
	// with debuginfo is fetched from debuginfod (Debuginfod's servers)
	// and opened as Kernel is (dwprobe's --fleet).
	BuildID string
	// Module is a kernel module: a path (it has a '/' or a module
	// suffix) or a name, found under /lib/modules of Kernel's release
	// (the running kernel's without Kernel). Its kallsyms-data rule is
	// set (dwarfres.KernelListsData) as for dwprobe's -m.
	Module string
	// BTF is a file of the kernel's BTF (a raw blob or an ELF with .BTF)
	// to resolve kernel probes from, as without debuginfo (--btf).
	BTF string
	// Root is where the target and the system's debuginfo directories are
	// looked for (perf's --symfs); "" for /.
	Root string
	// TargetNS is a process whose mount namespace Binary and its
	// debuginfo are looked up in (perf's --target-ns); 0 for none. It
	// does not go with Root.
	TargetNS int
	// DebugDirs are more directories of separate debuginfo, searched
	// first (by build-id, as /usr/lib/debug is); the directories of
	// $DWPROBE_DEBUGINFO_PATH follow them, then the system's under Root
	// and perf's build-id cache ($PERF_BUILDID_DIR, ~/.debug).
	DebugDirs []string
	// Debuginfod are the debuginfod servers asked last for debuginfo and
	// for sources; nil for those of $DEBUGINFOD_URLS (none when unset).
	// A download whose DWARF does not decode is not cached.
	Debuginfod []string
	// Progress, when set, receives debuginfod's progress lines.
	Progress io.Writer
	// Locator, when set, finds debuginfo instead of Root, DebugDirs,
	// the environment and Debuginfod (a dwarfres.Locator of its own).
	Locator *dwarfres.Locator
	// Context ends the opening, decompression, download and the
	// target's long walks; nil for none.
	Context context.Context
	// Source is the root of the target's source tree, for line listings
	// and lazy patterns (perf's --source); PrefixMaps map the paths the
	// target was built under (OLD=NEW). Without them sources are looked
	// for where debuginfo names them, then through debuginfod.
	Source     string
	PrefixMaps []string
	// NeedsDebug says the request needs a user binary's debuginfo: a
	// binary without any fails to open instead of answering from its
	// SDT notes alone (SourceSDT).
	NeedsDebug bool
	// NeedsDWARF says the request needs what only DWARF has (source
	// lines): a kernel without debuginfo fails with a *BTFError wrapping
	// ErrNeedsDWARF instead of opening its BTF.
	NeedsDWARF bool
	// NoBTF says BTF never answers: a kernel without DWARF answers from
	// its symbol table (as a user binary does), or fails.
	NoBTF bool
	// Running stands for the running kernel where Open reads it; the
	// zero value is the running kernel's own.
	Running RunningKernel
}

// RunningKernel is where Open reads the running kernel: its release, BTF,
// symbols and traceable functions. Empty fields are the running kernel's
// own (a test points them elsewhere).
type RunningKernel struct {
	// Release is the running kernel's release ("" for uname's): the
	// release a module is found and checked for, and a raw BTF blob's.
	Release string
	// BTF is the running kernel's BTF (kbtf.RunningPath), Kallsyms its
	// symbols (kbtf.KallsymsPath).
	BTF, Kallsyms string
	// Traceable returns ftrace's available_filter_functions; nil leaves
	// whether a function is traceable unknown.
	Traceable func() io.Reader
}

func (r RunningKernel) release() string {
	if r.Release != "" {
		return r.Release
	}
	return dwarfres.RunningKernel().Release
}

// ErrReleaseUnknown: a module was named without a path or a vmlinux, and
// the running kernel's release, under which it is installed, is unknown.
var ErrReleaseUnknown = errors.New("the running kernel's release is unknown")

// NamespaceError: the mount namespace of OpenOptions.TargetNS's process
// cannot be entered (no such process).
type NamespaceError struct {
	PID int
	Err error
}

func (e *NamespaceError) Error() string {
	return fmt.Sprintf("process %d's mount namespace: %v", e.PID, e.Err)
}

func (e *NamespaceError) Unwrap() error { return e.Err }

// NotFetchedError: OpenOptions.BuildID's debuginfo was not fetched: no
// debuginfod server was named (URLs is empty), or none of URLs has it.
type NotFetchedError struct {
	BuildID string
	URLs    []string
}

func (e *NotFetchedError) Error() string {
	if len(e.URLs) == 0 {
		return fmt.Sprintf("build-id %s: no debuginfod server to ask", e.BuildID)
	}
	return fmt.Sprintf("build-id %s: no debuginfod server has its debuginfo (%s)", e.BuildID, strings.Join(e.URLs, " "))
}

// BTFError: neither DWARF nor BTF answers for a kernel or module. Why is
// why DWARF does not (nil when BTF was asked for: OpenOptions.BTF), Err
// why BTF does not either: its failure to open, or ErrNeedsDWARF for a
// request that needs what BTF lacks (OpenOptions.NeedsDWARF).
type BTFError struct {
	Why, Err error
	// Symbols is set when Why is the MissingDebug of a vmlinux opened
	// for its symbols (its .BTF was to answer), not a failure to open.
	Symbols bool
}

func (e *BTFError) Error() string {
	if e.Why == nil {
		return e.Err.Error()
	}
	return fmt.Sprintf("%v; no BTF either (%v)", e.Why, e.Err)
}

func (e *BTFError) Unwrap() []error {
	if e.Why == nil {
		return []error{e.Err}
	}
	return []error{e.Why, e.Err}
}

// Open opens the target o names and chooses what answers for it, as
// dwprobe does (OpenTarget): its DWARF; its symbol table when it has
// none; a user binary's SDT notes when it has no debuginfo at all (unless
// o.NeedsDebug); for a kernel or module without debuginfo, a vmlinux with
// only symbols and .BTF, or o.BTF, the kernel's BTF (o.BTF, else the
// vmlinux's .BTF, else the running kernel's /sys/kernel/btf, with
// kallsyms). Errors are typed, never worded for a command line:
// dwarfres's (a *locate.NotFoundError when no debuginfo is found, a
// *locate.ModuleNotFoundError), ErrReleaseUnknown, *NamespaceError,
// *BTFError. Close the Target.
func Open(o OpenOptions) (*Target, error) {
	if o.Binary != "" && (o.Kernel != "" || o.Module != "" || o.BTF != "" || o.BuildID != "") {
		return nil, fmt.Errorf("%w: a user binary or a kernel, not both", grammar.ErrNotSupported)
	}
	if o.TargetNS != 0 && o.Root != "" {
		return nil, fmt.Errorf("%w: a mount namespace or a root, not both", grammar.ErrNotSupported)
	}
	if o.Context == nil {
		o.Context = context.Background()
	}
	root, err := targetRoot(o)
	if err != nil {
		return nil, err
	}
	open, exe, err := binaryPaths(o, root)
	if err != nil {
		return nil, err
	}
	dfd := debuginfodOf(o)
	if o.BuildID != "" {
		if o.Kernel, err = fetchKernel(dfd, o.BuildID); err != nil {
			return nil, err
		}
		if err := o.Context.Err(); err != nil {
			return nil, err
		}
	}
	loc := o.Locator
	if loc == nil {
		loc = newLocator(o, root, dfd)
	}
	to := TargetOptions{User: o.Binary != "", Module: o.Module != "", BTF: o.BTF != "", NoBTF: o.NoBTF, WithoutDebug: !o.NeedsDebug}
	to.Open = func() (*dwarfres.File, error) { return openWith(loc, o, open) }
	to.OpenBinary = func() (*dwarfres.File, error) { return dwarfres.Open(open) }
	t, err := OpenTarget(to)
	if err != nil {
		return nil, err
	}
	t.exe, t.dfd = exe, dfd
	if t.Source == SourceBTF {
		if err := t.openBTF(o, loc); err != nil {
			t.Close()
			return nil, err
		}
	}
	if t.sources, err = sources.New(o.Source, o.PrefixMaps); err != nil {
		t.Close()
		return nil, err
	}
	if dfd != nil && t.File != nil && t.File.BuildID() != "" {
		t.sources.Fetch = fetchSource(dfd, t.File.BuildID())
	}
	return t, nil
}

// fetchKernel fetches the vmlinux of build-id id through d: the path of
// its copy in d's cache.
func fetchKernel(d *debuginfod.Client, id string) (string, error) {
	if d == nil {
		return "", &NotFetchedError{BuildID: id}
	}
	p, found, err := d.Fetch(id, debuginfod.KindDebuginfo, "")
	switch {
	case err != nil:
		return "", err
	case !found:
		return "", &NotFetchedError{BuildID: id, URLs: d.URLs}
	}
	return p, nil
}

// targetRoot is the directory o.Binary is looked up under: o.Root (a
// copy of the target system's files), or /proc/PID/root for o.TargetNS
// (the root of PID's mount namespace, which the kernel follows into that
// namespace); "" for neither.
func targetRoot(o OpenOptions) (string, error) {
	if o.TargetNS == 0 {
		return o.Root, nil
	}
	root := "/proc/" + strconv.Itoa(o.TargetNS) + "/root"
	if _, err := os.Stat(root); err != nil {
		return "", &NamespaceError{PID: o.TargetNS, Err: err}
	}
	return root, nil
}

// binaryPaths returns where o.Binary is read (open) and the path its
// uprobes write (the one the kernel resolves when the uprobe is added).
// Without a root they are o.Binary itself and its absolute, symlink-free
// path. Under Root DIR the file is DIR/PATH and the kernel's path is PATH
// (the definition is for the system DIR is a copy of); under TargetNS
// PID the file and the kernel's path are both /proc/PID/root/PATH, which
// the kernel follows into PID's mount namespace from the writer's. PATH
// has its symlinks resolved inside the root, as the target sees them.
func binaryPaths(o OpenOptions, root string) (open, kernel string, err error) {
	if o.Binary == "" {
		return "", "", nil
	}
	abs, err := filepath.Abs(o.Binary)
	if err != nil {
		return "", "", err
	}
	if root == "" {
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
		return o.Binary, abs, nil
	}
	inner, err := locate.ResolveUnder(root, abs)
	if err != nil {
		return "", "", fmt.Errorf("%s under %s: %w", o.Binary, root, err)
	}
	if o.TargetNS != 0 {
		return root + inner, root + inner, nil
	}
	return root + inner, inner, nil
}

// newLocator is perf's debuginfo search under root: o.DebugDirs and the
// directories of $DWPROBE_DEBUGINFO_PATH first, the system's, perf's
// build-id cache, and debuginfod last, as gdb and perf ask it after the
// local places.
func newLocator(o OpenOptions, root string, d *debuginfod.Client) *dwarfres.Locator {
	dirs := slices.Clone(o.DebugDirs)
	if p := os.Getenv("DWPROBE_DEBUGINFO_PATH"); p != "" {
		dirs = append(dirs, strings.Split(p, ":")...)
	}
	loc := dwarfres.NewRootLocator(root, dirs...)
	if c := locate.PerfCacheDir(); c != "" {
		loc.Debug = append(loc.Debug, dwarfres.PerfBuildIDCache(c))
	}
	loc.Context = o.Context
	if d != nil {
		loc.Debug = append(loc.Debug, locate.Fetched{Fetcher: d})
	}
	return loc
}

// debuginfodOf is o's debuginfod client, nil when no server is named.
func debuginfodOf(o OpenOptions) *debuginfod.Client {
	d := debuginfod.FromEnv()
	if o.Debuginfod != nil {
		d = debuginfod.New(o.Debuginfod)
	}
	if d == nil || len(d.URLs) == 0 {
		return nil
	}
	d = d.WithContext(o.Context)      // a signal ends a download, nothing cached
	d.Verify = dwarfres.CheckDownload // a download whose DWARF does not decode is not cached
	d.Progress = o.Progress
	return d
}

// fetchSource is Sources.Fetch through d: a source by the binary's
// build-id; a server's failure is named among the places tried.
func fetchSource(d *debuginfod.Client, buildID string) func(string) (string, []string) {
	return func(path string) (string, []string) {
		p, found, err := d.Fetch(buildID, debuginfod.KindSource, path)
		switch {
		case err != nil:
			return "", []string{err.Error()}
		case !found:
			shown := make([]string, len(d.URLs))
			for i, u := range d.URLs {
				shown[i] = debuginfod.Redact(u)
			}
			return "", []string{fmt.Sprintf("debuginfod (%s)", strings.Join(shown, " "))}
		}
		return p, nil
	}
}

// SDTMarker is an SDT marker of a user binary's .note.stapsdt.
type SDTMarker = sdt.Marker

// SDTMarkers are the SDT markers of the target's binary, in note order
// (dwprobe --sdt); none for a kernel.
func (t *Target) SDTMarkers() ([]SDTMarker, error) {
	if t.File == nil {
		return nil, nil
	}
	return sdt.Markers(t.File.Object)
}

// IsModuleFile reports whether path names a kernel module file (.ko,
// .ko.xz, .ko.zst, .ko.gz), as perf's set_target tells a module from a
// user binary.
func IsModuleFile(path string) bool {
	_, ok := locate.ModuleName(path)
	return ok
}

// openWith opens o's target through loc; a binary is read at path.
func openWith(loc *dwarfres.Locator, o OpenOptions, path string) (*dwarfres.File, error) {
	switch {
	case o.Module != "":
		return openModule(loc, o)
	case o.Binary != "":
		return loc.OpenOrSymbols(path)
	case o.Kernel != "":
		return loc.OpenOrSymbols(o.Kernel)
	}
	return loc.OpenKernel(dwarfres.RunningKernel())
}

// openModule opens o.Module, built for o.Kernel's release when given,
// with the rule of whether its kprobes may read data symbols through
// kallsyms (dwarfres.KernelListsData).
func openModule(loc *dwarfres.Locator, o OpenOptions) (*dwarfres.File, error) {
	path, rel, err := modulePath(loc, o)
	if err != nil {
		return nil, err
	}
	f, err := loc.OpenModule(path, o.Kernel, rel)
	if err != nil {
		return nil, err
	}
	f.SetKernelData(func() bool { return dwarfres.KernelListsData(f, o.Kernel, o.Running.release()) })
	return f, nil
}

// modulePath is the file of o.Module: a path as given (it has a '/' or a
// module suffix, as perf tells them apart), else the module of that name
// installed for o.Kernel's release (the running kernel's without it),
// found as modprobe finds it; and the release it must be built for
// (o.Kernel's; "" without it).
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
		find = o.Running.release()
	}
	if find == "" {
		return "", "", fmt.Errorf("%s: %w: %w", o.Module, dwarfres.ErrModuleNotFound, ErrReleaseUnknown)
	}
	path, err = loc.FindModule(find, o.Module)
	return path, rel, err
}

// openBTF opens the kernel's BTF for t: o.BTF, the vmlinux's .BTF or the
// running kernel's; with o.Module, the module's split on it.
func (t *Target) openBTF(o OpenOptions, loc *dwarfres.Locator) error {
	if o.NeedsDWARF {
		return &BTFError{Why: t.Why, Err: ErrNeedsDWARF, Symbols: t.File != nil}
	}
	bo := kbtf.Options{BTF: o.BTF, Vmlinux: o.Kernel, Running: o.Running.BTF, Kallsyms: o.Running.Kallsyms,
		Traceable: o.Running.Traceable, Machine: tracefs.HostDialect().Machine, Release: o.Running.release()}
	if o.Module != "" {
		bo.OpenModule = func() (*kbtf.Module, error) {
			path, rel, err := modulePath(loc, o)
			if err != nil {
				return nil, err
			}
			f, err := dwarfres.OpenModuleFile(path, o.Kernel, rel)
			if err != nil {
				return nil, err
			}
			return &kbtf.Module{ELF: kbtf.ELF{Object: f.Object, Image: f.Image}, Name: f.ModuleName(), File: f}, nil
		}
	}
	k, err := kbtf.Open(bo)
	if err != nil {
		return &BTFError{Why: t.Why, Err: err, Symbols: t.File != nil}
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
	if t.File != nil && dwarfres.IndexPays(t.File, o, specs) {
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

// Exe is the path a user binary's uprobes name it by (OpenOptions.Binary);
// "" for a kernel or module.
func (t *Target) Exe() string { return t.exe }

// Sources finds the target's source files (OpenOptions.Source and
// PrefixMaps, then debuginfod by its build-id), for line listings and
// lazy patterns; Target.Resolver's options read them. nil for a Target
// not made by Open.
func (t *Target) Sources() *sources.Sources { return t.sources }

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

// Options is o as t's specs resolve with it (Resolver; AvailableVars):
// MaxProbes 0 is DefaultMaxProbes, and without source readers the
// target's Sources read lazy patterns' and listings' lines.
func (t *Target) Options(o ResolveOptions) ResolveOptions {
	if o.MaxProbes == 0 {
		o.MaxProbes = DefaultMaxProbes
	}
	if s := t.sources; s != nil && o.LazyLines == nil && o.DeclText == nil && o.LineText == nil {
		o.LazyLines, o.DeclText, o.LineText = s.LazyLines, s.DeclText, s.LineText
	}
	return o
}

// Resolver is a Resolver of specs against t with options o (MaxProbes 0
// is DefaultMaxProbes; without source readers, the target's Sources
// read lazy patterns' and listings' lines): SDT markers of a binary
// without debuginfo answer, every other spec fails with Why.
func (t *Target) Resolver(o ResolveOptions) *Resolver {
	r := &Resolver{File: t.File, Exe: t.exe, Options: t.Options(o), BTF: t.BTF()}
	if r.BTF != nil {
		// BTF answers alone, as for a BTF file (OpenOptions.BTF): a
		// stripped vmlinux's symbols place what BTF resolves.
		r.File = nil
	}
	if t.Source == SourceSDT {
		r.NoDebug = t.Why
	}
	return r
}
