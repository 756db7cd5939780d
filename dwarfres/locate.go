package dwarfres

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
	"github.com/dwprobe/dwprobe/dwarfres/locate"
)

// Locator opens a target with its debuginfo: the binary itself when it
// has DWARF, else the separate debuginfo file the embedded locate.Locator
// finds (its Debug sources); for the running kernel, first its vmlinux
// (its Kernel sources). Finding is locate's; opening is here.
type Locator struct {
	locate.Locator
	// Context, when set, interrupts decompressing the files opened and
	// their long walks (File.SetContext).
	Context context.Context
}

// NotFoundError is locate.NotFoundError, which File.MissingDebug returns.
type NotFoundError = locate.NotFoundError

// ModuleNotFoundError is locate.ModuleNotFoundError: no module of a name
// for a kernel release (it wraps ErrModuleNotFound).
type ModuleNotFoundError = locate.ModuleNotFoundError

// NewLocator is locate.NewLocator's search, for opening.
func NewLocator(dirs ...string) *Locator { return NewRootLocator("", dirs...) }

// NewRootLocator is locate.NewRootLocator's search (system paths under
// root, perf's --symfs), for opening.
func NewRootLocator(root string, dirs ...string) *Locator {
	return &Locator{Locator: *locate.NewRootLocator(root, dirs...)}
}

// PerfBuildIDCache is perf's build-id cache at dir as a source, taking a
// candidate only when it carries DWARF.
func PerfBuildIDCache(dir string) locate.Source {
	return locate.PerfBuildIDCache{Dir: dir, HasDWARF: carriesDWARF}
}

// carriesDWARF reports whether p is an ELF file with .debug_info.
func carriesDWARF(p string) bool {
	f, err := Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	return f.HasDWARF()
}

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
	f, err := OpenAnyContext(l.context(), path)
	if err != nil {
		return nil, err
	}
	f.altf.dirs = l.BuildIDDirs()
	f.altf.fetch = l.altFetch()
	if f.HasDWARF() {
		return f, nil
	}
	err = l.attach(f)
	var nf *locate.NotFoundError
	if symbolsOnly && errors.As(err, &nf) && hasFuncSymbols(f.Symbols()) {
		f.missing = nf
		return f, nil
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// context is l.Context, Background when not set.
func (l *Locator) context() context.Context {
	if l.Context == nil {
		return context.Background()
	}
	return l.Context
}

// MissingDebug is where debuginfo was looked for when f was opened for
// its symbols alone (OpenOrSymbols); nil when f has debuginfo.
func (f *File) MissingDebug() *locate.NotFoundError { return f.missing }

// hasFuncSymbols reports whether the symbol map st defines a function.
func hasFuncSymbols(st *Symtab) bool {
	found := false
	st.Each(func(s Sym) {
		if s.Type == elf.STT_FUNC && s.Start != 0 {
			found = true
		}
	})
	return found
}

// attach finds and attaches separate debuginfo for f: locate is told the
// facts of the binary it looks by.
func (l *Locator) attach(f *File) error {
	w := locate.Wanted{Path: f.Path, BuildID: f.BuildID()}
	if link, ok, err := debugLink(f.Object); err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	} else if ok {
		w.Link = &link
	}
	if f.IsModule() {
		w.Module, w.Release = locate.NormModuleName(f.ModuleName()), moduleRelease(f.Object)
	}
	p, err := l.Debuginfo(w)
	if err != nil {
		return err
	}
	ev, fetched := l.Fetcher().(evicter)
	if !fetched || !ev.Holds(p) {
		return f.attachDebug(p)
	}
	// A file of the fetcher's cache is checked now: corrupt (written by
	// another tool, or before downloads were checked), it would stay the
	// cache's answer for this build-id. It is evicted and fetched once
	// more: a server's good answer replaces it (a corrupt one is refused
	// before it is cached).
	if err := l.checkFetched(p); err != nil {
		if !ev.Evict(p) {
			return namedErr(p, err)
		}
		q, rerr := l.Debuginfo(w)
		if rerr != nil || q == "" || l.checkFetched(q) != nil {
			if q != "" && ev.Holds(q) {
				ev.Evict(q)
			}
			return fmt.Errorf("%w (in debuginfod's cache: removed from it; no server had a good copy)", namedErr(p, err))
		}
		p = q
	}
	err = f.attachDebug(p)
	if err == nil {
		_, err = f.unitsList()
	}
	if err != nil && ev.Holds(p) && ev.Evict(p) {
		err = fmt.Errorf("%w (in debuginfod's cache; removed from it)", namedErr(p, err))
	}
	return namedErr(p, err)
}

// namedErr is err naming the file p, when it does not already.
func namedErr(p string, err error) error {
	if err != nil && !strings.Contains(err.Error(), p) {
		return fmt.Errorf("%s: %w", p, err)
	}
	return err
}

// checkFetched checks the debuginfo file at p, fetched by l's Fetcher, as
// every query would first read it: its unit headers and each unit's
// abbreviation table (its skeletons' .dwo files are the query's
// business).
func (l *Locator) checkFetched(p string) error {
	g, err := Open(p)
	if err != nil {
		return err
	}
	defer g.Close()
	if !g.HasDWARF() {
		return nil // attachDebug says
	}
	g.altf.dirs = l.BuildIDDirs()
	g.altf.fetch = l.altFetch()
	g.splitOnce.Do(func() {})
	units, err := g.unitsList()
	if err == nil {
		err = g.abbrevs.check(units)
	}
	return err
}

// evicter is a Fetcher whose cache can give up a file (debuginfod.Client).
type evicter interface {
	Holds(path string) bool
	Evict(path string) bool
}

// altFetch is the fetcher of dwz supplementary files by build-id: l's
// Fetcher, nil when it has none.
func (l *Locator) altFetch() func(string) (string, []string, error) {
	if fe := l.Fetcher(); fe != nil {
		return fe.Debuginfo
	}
	return nil
}

// debugLink returns the binary's .gnu_debuglink; ok is false when it has
// none. A malformed one is an error wrapping elfobj.ErrMalformed.
func debugLink(o *elfobj.Object) (l locate.DebugLink, ok bool, err error) {
	b, err := o.Section(".gnu_debuglink")
	if err != nil || b == nil {
		return locate.DebugLink{}, false, err
	}
	l, err = locate.ParseDebugLink(b, o.Order)
	return l, err == nil, err
}

// BuildIDMismatchError reports a separate debuginfo file found for a
// binary whose build-id is not the binary's: the debuginfo of another
// build. It wraps ErrBuildIDMismatch and ErrNoDebugInfo.
type BuildIDMismatchError struct {
	Path, Binary string
	Got, Want    string
}

func (e *BuildIDMismatchError) Error() string {
	got := e.Got
	if got == "" {
		got = "none"
	}
	return fmt.Sprintf("%s: build-id %s does not match %s's %s (debuginfo of another build)", e.Path, got, e.Binary, e.Want)
}

func (e *BuildIDMismatchError) Unwrap() []error { return []error{ErrBuildIDMismatch, ErrNoDebugInfo} }

// OpenKernel opens the debuginfo of kernel k (release and build-id) found
// through l.Kernel, as perf does without -k, then as Open.
func (l *Locator) OpenKernel(k locate.Kernel) (*File, error) {
	p, err := l.Vmlinux(k)
	if err != nil {
		return nil, err
	}
	return l.Open(p)
}

// RunningKernel reads the running kernel's release from
// /proc/sys/kernel/osrelease and its build-id from /sys/kernel/notes
// (the kernel's own ELF notes, in the host's byte order). What cannot be
// read is left empty.
func RunningKernel() locate.Kernel {
	var k locate.Kernel
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		k.Release = strings.TrimSpace(string(b))
	}
	if notes, err := os.ReadFile("/sys/kernel/notes"); err == nil {
		k.BuildID = elfobj.BuildIDNote(notes, binary.NativeEndian)
	}
	return k
}

// LoadedModuleBuildID returns the build-id of module name as the running
// kernel loaded it (its notes in /sys/module/NAME/notes, in the host's
// byte order), "" when it is not loaded or has none.
func LoadedModuleBuildID(name string) string {
	b, err := os.ReadFile(filepath.Join("/sys/module", locate.NormModuleName(name), "notes/.note.gnu.build-id"))
	if err != nil {
		return ""
	}
	return elfobj.BuildIDNote(b, binary.NativeEndian)
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
