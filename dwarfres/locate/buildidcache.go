package locate

import (
	"os"
	"path/filepath"
)

// PerfBuildIDCache is perf's build-id cache (PerfCacheDir): perf
// buildid-cache --add copies a binary to DIR/PATH/BUILDID/elf (its
// debuginfo, when found, to .../debug) and links DIR/.build-id/xx/rest to
// that directory. A candidate is taken only when HasDWARF says it carries
// DWARF: the cached elf of a stripped binary is the stripped binary again.
type PerfBuildIDCache struct {
	Dir string
	// HasDWARF reports whether the file at a path is an ELF with
	// .debug_info (dwarfres answers it; nil takes any regular file).
	HasDWARF func(path string) bool
}

// Find looks for w's debuginfo in the cache, by build-id and then by path.
func (c PerfBuildIDCache) Find(w Wanted) (string, []string, error) {
	if len(w.BuildID) < 3 {
		return "", nil, nil
	}
	dirs := []string{filepath.Join(c.Dir, ".build-id", w.BuildID[:2], w.BuildID[2:])}
	if filepath.IsAbs(w.Path) {
		dirs = append(dirs, filepath.Join(c.Dir, w.Path, w.BuildID))
	}
	var paths []string
	for _, d := range dirs {
		paths = append(paths, filepath.Join(d, "debug"), filepath.Join(d, "elf"))
	}
	return firstExisting(paths, func(p string) bool {
		return isRegular(p) && (c.HasDWARF == nil || c.HasDWARF(p))
	})
}

// PerfCacheDir is perf's build-id cache directory: $PERF_BUILDID_DIR
// (which perf exports to the programs it runs, its --buildid-dir), else
// $HOME/.debug; "" when neither is known.
func PerfCacheDir() string {
	if d := os.Getenv("PERF_BUILDID_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".debug")
}
