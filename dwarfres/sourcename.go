package dwarfres

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dwprobe/dwprobe/lazymatch"
)

// sourceName is a user's source file name (@SRC, SRC:LINE, -L SRC) and how
// the debuginfo's file names match it: by lazymatch.SourceTail, the one
// rule for whether two names name the same file, or exactly once
// disambiguate has seen that the name is exactly one of several matches.
type sourceName struct {
	name  string
	exact bool
}

// matches reports whether the debuginfo path names the user's file.
func (n sourceName) matches(path string) bool {
	if n.exact {
		return path == n.name
	}
	return lazymatch.SourceTail(path, n.name)
}

// disambiguate refuses a source name that matches different files in the
// candidate units (perf would probe them all, whatever file was meant). A
// name that is exactly one of the paths ("mm/mmap.c", not also
// "arch/x86/mm/mmap.c") is not ambiguous: it then matches that path only.
func (n sourceName) disambiguate(paths []string) (sourceName, error) {
	if len(paths) > 1 && slices.Contains(paths, n.name) {
		return sourceName{name: n.name, exact: true}, nil
	}
	if k := len(paths); k > 1 {
		slices.Sort(paths)
		if k > 8 {
			paths = append(paths[:8], "...")
		}
		return n, &ProbeError{Err: ErrAmbiguous, Msg: fmt.Sprintf("source file %q matches %d files: %s", n.name, k, strings.Join(paths, ", ")), Hint: "give more of the path"}
	}
	return n, nil
}
