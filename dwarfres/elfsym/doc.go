// Package elfsym is perf's view of an ELF object's symbols and the kernel
// image's symbol facts: the text symbol map perf probe names addresses
// with (symbol+offset, aliases and zero-sized symbols resolved as its
// rbtree does), name counts for kallsyms uniqueness, the function symbol
// covering an address, data symbols and addresses by name, and for a
// vmlinux or module its ftrace call sites (notrace), its static
// branches, whether kallsyms lists data, and linux_banner's version. It
// reads an elfobj.Object and no DWARF.
//
//   - image.go: Image, an object's symbol facts, each read once.
//   - symtab.go: Symtab, the map (At, UniqueBefore, Lookup, Named, Count,
//     Each).
//   - encode.go: a Symtab as an index stores it (Encode, Decode): the
//     numbers of its symbols in the table, by address.
//   - symenc.go: a decoded map's answers through the same methods, its
//     symbols read from the table and checked as they are used (a record
//     that fails a check gives way to the table's own map).
//   - funcsym.go: the function symbol covering an address, outside perf's
//     map too (FuncSymbolAt).
//   - data.go: data symbols (DataSymbol, ExportedData) and SymbolAddr.
//   - ftrace.go: the ftrace call-site table and Notrace (trace_kprobe.c's
//     rule: sites before arm64 6.12's functions, suffixed names by base).
//   - jumptable.go: the static branches (jump labels) of a vmlinux or
//     module, from __jump_table: each one's code and out-of-line block
//     (StaticBranchesTo, StaticBranchAt), for the line rule.
//   - kallsyms.go: whether a kernel's kallsyms lists data symbols.
//   - kversion.go: the kernel's version and release from linux_banner.
//   - scans.go: answering by scans first, by a table built once after.
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 3,
// importing elfobj and dwarfres/internal only, never dwarfres itself.
package elfsym
