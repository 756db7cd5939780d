// Package dwarfres is dwprobe's DWARF core: it decodes DWARF 4 and 5 (gcc
// and clang, dwz and split DWARF) and answers the questions a probe tool
// asks, with perf probe 6.1's semantics: where a function and all its
// inlined instances and clones are, which addresses a source line has,
// which variables are reachable at an address and where their values
// live, and what source point an address is. It only reads files.
//
// Its one type, File, is an ELF object (elfobj) and its symbols (elfsym)
// with the DWARF state built on them: the separate debuginfo and dwz file
// attached, the decoded units and the index. A job File does not do
// itself has a small type of its own here, named below (abbrevCache,
// unitLists, splitter, arangeMap, funcSpans, unitScan, addrIn, globals,
// prologue, cfiTable, indexer, lineWalk, unitProbes, lineProgram,
// referrers), or is a sub-package. The jobs around the core are
// sub-packages, each testable from bytes:
//
//   - elfobj: one ELF object, mapped (sections, relocations, notes, raw
//     symbols, compressed modules, the one panic guard).
//   - elfsym: perf's symbol map and the kernel image's symbol facts.
//   - locate: where a target's debuginfo is (paths and places tried);
//     debuginfod: the client locate can fetch through.
//   - btf: BTF, when a kernel has no DWARF; sdt: SDT markers.
//   - cfi: call-frame information, the CFA rule at a pc.
//
// A newcomer's map of this package:
//
//   - Opening: Open and OpenAny (open.go) wrap elfobj's; SetContext
//     (cancel.go) lets a signal end a File's long walks (the index
//     build, the scans of every unit) and a Locator's Context its
//     decompressions; a Locator (locate.go) opens a target with the
//     debuginfo locate finds, attaching a separate file (a file of the
//     debuginfod cache whose DWARF does not decode is evicted and fetched
//     once more; downloadcheck.go's CheckDownload checks a download before
//     it is cached), and
//     OpenOrSymbols opens one without any for its symbol table. altfile.go opens a dwz program's common file
//     (.gnu_debugaltlink, .debug_sup; one of another build is named as
//     mismatched, not missing); split.go, dwo.go and dwp.go attach
//     split DWARF (.dwo, .dwp); modinfo.go checks a kernel module's
//     release (its .modinfo is elfobj's ModInfo) and module.go names it.
//   - Decoding: unit headers (unit.go), abbreviations (abbrev.go: the
//     tables are parsed once and kept by abbrevCache) and the plan each carries to step over the attributes a DIE does not
//     keep (abbrevplan.go), DIEs (die.go) whose attribute forms and
//     classes are in form.go, one unit decoded as a tree (cutree.go; a C
//     unit's type bodies decoded when a type walk asks for them) and
//     kept in a cache bounded in bytes that all queries share
//     (treecache.go), references leaving it (dwz's partial units and
//     common file) followed by xref.go, line tables, read by
//     lineProgram (lines.go; their file names read without debug/dwarf
//     in linefiles.go), and the
//     lists a unit's attributes point into, read by unitLists (lists.go):
//     ranges (ranges.go), location lists (loclist.go, splitloc.go) and
//     their views (locview.go). splitter (split.go, dwo.go) replaces
//     skeleton units by their split units.
//   - Searching: FindProbes (find.go) answers a Query, after unitScan
//     picks the units that can hold it (scan.go) and those that define a
//     function (unitskim.go); unitProbes (unitprobes.go) makes a unit's
//     Probes: the scope a point is probed in (bestScope, perf's
//     find_best_scope) and the probe there, named by its symbol;
//     FindLineRange (linerange.go) answers -L, over every unit
//     defining the function, with each line's probe points when asked
//     (LineQuery.Points, for -L --detail);
//     the line code is a lineWalk's, a unit's tree with its line table,
//     its static branches and its code decoder (cutree.go keeps the
//     tree: entries, scopes, inline trees): linewalk.go holds the line
//     walks (a function's own rows, ownRow, bounded by the next
//     function's declaration, funcEnd, with the calls in a copy of the
//     function inlined into itself, walkCopyCalls); linerun.go a line's
//     runs in the decoded code (ownRun); linepoints.go the one rule for where a line runs,
//     funcLinePoints (the address where the line's code starts in each
//     copy of the function), which -L FUNC, -L SRC, --detail, -D FUNC:RLN
//     and -D SRC:LINE share in C units; dwzfind.go finds the
//     instances of an inline function dwz moved out of their units
//     (referrers, the units that refer to it); a
//     function's entry past its prologue is prologue's (prologue.go).
//   - Addresses back to source: arangeMap (aranges.go) finds the unit
//     holding an address, and funcSpans (funcspans.go) the function in it
//     (realFunc); ProbePointAt (pointat.go) maps an address back
//     to a probe point, a PointMapper many addresses (-l), each unit
//     decoded once; FuncAt (funcdecl.go) the function declared at an
//     address; both are asked of an addrIn, an address in its decoded
//     unit; asked.go keeps both answers
//     for the addresses a Query's Asked names, computed while their unit
//     is decoded (a kprobe's notes at a thousand points).
//   - The index (index*.go), built once per binary and kept in the
//     user's cache, names the units a function, global or source file is
//     in (flagging those that define a function), and holds the symbol
//     map (elfsym's encoding, symbols.go) and the unit headers
//     (indexunits.go), so a query decodes only those units: same answers,
//     less work. internal/record is its record decoder; internal/safefs
//     the rule for the cache directories (the index's and debuginfod's;
//     EnsureIndex loads or builds a File's index there):
//     only the user's or root's, no links, regular files, and a cache
//     walked once and held open (a directory descriptor every later
//     operation is relative to). An index only
//     narrows: its symbols are checked against the symbol table
//     (elfsym), and a function the symbols have but the index hides is
//     found by the scan (find.go). indexpolicy.go decides when a query
//     builds a missing index (IndexPays): a first query scans and leaves
//     a marker, the binary's next query or a run of ManySpecs specs
//     builds it. indexer (indexbuild.go) builds an index.
//   - Variables: a Probe's Scope (vars.go) looks up variables and resolves
//     their locations, through decodeLocation (locexpr.go, one function
//     per operation in locops.go) and the call-frame information
//     (cfiTable, cfa.go: the File's section parsed once by cfi); globals (globals.go) finds a global of another
//     unit by name; Entry (entry.go) answers type questions.
//   - Other languages (names.go): C++ and Rust functions nest in
//     namespaces, classes and impls (libdw's dwarf_getfuncs visits them
//     all outside C units); scoped names match the demangled
//     DW_AT_linkage_name (Demangle, github.com/ianlancetaylor/demangle);
//     Go's types are reached through DW_FORM_ref_addr (entry.go) and its
//     results are Scope.Results.
//
// Errors wrap the sentinels of errors.go (elfobj's and locate's among
// them); malformed input is a *DecodeError naming section and offset.
// Tests assemble DWARF by hand with the dwarftest package, and build a
// File over sections in memory with elfobj.FromSections.
//
// Removed and renamed (issue 30, File's jobs moved out):
//
//   - File.EnsureIndex(o) is EnsureIndex(f, o); File.IndexPays(o, n) is
//     IndexPays(f, o, n): the index cache's functions of a File.
//   - File.ModInfo and File.IsGo are elfobj.Object's, promoted to File as
//     before.
//   - File.CFA is gone: Scope.Location resolves a DW_OP_call_frame_cfa
//     frame base itself (cfiTable); cfi.Parse and cfi.Table.CFA read
//     call-frame information from a section's bytes.
//   - File.DebugLink is gone: a Locator reads .gnu_debuglink
//     (locate.ParseDebugLink of the section's bytes).
//   - File.ModuleRelease is gone: locate.VermagicRelease(f.ModInfo("vermagic")).
//   - File.SetDebugDirs is gone: a Locator sets the directories a dwz
//     common file is looked for in (Locator.BuildIDDirs).
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 5,
// importing its sub-packages and lazymatch, never tracefs or probegen;
// tracefs is beside it and imports none of it.
package dwarfres
