package dwarfres

import (
	"fmt"
	"os"
	"path/filepath"
)

// PerfBuildIDCache is perf's build-id cache (~/.debug, or perf's
// --buildid-dir): perf buildid-cache --add copies a binary to
// DIR/PATH/BUILDID/elf (its debuginfo, when found, to .../debug) and links
// DIR/.build-id/xx/rest to that directory. A candidate is taken only when
// it carries DWARF: the cached elf of a stripped binary is the stripped
// binary again.
type PerfBuildIDCache string

// Find looks for w's debuginfo in the cache, by build-id and then by path.
func (c PerfBuildIDCache) Find(w Wanted) (string, []string, error) {
	if len(w.BuildID) < 3 {
		return "", nil, nil
	}
	dirs := []string{filepath.Join(string(c), ".build-id", w.BuildID[:2], w.BuildID[2:])}
	if filepath.IsAbs(w.Path) {
		dirs = append(dirs, filepath.Join(string(c), w.Path, w.BuildID))
	}
	var paths []string
	for _, d := range dirs {
		paths = append(paths, filepath.Join(d, "debug"), filepath.Join(d, "elf"))
	}
	return firstExisting(paths, carriesDWARF)
}

// carriesDWARF reports whether p is an ELF file with .debug_info.
func carriesDWARF(p string) bool {
	if !isRegular(p) {
		return false
	}
	f, err := Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	return f.HasDWARF()
}

// DefaultPerfCache is perf's build-id cache directory, $HOME/.debug;
// "" when there is no home directory.
func DefaultPerfCache() string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".debug")
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
