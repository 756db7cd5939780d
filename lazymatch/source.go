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

// SourceTail reports whether two file names (a user's and the
// debuginfo's, or two of the debuginfo's) name the same file: one ends with
// the other by whole path components ("fs/read_write.c" and
// "read_write.c", not "write.c"). It is the one rule dwprobe matches file
// names by. perf's strtailcmp compares bytes instead, so "write.c" would
// select fs/read_write.c too; whole components keep a short name from
// selecting an unrelated file.
func SourceTail(path, name string) bool {
	return tailMatch(path, name) || tailMatch(name, path)
}

// tailMatch reports whether path ends with tail by whole path components:
// "fs/read_write.c" matches "read_write.c" and "fs/read_write.c" but not
// "write.c". An empty tail names no file and matches nothing.
func tailMatch(path, tail string) bool {
	path, tail = cstr(path), cstr(tail)
	if tail == "" || !strings.HasSuffix(path, tail) {
		return false
	}
	return len(path) == len(tail) || path[len(path)-len(tail)-1] == '/'
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
