// Package grammar reads what a user writes to ask for a probe, before
// anything is looked up: perf probe specs
//
//	[[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFFS|%return|;PTN] [ARG ...] | SRC:ALN | SRC;PTN | 0xADDR | %[GROUP:]EVENT
//
// parsed into a Spec (its Point and Args; ParseSpec, ParsePoint,
// ParseArg), the line ranges of -L (ParseLineRange), spec files of one
// spec a line (ReadSpecs, ScanSpecs), and the event names perf gives
// probes (EventBase, ExecGroup, Namer, DefaultGroup). A Point prints back
// as it parses (Point.String).
//
// Errors: a spec that breaks the grammar is a *SyntaxError (wrapping
// ErrSyntax, with the 1-based column); a spec file's line, a
// *SpecFileError; a name taken 1023 times, ErrTooManyEvents. Names the
// kernel's event language refuses wrap tracefs's sentinels. Valid perf
// syntax that dwprobe does not implement (or that the kernel cannot
// express) wraps ErrNotSupported, here so that every package resolving
// specs, above it, wraps the same sentinel.
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 6,
// the first step of a spec's path; it imports lazymatch and tracefs (the
// kernel's limits on names and arguments) and nothing that reads a
// target. probegen resolves what it parses; the command line and
// probegen's sub-packages import it too.
package grammar
