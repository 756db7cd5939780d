// Package dwarftest assembles DWARF by hand for tests: compile units of
// DWARF 4 or 5 from a tree of DIEs, and the sections that location and
// frame questions need (.debug_addr, .debug_loclists, .debug_loc,
// .debug_frame). Compilers emit each form only when they please; with
// these, a test pins one rule of a DWARF reader on exactly the input that
// exercises it.
//
// Everything is 32-bit DWARF with 8-byte addresses. Units take their byte
// order from the caller; the other sections are little endian.
package dwarftest
