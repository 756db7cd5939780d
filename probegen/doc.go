// Package probegen turns perf probe 6.1's requests into answers, from
// debuginfo read by dwarfres: it parses probe commands and line ranges,
// resolves them to probe points with perf's rules (and dwprobe's refusals
// of what the kernel would reject), names the events the way perf does,
// and builds their definitions as tracefs.Event values (the kernel's
// language is tracefs's: its printer, its validator, its name rules); it
// also lists the variables at a point (-V), a function's source lines (-L,
// with ListLineVars each line's points and variables: linelisting.go)
// and the functions (-F). SDT markers (sdt*.go) resolve from their notes
// alone: the note's operands become fetch arguments per machine
// (sdt_x86_64.go, sdt_aarch64.go), as perf writes them. C++, Rust and Go
// names (ns::C::m, "quoted", FUNC@*, main.fn:LINE) are parsed in spec.go;
// Go's %return is refused and FUNC%ret probes each return instruction,
// reading results from the ABI's registers (goret.go); overload.go lists a
// C++ name's overloads. Every fact that differs between machines
// (registers, calling conventions, instruction rules) is a field or method
// of the file's tracefs/arch value, chosen from its ELF machine.
// An argument's VAR->a.b[N] and its fetch type
// come from one walk (ctypewalk.go) over one view of C types (ctype.go),
// from DWARF (ctype_dwarf.go) or BTF (ctype_btf.go).
// What answers for a target (its DWARF, its symbol
// table, its SDT notes or the kernel's BTF) is chosen by OpenTarget
// (target.go); btf.go resolves from BTF.
// Kernels from 6.5 take f: fprobes, which fprobe.go makes of probes at a
// function's entry or return (ResolveOptions.FProbe), and t: tracepoint
// probes, which tracepoint.go makes of "t:TRACEPOINT ARGS" specs, their
// members checked in the kernel's BTF.
// The library's API, which dwprobe's command line is the first user of:
// Open (open.go) opens every target dwprobe opens, with the options its
// flags map to (OpenOptions: -x, -k, -m, --btf, --symfs, --target-ns,
// --debuginfod, -s and --source-prefix-map); a Target says what answers
// for it, its machine (Arch), its sources and the path its uprobes name;
// its Resolver (resolver.go) resolves specs against it, one at a time or
// in a batch streamed in spec order (Stream, ResolveAll, SpecError in
// stream.go; on up to BatchWorkers cores against debuginfo), to a
// Resolution: its spec, its Probes (probe.go) and its notes (typed:
// notes.go), one list. A Probe is one point: what
// it attaches to (Attach: a kprobe's symbol, offset and module, a
// uprobe's binary, file offset and semaphore), its machine, the ELF symbol
// covering its address, its source position and inline site, its event's
// name and how each argument is read there (ArgRead: its C type, fetch
// type, fetcharg and a Location, location.go, the fetcharg as a plan of
// register, address and loads); the definition dwprobe writes is rendered
// from it (Probe.Definition).
// modtext.go warns of kprobes in the last function of an x86-64 module's
// text, whose registration oopses Linux 6.12.
// diff.go compares one spec's resolutions in two builds (points by
// function, inline chain and line text, arguments by fetch plan);
// diffsuggest.go finds the old statement's line in the new build.
//
// Resolving touches no kernel, and the only files it reads besides
// debuginfo are the sources of line listings and lazy patterns (Sources):
// the grammar and the naming rules are pure functions that can be tested
// exhaustively without a kernel. Open reads the running kernel where the
// target is it, or has to be found for it (OpenOptions.Running): its
// release, its BTF and kallsyms (dwarfres/btf), ftrace's traceable
// functions when the caller gives them; and it may fetch debuginfo and
// sources from debuginfod servers. Writing to the kernel is tracefs's. Errors wrap the sentinels of errors.go
// (or tracefs's) or carry their data in types (SyntaxError, PointError,
// TooManyError, ...) and never name a command-line option: the caller
// words those.
//
// # Removed and renamed
//
// A Resolution was three parallel lists; it is one (issue 30):
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
//   - DiffPoint.Point and LineTexts.Texts: a Probe, []Probe (were
//     ResolvedPoint).
//   - Resolver.Brief: still Probes, without their ELF symbol, source
//     position and argument Locations (it left out Points and Probes).
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
// ResolveAll is Stream over a slice: a fault reading a mapped input now
// ends a batch, failing the spec it hit and those after it, as it ends a
// dwprobe run. OpenOptions.Locator still overrides the whole debuginfo
// search.
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 6,
// importing dwarfres (and its sub-packages), lazymatch and tracefs; only
// ebpfprobe and the command line import it. The machine models that were
// probegen/arch are tracefs/arch (tracefs checks register names with
// them, and may not import probegen).
package probegen
