// Package probegen resolves perf probe specs ("vfs_read:12 file->f_mode",
// "work%return $retval", "fs/read_write.c:470") against a program's or a
// kernel's debuginfo into probe points: where a kprobe or uprobe goes, how
// each argument is read there, and the kprobe_events or uprobe_events
// definition perf would write. dwprobe's command line is built on it.
// Specs are parsed by probegen/grammar (a Resolver takes them as text and
// returns each parsed, a grammar.Spec); the answers are printed as BPF
// programs by probegen/ebpfprobe, as a bootconfig by probegen/bootconfig,
// and compared across two builds by probegen/diff.
//
// # Targets
//
// Open opens what a spec is resolved against, as dwprobe's -x, -k and -m
// do, with the options its flags map to (OpenOptions: a user binary, a
// vmlinux, a kernel module, the running kernel, --btf, --symfs,
// --target-ns, debuginfod, source directories): dwprobe's command line
// opens every target through it. Its DWARF answers when
// it has some (found beside it, by build-id, through debuginfod, dwz and
// split DWARF followed); else its symbol table (function entries and
// offsets), its SDT markers, or the kernel's BTF (entries, returns and
// their parameters). Target.Arch is the probed machine (x86_64 or arm64,
// not necessarily this host's); every fact that differs between machines
// (registers, calling conventions) comes from it. A Target finds its own
// sources (OpenOptions.Source, then where the debuginfo says they were
// built, then debuginfod), so lazy patterns and listings work with
// default options.
//
// # Resolving
//
// A Resolver resolves specs one at a time (Resolve) or in a batch
// streamed in spec order on every core (Stream; ResolveAll over a slice,
// going on past a failing spec); it may be used from several goroutines
// at once. Its answer, a Resolution, is probegen/answer's: the spec,
// its Probes (per point: where it attaches, its machine, its source
// position and inline copy, its argument reads as ArgReads with a
// Location each, and its definition, rendered from these as a
// tracefs.Event) and its Notes (typed by NoteKind: a notrace function,
// init text, a symbol that is not unique, the nearest line probed
// instead). probegen fills them in; see that package for what each
// field means, and ExampleResolver_Resolve_copies for one record per
// execution of a line.
//
// # Errors
//
// Errors wrap sentinels (grammar.ErrSyntax, grammar.ErrNotSupported,
// dwarfres.ErrNotFound, ...) and carry their data in types a program can
// act on with errors.As: grammar.SyntaxError (with the column), VarError and MemberError (no
// such variable or member, with the closest names), TooManyError (the
// count of points past ResolveOptions.MaxProbes), NoCodeError (a line
// without code, with the nearest lines), PointError, SpecError for a
// batch. None names a command-line option: the caller words the advice.
//
// # Listings
//
// ListLines and ListLineVars resolve a function's or file's line range
// and list its probeable lines (dwprobe -L) with probegen/listing, which
// holds the listings' answers and formats; AvailableVars resolves a point
// and lists the variables at each of its addresses (-V). probegen/diff
// compares one spec's resolutions in two builds.
//
// A Target answers the same through its methods, with its own sources,
// so a caller holds no *dwarfres.File: Target.ListLines, ListLineVars,
// AvailableVars, Functions and NeedsDebuginfo; Target.Mapper maps the
// places probes are written at back to source points (-l);
// Target.BuildIndex builds or checks its index (--build-index). Built
// is what a target was built as (path, machine, build-id, a module's
// name and release) and BTFOrigin where its BTF came from: with
// RunningBuild and LoadedModuleBuildID, what a caller checks against the
// running kernel before adding kprobes. ErrNoBTF, ErrFetch and
// GuardFault are dwarfres/btf's, dwarfres/debuginfod's and
// dwarfres/elfobj's own, so a caller imports none of those.
//
// Resolving touches no kernel, and the only files it reads besides
// debuginfo are the sources of line listings and lazy patterns. Open
// reads the running kernel where the target is it, or has to be found
// for it (OpenOptions.Running): its release, its BTF and kallsyms; and it
// may fetch debuginfo and sources from debuginfod servers. Writing to the
// kernel is tracefs's.
//
// # Removed and renamed
//
// A Resolution (now probegen/answer's, as are Probe and its fields) was
// three parallel lists; it is one (issue 30):
//   - ResolvedPoint: gone; each Probe holds its fields (Addr, File, Line,
//     Function, InlinedInto; its Symbol and Offset, the ELF symbol
//     covering the address, are Probe.ELFSymbol and Probe.ELFOffset).
//   - Resolution.Defs: Resolution.Definitions(), each Probe.Definition().
//   - Resolution.Points: Resolution.Probes.
//   - Probe.Event: Probe.Definition(), rendered from Probe.Group,
//     Probe.Name, Probe.EventKind, Probe.Return, Probe.Attach and
//     Probe.Args.
//   - Probe.Symbol and Probe.Offset (the place a kprobe is written at,
//     maybe _text+OFFS): Probe.Attach.Symbol and Probe.Attach.Offset.
//   - Probe.Binary, Probe.Module, Probe.FileOffset, Probe.RefCtrOffset:
//     Probe.Attach.Binary, .Module, .FileOffset, .RefCtrOffset.
//   - DiffPoint.Point and LineTexts.Texts (now in probegen/diff): a
//     Probe, []Probe (were ResolvedPoint).
//   - Resolver.Brief: still Probes, without their ELF symbol, source
//     position and argument Locations (it left out Points and Probes).
//   - Target.BTFKernel (a *btf.Kernel, holding the kernel's and module's
//     *dwarfres.File): Target.BTFOrigin, where the types and symbols
//     come from, with the Built of those files.
//
// How Open answers where dwprobe's command line once answered on its own
// (issue 30; the command line now calls Open, so the two cannot differ):
//   - A module (OpenOptions.Module) gets its kallsyms-data rule
//     (dwarfres.File.SetKernelData with dwarfres.KernelListsData), so a
//     module's global variables are read as the kernel lists them.
//   - Debuginfo is searched in $DWPROBE_DEBUGINFO_PATH's directories and
//     perf's build-id cache too, after OpenOptions.DebugDirs and before
//     debuginfod (the servers of OpenOptions.Debuginfod, else of
//     $DEBUGINFOD_URLS): a Go program finds what dwprobe finds.
//   - A user binary's uprobes name it by its absolute path with its
//     symlinks resolved (inside Root or TargetNS's root), as the kernel
//     resolves it, not by filepath.Abs alone.
//   - A target finds its own sources (OpenOptions.Source, PrefixMaps,
//     then debuginfod): a lazy pattern resolves with default options.
//
// Jobs cut out of probegen into packages of their own (issue 30), each
// named by its doc.go and placed in probegen/layers_test.go's order:
//   - The spec grammar and event naming (layer 6, below probegen):
//     probegen/grammar holds, under the same names, Spec, Point, Arg,
//     ParseSpec, ParsePoint, ErrSyntax, SyntaxError, ReadSpecs, ScanSpecs,
//     SpecLine, SpecFileError, MaxSpecLine, ErrLineTooLong, LineRange,
//     ParseLineRange, EventBase, ExecGroup, Namer, NewNamer, DefaultGroup
//     and ErrTooManyEvents. It also exports what probegen needs of the
//     grammar: ParseArg, SplitArgs and Token, CheckChars, ParseNum,
//     IsCIdent, RetInsnSuffix, Point.LineGiven, Point.SDTString,
//     CheckSDTArgs and SDTArgIndex. ErrNotSupported (valid perf syntax
//     dwprobe does not implement) is grammar.ErrNotSupported, so that the
//     packages below probegen (SDT resolution) wrap it too.
//   - The C types of DWARF and BTF and the walk of an argument's member
//     chain over them (layer 6, below probegen): probegen/internal/ctype.
//     None of it was exported, and probegen's API is unchanged: a missing
//     member is still a *MemberError.
//   - Bootconfig: probegen/bootconfig's Render (layer 11, above probegen).
//   - --diff (layer 11, above probegen): DiffResolutions is
//     probegen/diff's Resolutions, SpecDiff its Result, DiffPoint its
//     Point, DiffCounts its Counts; Change and its values (NotInOld,
//     Unchanged, ArgsChanged, PointsChanged, Moved, Broken),
//     BuildResolution, PointKey, ArgChange, NormalizeStatement, Suggest,
//     SuggestQuery, Suggestion, DeclLine, LineTexts and NewLineTexts keep
//     their names in probegen/diff. The placeholder written for an
//     argument missing at some points is exported as ArgPlaceholder, which
//     the diff compares against.
//   - What a resolution answers (layer 7, below probegen): probegen/answer
//     holds, under the same names and with the same fields and methods,
//     Resolution (Spec, Probes, Notes; Definitions), Probe (Definition),
//     ProbeKind (String) and its values ProbeEntry, ProbeLine,
//     ProbeOffset, ProbeReturn, ProbeSDT, ProbeAddress, ProbeTracepoint;
//     Attach; ArgRead (String); CType; Location (Memory, String); LocKind
//     (String) and its values LocRegister, LocAddress, LocConst, LocComm,
//     LocKernel, LocUnreadable; Note (String); NoteKind (String) and its
//     values NoteOther, NoteNotrace, NoteInitText, NoteNotUnique,
//     NotePrologue, NoteNearest, NoteOverload, NoteSymbolsOnly,
//     NoteArgFilled, NoteArgSkipped, NoteGlobal, NoteUnsafe; and
//     NoteTexts. It also exports what probegen builds them with:
//     NewArgRead, ArgRead.WrittenAs, Attach.Target and Attach.Place.
//     Resolve stays here; ExampleProbe is ExampleResolver_Resolve_copies.
//   - SDT resolution (layer 8, below probegen): probegen/sdtprobe resolves
//     an SDT spec at a user binary's markers on its own (Resolver.Resolve
//     still takes SDT specs and holds them to ResolveOptions.MaxProbes).
//     Its names lose their SDT prefix: SDTResolve is sdtprobe.Resolve
//     (without the ResolveOptions; the resolver returns the
//     *TooManyError), SDTArg is Arg, SDTArgError ArgError, SDTOperands
//     Operands, SDTSymbols Symbols, SDTNotFoundError NotFoundError,
//     SDTMarkerName MarkerName, SDTNames Names and SDTGroupPrefix
//     GroupPrefix, with their fields and methods. SDTMarker and
//     Target.SDTMarkers stay here.
//   - Finding and reading a target's source files (layer 6, below
//     probegen): probegen/sources holds Sources (Find, Shown, DeclText,
//     LineText, LazyLines) and SourceError under the same names;
//     NewSources is sources.New. Target.Sources returns a
//     *sources.Sources.
//   - The listings (layer 9, below probegen, which resolves what they
//     list): probegen/listing holds, under the same names and with the
//     same fields and methods, Listing, ListedLine, LinePoint and
//     ErrShortSource (-L); VarOptions, VarList, UnreadableVar,
//     DefaultVarFilter and PerfPoint (-V); Functions and
//     DefaultFuncFilter (-F), with FilterFuncs, the BTF list's filter;
//     EventLine, SpecPoint, TracePoint (Describe), ParseTracePoint and
//     Mapper (Describe) (-l). Target.Mapper stays, returning a
//     *listing.Mapper (listing.NewMapper makes one from a
//     *dwarfres.File). ListLines, ListLineVars and AvailableVars stay
//     here (they resolve a spec: a line range's symbol alias and a
//     kernel point's _text+OFFS are the resolver's) and answer with
//     listing's types; listing.List lists a line range found. PerfArg
//     stays here: it reads an argument's member chain with the
//     resolver's argument parser.
//
// ResolveAll is Stream over a slice: a fault reading a mapped input now
// ends a batch, failing the spec it hit and those after it, as it ends a
// dwprobe run. OpenOptions.Locator still overrides the whole debuginfo
// search.
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 10,
// importing probegen/grammar (the specs it resolves),
// probegen/internal/ctype (the C types it reads arguments with),
// probegen/answer (what it answers), probegen/sdtprobe (SDT specs),
// probegen/sources (a target's source files), probegen/listing (the
// listings' answers),
// dwarfres (and its sub-packages), lazymatch and tracefs; only
// probegen/diff (layer 11) and the command line import it. The machine models that were
// probegen/arch are tracefs/arch (tracefs checks register names with
// them, and may not import probegen).
package probegen
