// Package answer holds what a resolved probe spec answers: a Resolution
// is its spec (a grammar.Spec), its Probes and its Notes, one list. It
// resolves nothing: probegen fills it in, and probegen/ebpfprobe,
// probegen/diff and dwprobe's command line read it.
//
// Per point, a Probe holds:
//
//   - Where: its kind (ProbeKind: entry, line, offset, return, SDT, ...),
//     what it attaches to (Attach: the kprobe's symbol, offset and module
//     as written, maybe _text+OFFS; the uprobe's binary, file offset and
//     semaphore), the ELF symbol covering its address (ELFSymbol,
//     ELFOffset), its machine, the source line, the function and the
//     function an inlined copy of it sits in.
//   - Copies: a function may be inlined in many places and a line spread
//     over several places of one copy (a point each, as perf writes
//     them). Copy numbers the copy of a point; First marks one point per
//     copy and line, for a tool that wants about one record per
//     execution of a line.
//   - Arguments: each ArgRead has the name the kernel gives it, its C
//     type (CType: "struct file*", the fetch type, string, bitfield,
//     array) and a Location: a register, a global's address (Symbol and
//     SymbolOffset), a constant or $comm, then a chain of loads; or
//     "unreadable" with the reason (optimized out in this copy). It is
//     the definition's fetcharg as a plan, which probegen/ebpfprobe turns
//     into BPF instructions.
//   - Definition: the definition line, rendered from the fields above as
//     a tracefs.Event (tracefs prints and validates it); nothing is
//     parsed back from it. Resolution.Definitions renders them all.
//
// Notes (Note, typed by NoteKind; NoteTexts their texts) say what a
// caller may want to tell the user: a notrace function the kernel
// refuses, init text, a symbol that is not unique, the nearest line
// probed instead.
//
// What the resolver builds its answer with: NewArgRead makes an ArgRead
// of a definition's argument (its read plan on the probed machine, from
// tracefs's reading of the fetcharg), ArgRead.WrittenAs leaves to the
// kernel the name and type the definition leaves out, and Attach.Target
// and Attach.Place write an Attach as a definition's target.
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 7,
// between the spec grammar and the resolver; it imports probegen/grammar
// (a Resolution's spec), tracefs (the definitions and fetchargs) and
// tracefs/arch (the machine a read plan is on), and never probegen.
package answer
