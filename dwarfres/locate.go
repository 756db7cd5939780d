package dwarfres

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// A Source is one place the debuginfo of a binary may be. Each Find
// answers for the binary described by w: the path of a file to use, or ""
// and the places it looked (for the error naming every place tried). A
// build-id tree (BuildIDDir), the places of a .gnu_debuglink
// (DebugLinkDirs), perf's ~/.debug cache (PerfBuildIDCache); a debuginfod
// client fetches into a cache, then answers the cached path. An error
// wrapping ErrDebugLinkCRC is a candidate passed over: the search goes on,
// and it is returned only when nothing else is found.
type Source interface {
	Find(w Wanted) (path string, tried []string, err error)
}

// Wanted describes the binary whose debuginfo is looked for.
type Wanted struct {
	Path    string // the binary; "" for a kernel not yet found
	BuildID string // GNU build-id as hex; "" when it has none
	Release string // kernel release (uname -r), for a kernel or a module's vermagic
	Module  string // the module's name, for a kernel module
	// Link is the binary's .gnu_debuglink, nil when it has none.
	Link *DebugLink
}

// BuildIDDir is a tree of separate debuginfo files named by build-id,
// ROOT/.build-id/xx/yyyy.debug, as gdb and perf look for them.
type BuildIDDir string

// Find looks up w's build-id under the tree.
func (d BuildIDDir) Find(w Wanted) (string, []string, error) {
	if len(w.BuildID) < 3 {
		return "", nil, nil
	}
	p := string(d) + "/.build-id/" + w.BuildID[:2] + "/" + w.BuildID[2:] + ".debug"
	return firstExisting([]string{p}, exists)
}

// VmlinuxPaths is where perf looks for a kernel's vmlinux by release, in
// its order (perf's vmlinux_path), less the build-id file BuildIDDir finds;
// the system paths under Root (perf's --symfs) when set.
type VmlinuxPaths struct{ Root string }

// Find tries perf's vmlinux paths for w.Release.
func (v VmlinuxPaths) Find(w Wanted) (string, []string, error) {
	rel := w.Release
	paths := []string{"vmlinux"}
	for _, p := range []string{
		"/boot/vmlinux",
		"/boot/vmlinux-" + rel,
		"/usr/lib/debug/boot/vmlinux-" + rel,
		"/lib/modules/" + rel + "/build/vmlinux",
		"/usr/lib/debug/lib/modules/" + rel + "/vmlinux",
		"/usr/lib/debug/boot/vmlinux-" + rel + ".debug",
	} {
		paths = append(paths, (&Locator{Root: v.Root}).rooted(p))
	}
	return firstExisting(paths, isRegular)
}

// firstExisting returns the first of paths that ok accepts, and the paths
// tried up to it.
func firstExisting(paths []string, ok func(string) bool) (string, []string, error) {
	for i, p := range paths {
		if ok(p) {
			return p, paths[:i+1], nil
		}
	}
	return "", paths, nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func isRegular(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// DefaultDebugDir is where distributions install separate debuginfo.
const DefaultDebugDir = "/usr/lib/debug"

// Locator finds the debuginfo of a target: the binary itself when it has
// DWARF, else a separate debuginfo file from Debug; for the running kernel,
// first its vmlinux from Kernel; a kernel module by name (FindModule).
type Locator struct {
	// Root is perf's --symfs: the system paths looked at (perf's vmlinux
	// paths, /lib/modules, /usr/lib/debug) are taken under it.
	Root string
	// Debug are the sources of separate debuginfo, searched in order.
	Debug []Source
	// Kernel are the sources of a kernel's vmlinux, searched in order.
	Kernel []Source
}

// NewLocator is perf's search: separate debuginfo by build-id under dirs
// and then DefaultDebugDir (and a module's by its installed path, see
// ModuleDebugTree); a kernel's vmlinux at perf's paths and then by
// build-id under DefaultDebugDir; then the file a .gnu_debuglink names,
// where gdb looks for it (DebugLinkDirs); then perf's distribution paths
// (DistroDebugPaths).
func NewLocator(dirs ...string) *Locator { return NewRootLocator("", dirs...) }

// NewRootLocator is NewLocator with the system paths under root (perf's
// --symfs); dirs are taken as given.
func NewRootLocator(root string, dirs ...string) *Locator {
	l := &Locator{Root: root}
	sys := l.rooted(DefaultDebugDir)
	l.Kernel = []Source{VmlinuxPaths{Root: root}, BuildIDDir(sys)}
	for _, d := range append(dirs, sys) {
		l.Debug = append(l.Debug, BuildIDDir(d), ModuleDebugTree(d))
	}
	l.Debug = append(l.Debug, DebugLinkDirs{Global: sys, Root: root}, DistroDebugPaths{Dir: sys, Root: root})
	return l
}

// NotFoundError reports that no debuginfo was found; it wraps
// ErrNoDebugInfo. Path is the binary (empty when no vmlinux was found for
// the kernel Release) and Tried every place looked at, in order (empty
// for a stripped binary without a build-id to look by).
type NotFoundError struct {
	Path    string
	Release string
	Tried   []string
}

func (e *NotFoundError) Error() string {
	what := e.Path
	if what == "" {
		what = "kernel " + e.Release
	}
	if len(e.Tried) == 0 {
		return fmt.Sprintf("%s: %v", what, ErrNoDebugInfo)
	}
	return fmt.Sprintf("%s: %v; tried %s", what, ErrNoDebugInfo, strings.Join(e.Tried, ", "))
}

func (e *NotFoundError) Unwrap() error { return ErrNoDebugInfo }

// Open opens the binary at path with its debuginfo: its own DWARF, or a
// separate file from l.Debug attached (see attachDebug). A compressed
// binary (a .ko.xz module) is decompressed first (OpenAny). Errors wrap
// ErrNotELF, ErrCompressed, ErrNoDebugInfo (a *NotFoundError when nothing
// was found) or the file system's.
func (l *Locator) Open(path string) (*File, error) {
	return l.open(path, false)
}

// OpenOrSymbols is Open, except that a binary whose debuginfo is found
// nowhere (a *NotFoundError from Open) is opened for its symbol table
// alone, as perf probes a stripped program: MissingDebug then says where
// debuginfo was looked for. A binary without any function symbol still
// gets the *NotFoundError; a debuginfo file refused (another build-id,
// another CRC) is still an error.
func (l *Locator) OpenOrSymbols(path string) (*File, error) {
	return l.open(path, true)
}

// open is Open, and OpenOrSymbols when symbolsOnly allows a binary without
// debuginfo.
func (l *Locator) open(path string, symbolsOnly bool) (*File, error) {
	f, err := OpenAny(path)
	if err != nil {
		return nil, err
	}
	f.SetDebugDirs(l.debugDirs())
	f.altf.fetch = l.altFetch()
	if f.HasDWARF() {
		return f, nil
	}
	err = l.attach(f)
	var nf *NotFoundError
	if symbolsOnly && errors.As(err, &nf) && f.hasFuncSymbols() {
		f.missing = nf
		return f, nil
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// MissingDebug is where debuginfo was looked for when f was opened for
// its symbols alone (OpenOrSymbols); nil when f has debuginfo.
func (f *File) MissingDebug() *NotFoundError { return f.missing }

// hasFuncSymbols reports whether f defines a function symbol.
func (f *File) hasFuncSymbols() bool {
	found := false
	f.Symbols().Each(func(s Sym) {
		if s.Type == elf.STT_FUNC && s.Start != 0 {
			found = true
		}
	})
	return found
}

// attach finds and attaches separate debuginfo for f.
func (l *Locator) attach(f *File) error {
	w := Wanted{Path: f.Path, BuildID: f.BuildID()}
	if link, ok, err := f.DebugLink(); err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	} else if ok {
		w.Link = &link
	}
	if f.IsModule() {
		w.Module, w.Release = NormModuleName(f.ModuleName()), f.ModuleRelease()
	}
	p, tried, err := find(l.Debug, w)
	if err != nil {
		return err
	}
	if p == "" {
		return &NotFoundError{Path: f.Path, Tried: tried}
	}
	return f.attachDebug(p)
}

// OpenKernel opens the debuginfo of kernel k (release and build-id) found
// through l.Kernel, as perf does without -k, then as Open.
func (l *Locator) OpenKernel(k Kernel) (*File, error) {
	p, tried, err := find(l.Kernel, Wanted{BuildID: k.BuildID, Release: k.Release})
	if err != nil {
		return nil, err
	}
	if p == "" {
		return nil, &NotFoundError{Release: k.Release, Tried: tried}
	}
	return l.Open(p)
}

// find asks each source in turn and gathers every place tried. A
// candidate passed over (ErrDebugLinkCRC) does not end the search; it is
// the answer when nothing else is found.
func find(srcs []Source, w Wanted) (string, []string, error) {
	var all []string
	var passed error
	for _, s := range srcs {
		p, tried, err := s.Find(w)
		all = append(all, tried...)
		if err != nil && errors.Is(err, ErrDebugLinkCRC) {
			if passed == nil {
				passed = err
			}
			continue
		}
		if err != nil || p != "" {
			return p, all, err
		}
	}
	return "", all, passed
}

// Kernel identifies a kernel build.
type Kernel struct {
	Release string // uname -r
	BuildID string // GNU build-id as hex, "" when unknown
}

// RunningKernel reads the running kernel's release from
// /proc/sys/kernel/osrelease and its build-id from /sys/kernel/notes
// (the kernel's own ELF notes, in the host's byte order). What cannot be
// read is left empty.
func RunningKernel() Kernel {
	var k Kernel
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		k.Release = strings.TrimSpace(string(b))
	}
	if notes, err := os.ReadFile("/sys/kernel/notes"); err == nil {
		k.BuildID = elfobj.BuildIDNote(notes, binary.NativeEndian)
	}
	return k
}

// OpenModule opens the kernel module at path as Open does, and refuses it
// with a *ReleaseError, before looking for its debuginfo, when its
// vermagic names another release than release (that of kernel, a vmlinux
// path, "" for the running kernel; release "" checks nothing). A file
// that is no relocatable object is refused with ErrNotELF.
func (l *Locator) OpenModule(path, kernel, release string) (*File, error) {
	f, err := OpenModuleFile(path, kernel, release)
	if err != nil {
		return nil, err
	}
	if !f.HasDWARF() {
		if err := l.attach(f); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// OpenModuleFile opens the kernel module at path as it is, without
// looking for its debuginfo (for its symbols and .BTF), refusing a file
// that is not a relocatable object or a module built for another
// release than release (CheckRelease).
func OpenModuleFile(path, kernel, release string) (*File, error) {
	f, err := OpenAny(path)
	if err != nil {
		return nil, err
	}
	if !f.IsModule() {
		f.Close()
		return nil, fmt.Errorf("%s: %w: not a kernel module (ELF type %v, not a relocatable object)", path, ErrNotELF, f.ELF.Type)
	}
	if err := CheckRelease(f, kernel, release); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
