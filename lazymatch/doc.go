// Package lazymatch reproduces the string matchers of Linux perf 6.1
// (tools/perf/util/string.c and strfilter.c) so that dwprobe selects exactly
// the same functions, variables, source lines and files as `perf probe`:
// globs (Glob, IsGlob), function names that are globs or exact names
// (NewNameMatcher, in name.go), lazy source-line patterns (Lazy), filters
// (ParseFilter), and source files (SourceTail, the one rule for whether two
// file names name the same file; FindSource and MapPrefix for finding the
// source on disk).
//
// The matchers operate on bytes, not runes, because perf compares C chars.
// Inputs are treated as C strings: anything from the first NUL byte on is
// ignored, which is what perf sees when such a string reaches it (a source
// line read with getline, a DWARF name, an argv word).
//
// Its place in dwprobe's import order (probegen/layers_test.go): a leaf,
// importing no dwprobe package; dwarfres, tracefs and above use it.
package lazymatch
