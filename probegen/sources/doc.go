// Package sources finds the source files a target's debuginfo names, and
// reads them: the lines of a line listing (probegen/listing), a lazy
// pattern's matching lines, a declaration's and a line's text for the
// resolver's notes (probegen.ResolveOptions' LazyLines, DeclText and
// LineText). Sources searches as perf does first (under its source
// prefix, so that paths print as perf prints them), then through OLD=NEW
// prefix maps, then the current directory, which perf never tries, and
// last asks a fetcher (a debuginfod client) when one is set.
//
// Errors: a source a lazy pattern needs and that is not found is a
// *SourceError, wrapping fs.ErrNotExist, with every path tried.
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 6,
// with probegen/grammar; it imports dwarfres/elfobj (a regular file,
// never a FIFO, is opened) and lazymatch (perf's source search, prefix
// maps and lazy patterns).
package sources
