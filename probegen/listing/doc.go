// Package listing holds dwprobe's listings, what perf probe lists rather
// than probes, and their formats:
//
//   - -L: a line range's source lines, the probeable ones numbered
//     (Listing, ListedLine; List lists a Range the resolver found), and
//     with --detail each line's points and the variables at each
//     (LinePoint); ErrShortSource when the file found is another version.
//   - -V: the variables a probe can read at an address (Vars, VarList,
//     VarOptions), perf's lines sorted, and those left out (Missing,
//     UnreadableVar); PerfPoint, perf's synthesize_perf_probe_point.
//   - -F: the functions of a target's symbol table (Functions,
//     FilterFuncs, DefaultFuncFilter).
//   - -l: a listed probe read back (ParseTracePoint) and mapped to its
//     source point (TracePoint.Describe, Mapper), and perf's line of an
//     added or listed event (EventLine, SpecPoint).
//
// It resolves no spec: probegen finds the line range of a -L spec and the
// addresses of a -V spec (its ListLines, ListLineVars and AvailableVars,
// and the Target methods of the same names, answer with this package's
// types), and writes a kernel point as -D writes it (List's place).
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 9,
// between probegen/sdtprobe and probegen, the resolver, which imports
// it; it imports probegen/sources (the files listed), probegen/grammar
// (points and line ranges), probegen/internal/ctype (a variable's type
// name), dwarfres and dwarfres/elfobj (the target's debuginfo, symbols
// and a regular file), lazymatch (the filters), tracefs (a listed
// probe's target) and tracefs/arch (arm64's mapping symbols).
package listing
