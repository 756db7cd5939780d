package dwarfres

import "github.com/dwprobe/dwprobe/lazymatch"

// exactName is the Query.Function of a name looked up as it is, glob
// characters and all.
func exactName(name string) lazymatch.NameMatcher { return lazymatch.ExactName(name) }

// namePattern is the Query.Function of a name as a user types it: a glob
// if it has glob characters.
func namePattern(pat string) lazymatch.NameMatcher { return lazymatch.NewNameMatcher(pat) }
