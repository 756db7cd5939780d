package locate

import (
	"path/filepath"
	"slices"
	"strings"
)

// AltCandidates lists where gdb and libdw look for a dwz supplementary
// file (named by .gnu_debugaltlink or .debug_sup, wanting build-id id as
// hex) linked from the file at from: the path as linked (relative to the
// linking file's directory), then in each debug directory by build-id and
// under .dwz.
func AltCandidates(from, name, id string, dirs []string) []string {
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(from), p)
	}
	out := []string{p}
	// Debian links /usr/lib/debug/.dwz/ARCH/PKG.debug: under another
	// debug directory (a sysroot's), the same path below it.
	rest, under := strings.CutPrefix(name, DefaultDebugDir+"/")
	if !under {
		rest = ".dwz/" + filepath.Base(name)
	}
	for _, d := range dirs {
		if len(id) > 2 {
			out = append(out, d+"/.build-id/"+id[:2]+"/"+id[2:]+".debug")
		}
		if q := filepath.Join(d, rest); !slices.Contains(out, q) {
			out = append(out, q)
		}
	}
	return out
}
