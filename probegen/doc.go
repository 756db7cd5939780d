// Package probegen resolves perf probe specs ("vfs_read:12 file->f_mode",
// "work%return $retval", "fs/read_write.c:470") against a program's or a
// kernel's debuginfo into probe points: where a kprobe or uprobe goes, how
// each argument is read there, and the kprobe_events or uprobe_events
// definition perf would write. dwprobe's command line is built on it.
//
// # Targets
//
// Open opens what a spec is resolved against, as dwprobe's -x, -k and -m
// do: a user binary, a vmlinux or a kernel module. Its DWARF answers when
// it has some (found beside it, by build-id, through debuginfod, dwz and
// split DWARF followed); else its symbol table (function entries and
// offsets), its SDT markers, or the kernel's BTF (entries, returns and
// their parameters). Target.Arch is the probed machine (x86_64 or arm64,
// not necessarily this host's); every fact that differs between machines
// (registers, calling conventions) comes from it.
//
// # Resolving
//
// A Resolver resolves specs one at a time (Resolve) or in a batch
// (ResolveAll, which goes on past a failing spec and keeps the order); it
// may be used from several goroutines at once. A Resolution holds, per
// point, a Probe:
//
//   - Where: its kind (entry, line, offset, return, SDT, ...), the
//     kprobe's symbol and offset or the uprobe's binary and file offset,
//     the source line, the function and the function an inlined copy of
//     it sits in.
//   - Copies: a function may be inlined in many places and a line spread
//     over several places of one copy (a point each, as perf writes
//     them). Copy numbers the copy of a point; First marks one point per
//     copy and line, for a tool that wants about one record per
//     execution of a line (see the Probe example).
//   - Arguments: each ArgRead has the name the kernel gives it, its C
//     type (CType: "struct file*", the fetch type, string, bitfield,
//     array) and a Location: a register, a global's address (Symbol and
//     SymbolOffset), a constant or $comm, then a chain of loads; or
//     "unreadable" with the reason (optimized out in this copy). It is
//     the definition's fetcharg as a plan, which probegen/ebpfprobe turns
//     into BPF instructions.
//   - Event: the definition, as tracefs prints and validates it.
//
// Notes (Note, typed by NoteKind) say what a caller may want to tell the
// user: a notrace function the kernel refuses, init text, a symbol that
// is not unique, the nearest line probed instead.
//
// # Errors
//
// Errors wrap sentinels (ErrSyntax, ErrNotSupported, dwarfres.ErrNotFound,
// ...) and carry their data in types a program can act on with
// errors.As: SyntaxError (with the column), VarError and MemberError (no
// such variable or member, with the closest names), TooManyError (the
// count of points past ResolveOptions.MaxProbes), NoCodeError (a line
// without code, with the nearest lines), PointError, SpecError for a
// batch. None names a command-line option: the caller words the advice.
//
// # Listings
//
// ListLines and ListLineVars list a function's or file's probeable lines
// (dwprobe -L), AvailableVars the variables at a point (-V), Functions the
// functions (-F). DiffResolutions compares one spec's resolutions in two
// builds.
//
// Nothing here touches the running kernel; the only files read besides
// debuginfo are the sources of line listings and lazy patterns.
package probegen
