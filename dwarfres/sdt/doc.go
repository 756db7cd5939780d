// Package sdt reads the SystemTap SDT (USDT) markers of an ELF object:
// the stapsdt notes of .note.stapsdt as <sys/sdt.h> writes them, with
// perf's prelink and semaphore adjustments (populate_sdt_note). No DWARF
// is needed. probegen turns a marker's operands into fetch arguments.
//
//   - sdt.go: Marker, Markers (an object's), ParseNotes (a note section's
//     bytes), ErrNoSDT.
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 3,
// importing elfobj only, never dwarfres itself.
package sdt
