// Package ctype is probegen's one model of a C type as probe arguments
// see it, whether it comes from DWARF (a type DIE) or BTF, and the walk
// of an argument's C expression over it: members through pointers and
// unnamed members, array indexes, bitfields, the fetch type a value is
// read with and the type names of -V, as perf's convert_variable_fields,
// convert_variable_type and die_get_typename do them. It says how far a
// fetcharg moves and whether through a pointer; the fetcharg itself is
// probegen's.
//
// Layer 6 (probegen/layers_test.go): it imports dwarfres and
// dwarfres/btf only, beside probegen/grammar; probegen imports it. It is
// internal: probegen's API shows none of it.
//
// # Jobs cut out of probegen
//
// It was probegen's ctype.go, ctype_dwarf.go, ctype_btf.go and
// ctypewalk.go, castdwarf.go's memberChainOffset (MemberOffset) and
// args.go's btfFetch (KernelFetchType).
// None of it was exported. The walk's steps (Select, Index) now return
// the offset to move by and probegen's fetch applies them; a missing
// member is a *MemberError here, which probegen gives out as
// probegen.MemberError with its suggestions.
package ctype
