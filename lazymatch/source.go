package lazymatch

import (
	"fmt"
	"strings"
)

// FindSource locates a source file named raw in the debuginfo, the way
// perf's find_source_path does, with file-system access injected so the
// rule stays pure: with a prefix (-s), try PREFIX/raw and then drop raw's
// leading components one at a time; without one, a relative raw is looked
// up under compDir only, an absolute one as is. It returns the path found
// and every path tried (for the error message).
func FindSource(raw, compDir, prefix string, exists func(string) bool) (string, []string, bool) {
	var tried []string
	try := func(p string) bool {
		tried = append(tried, p)
		return exists(p)
	}
	if prefix == "" {
		p := raw
		if !strings.HasPrefix(raw, "/") && compDir != "" {
			p = compDir + "/" + raw
		}
		if try(p) {
			return p, tried, true
		}
		return "", tried, false
	}
	for rest := raw; ; {
		p := prefix + "/" + rest
		if try(p) {
			return p, tried, true
		}
		// perf keeps the '/' it cut at, so later tries read PREFIX//tail.
		i := strings.IndexByte(rest[min(1, len(rest)):], '/')
		if i < 0 {
			return "", tried, false
		}
		rest = rest[min(1, len(rest))+i:]
	}
}

// SourceTail reports whether a debuginfo path and a user's file name name
// the same file: one ends with the other by whole path components
// ("fs/read_write.c" and "read_write.c", not "write.c").
func SourceTail(path, name string) bool {
	return TailMatch(path, name) || TailMatch(name, path)
}

// PrefixMap is one --source-prefix-map OLD=NEW rule.
type PrefixMap struct{ Old, New string }

// ParsePrefixMap parses OLD=NEW.
func ParsePrefixMap(s string) (PrefixMap, error) {
	old, repl, ok := strings.Cut(s, "=")
	if !ok || old == "" {
		return PrefixMap{}, fmt.Errorf("source prefix map %q: want OLD=NEW: %w", s, ErrSyntax)
	}
	return PrefixMap{old, repl}, nil
}

// MapPrefix rewrites path by the first rule whose OLD is a whole-component
// prefix of it, as compilers' -fdebug-prefix-map does in reverse.
func MapPrefix(path string, maps []PrefixMap) (string, bool) {
	for _, m := range maps {
		old := strings.TrimSuffix(m.Old, "/")
		if path == old || strings.HasPrefix(path, old+"/") {
			return strings.TrimSuffix(m.New, "/") + path[len(old):], true
		}
	}
	return path, false
}
