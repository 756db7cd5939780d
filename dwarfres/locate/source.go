package locate

import (
	"fmt"
	"os"
)

// A Source is one place the debuginfo of a binary may be. Each Find
// answers for the binary described by w: the path of a file to use, or ""
// and the places it looked (for the error naming every place tried). A
// build-id tree (BuildIDDir), the places of a .gnu_debuglink
// (DebugLinkDirs), perf's ~/.debug cache (PerfBuildIDCache); a debuginfod
// client (Fetched) fetches into a cache, then answers the cached path. An
// error wrapping ErrDebugLinkCRC is a candidate passed over: the search
// goes on, and it is returned only when nothing else is found.
type Source interface {
	Find(w Wanted) (path string, tried []string, err error)
}

// Wanted describes the binary whose debuginfo is looked for: facts the
// caller read from it, as plain values.
type Wanted struct {
	Path    string // the binary; "" for a kernel not yet found
	BuildID string // GNU build-id as hex; "" when it has none
	Release string // kernel release (uname -r), for a kernel or a module's vermagic
	Module  string // the module's name, for a kernel module
	// Link is the binary's .gnu_debuglink, nil when it has none.
	Link *DebugLink
}

// DefaultDebugDir is where distributions install separate debuginfo.
const DefaultDebugDir = "/usr/lib/debug"

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
		paths = append(paths, Rooted(v.Root, p))
	}
	return firstExisting(paths, isRegular)
}

// A Fetcher fetches the debuginfo of a build-id from elsewhere into a
// local cache (a debuginfod client): the cached path, or "" when no
// server has it, and the places asked. A server's failure is the error.
type Fetcher interface {
	Debuginfo(buildID string) (path string, tried []string, err error)
}

// Fetched is a Fetcher as a Source of debuginfo by build-id.
type Fetched struct{ Fetcher }

// Find fetches w's debuginfo by build-id; the servers asked are the
// places tried.
func (s Fetched) Find(w Wanted) (string, []string, error) {
	if w.BuildID == "" {
		return "", nil, nil
	}
	p, tried, err := s.Debuginfo(w.BuildID)
	if err != nil && w.Path != "" {
		err = fmt.Errorf("%s: %w", w.Path, err)
	}
	return p, tried, err
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
