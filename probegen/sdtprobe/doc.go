// Package sdtprobe resolves an SDT spec (%[GROUP:]EVENT) at a user
// binary's SDT markers (its .note.stapsdt, read by dwarfres/sdt): a
// uprobe at every marker the spec matches, written as perf's
// synthesize_sdt_probe_command writes it, the marker's semaphore as the
// uprobe's reference counter, and its arguments read from the note's
// operands (Operands, Arg: the x86-64 and arm64 operand grammars in
// sdt_x86_64.go and sdt_aarch64.go), or those the spec picks. Resolve
// answers with a probegen/answer Resolution, each argument's read plan
// included.
//
// Errors: no marker at all wraps sdt.ErrNoSDT; none that matches is a
// *NotFoundError (wrapping dwarfres.ErrNotFound, with the markers there
// are); an operand the kernel cannot read, asked for, is an *ArgError
// (wrapping grammar.ErrNotSupported); an argument that is not argN, or
// past the note's, a *grammar.SyntaxError.
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 8,
// between probegen/answer and probegen, the resolver, which hands it SDT
// specs (and holds them to ResolveOptions.MaxProbes); it imports
// probegen/answer, probegen/grammar, dwarfres and dwarfres/sdt (the
// binary's symbols and markers), lazymatch (the spec's globs), tracefs
// and tracefs/arch.
package sdtprobe
