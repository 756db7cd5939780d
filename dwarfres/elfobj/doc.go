// Package elfobj is one ELF object, mapped: its sections (SHF_COMPRESSED
// and GNU .zdebug_ ones decompressed, a relocatable object's debug
// sections relocated), the bytes at a virtual address, notes and the GNU
// build-id, the raw symbol-table entries, a kernel module's section
// layout, and compressed modules opened in memory. It knows nothing of
// DWARF: dwarfres builds its debuginfo state on an Object, as debug/dwarf
// is built from debug/elf's sections.
//
//   - object.go: Object, Open (a mapped file), FromSections (sections held
//     in memory: split DWARF's synthetic file, tests), Close, ReleasePages.
//   - guard.go: Guard, the one recover of a panic in debug/elf or
//     debug/dwarf on a hostile file; fault.go the FaultError of a mapped
//     file truncated under a read, named through the live mappings.
//   - open.go: OpenRegular, the one opener of inputs: regular files only,
//     a FIFO refused without blocking (NotRegularError).
//   - section.go: Section (decompressed, relocated, cached), RawSection;
//     zdebug.go decodes the GNU .zdebug_ form and SHF_COMPRESSED sections
//     (zlib, zstd), refusing a size claim past what the stream allows
//     before allocating it.
//   - notes.go: the GNU build-id note.
//   - rawsym.go: symbol-table entries straight from the mapping.
//   - module.go, reloc.go: a relocatable object's layout and relocations.
//   - text.go: bytes, file offsets and sections of virtual addresses.
//   - decompress.go: OpenAny and OpenAnyContext, a gzip, xz or zstd
//     compressed file, bounded by its own size (boundFor) and the zstd
//     window, interruptible; sniff.go names what a file that is not ELF is.
//   - errors.go: the sentinels and the *DecodeError of malformed input.
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 2,
// importing no dwprobe package but the leaves; everything of dwarfres
// builds on it.
package elfobj
