// Package dwarfres reads ELF and DWARF debuginfo (DWARF 4 and 5, gcc and
// clang) and answers the questions a probe tool asks, with perf probe 6.1's
// semantics: where a function and all its inlined instances and clones
// are, which addresses a source line has, which variables are reachable at
// an address and where their values live, and which ELF symbol contains an
// address. It only reads files.
//
// A newcomer's map:
//
//   - Finding and opening: Locator (locate.go) finds a target's debuginfo,
//     separate or not, through its Sources in order: build-id trees,
//     .gnu_debuglink places (debuglink.go), perf's build-id cache
//     (buildidcache.go); OpenOrSymbols opens a binary without any for its
//     symbol table; a kernel module by name (modlocate.go:
//     modules.dep, a module's debuginfo tree); Open (open.go) maps an ELF
//     and reads sections lazily (SHF_COMPRESSED and .zdebug_* ones
//     decompressed, zdebug.go), OpenAny (decompress.go) a compressed
//     module too; altfile.go opens a dwz program's common file
//     (.gnu_debugaltlink, .debug_sup). A kernel module is a relocatable
//     object: Open lays its sections out (module.go) and its debug
//     sections are read relocated (reloc.go).
//   - Decoding: unit headers (unit.go), abbreviations (abbrev.go) and
//     the plan each carries to step over the attributes a DIE does not
//     keep (abbrevplan.go), DIEs (die.go) whose attribute forms and
//     classes are in form.go, one unit
//     decoded as a tree (cutree.go) and kept in a cache bounded in bytes
//     that all queries share (treecache.go), references leaving it (dwz's
//     partial units and common file) followed by xref.go, line tables
//     (lines.go), ranges and location lists (ranges.go, loclist.go).
//   - Searching: FindProbes (find.go) answers a Query, after scan.go picks
//     the units that can hold it; FindLineRange (linerange.go) answers -L;
//     linewalk.go holds the line walks both share; dwzfind.go finds the
//     instances of an inline function dwz moved out of their units;
//     ProbePointAt (pointat.go) maps an address back to a probe point, a
//     PointMapper many addresses (-l), each unit decoded once.
//     An Index (index*.go), built once per binary and kept in the user's
//     cache, names the units a function, global or source file is in
//     (flagging those that define a function), and holds the symbol map
//     (indexsyms.go) and the unit headers (indexunits.go), so a query
//     decodes only those units: same answers, less work. Questions asked
//     at each of many points (the symbol covering an address, a name's
//     count, an ftrace site) get tables built once (symcount.go).
//   - Variables: a Probe's Scope (vars.go) looks up variables and resolves
//     their locations, through decodeLocation (locexpr.go, one function
//     per operation in locops.go) and the call-frame information (cfa.go);
//     Entry (entry.go) answers type questions.
//   - SDT markers: SDTMarkers (sdt.go) reads .note.stapsdt, no DWARF
//     needed, with perf's prelink and semaphore adjustments.
//   - Other languages (names.go): C++ and Rust functions nest in
//     namespaces, classes and impls (libdw's dwarf_getfuncs visits them
//     all outside C units); scoped names match the demangled
//     DW_AT_linkage_name (Demangle, github.com/ianlancetaylor/demangle);
//     Go's types are reached through DW_FORM_ref_addr (entry.go) and its
//     results are Scope.Results; GNU .zdebug_ sections are inflated
//     (zdebug.go) like SHF_COMPRESSED ones.
//
// Errors wrap the sentinels of errors.go; malformed input is a
// *DecodeError naming section and offset. Tests assemble DWARF by hand
// with the dwarftest package.
package dwarfres
