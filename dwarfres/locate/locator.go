package locate

import "errors"

// Locator finds the debuginfo of a target: a separate debuginfo file from
// Debug; for a kernel, its vmlinux from Kernel; a kernel module by name
// (FindModule). It answers paths; dwarfres.Locator opens them.
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
	sys := Rooted(root, DefaultDebugDir)
	l.Kernel = []Source{VmlinuxPaths{Root: root}, BuildIDDir(sys)}
	for _, d := range append(dirs, sys) {
		l.Debug = append(l.Debug, BuildIDDir(d), ModuleDebugTree(d))
	}
	l.Debug = append(l.Debug, DebugLinkDirs{Global: sys, Root: root}, DistroDebugPaths{Dir: sys, Root: root})
	return l
}

// Debuginfo is the separate debuginfo of the binary w describes, from
// l.Debug. Nothing found is a *NotFoundError naming every place tried; a
// file passed over for its CRC (ErrDebugLinkCRC) is that error instead.
func (l *Locator) Debuginfo(w Wanted) (string, error) {
	p, tried, err := find(l.Debug, w)
	if err == nil && p == "" {
		err = &NotFoundError{Path: w.Path, Tried: tried}
	}
	return p, err
}

// Kernel identifies a kernel build.
type Kernel struct {
	Release string // uname -r
	BuildID string // GNU build-id as hex, "" when unknown
}

// Vmlinux is the vmlinux of kernel k from l.Kernel, as perf finds it
// without -k; nothing found is a *NotFoundError for k.Release.
func (l *Locator) Vmlinux(k Kernel) (string, error) {
	p, tried, err := find(l.Kernel, Wanted{BuildID: k.BuildID, Release: k.Release})
	if err == nil && p == "" {
		err = &NotFoundError{Release: k.Release, Tried: tried}
	}
	return p, err
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

// BuildIDDirs are the build-id trees l searches, in order: where a dwz
// common file is looked for too (AltCandidates).
func (l *Locator) BuildIDDirs() []string {
	var out []string
	for _, s := range l.Debug {
		if d, ok := s.(BuildIDDir); ok {
			out = append(out, string(d))
		}
	}
	return out
}

// Fetcher is l's first Fetched source, nil when it has none: it fetches a
// dwz common file too, which debuginfod serves as the debuginfo of its
// build-id.
func (l *Locator) Fetcher() Fetcher {
	for _, s := range l.Debug {
		if f, ok := s.(Fetched); ok {
			return f.Fetcher
		}
	}
	return nil
}
