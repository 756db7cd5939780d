package lazymatch

import "strings"

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
