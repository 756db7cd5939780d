// Package dwarftest is what the tests of dwprobe's packages share: DWARF
// assembled by hand, the test inputs on disk, and the rule for tests that
// cannot run.
//
// DWARF by hand (unit.go, sections.go): compile units of DWARF 4 or 5 from
// a tree of DIEs, and the sections that location and frame questions need
// (.debug_addr, .debug_loclists, .debug_loc, .debug_frame). Compilers emit
// each form only when they please; with these, a test pins one rule of a
// DWARF reader on exactly the input that exercises it. Everything is
// 32-bit DWARF with 8-byte addresses. Units take their byte order from the
// caller; the other sections are little endian. btf.go marshals BTF.
//
// Inputs on disk: fixtures.go builds the fixture binaries once per test
// binary (Fixtures, Fixture), split.go the split DWARF ones; compile.go
// builds a program from source (Compile); corpus.go finds the corpus;
// sepdebug.go lays out separate debuginfo; files.go copies files, edited
// or not (CopyFile, CopyEdited), and garbles an ELF section (Garble);
// corrupt.go damages line tables; compress.go compresses as kernel modules
// are.
//
// require.go: a test that needs the corpus, root, QEMU or a tool skips with
// a reason (Skip, NeedTool, NeedCorpus) under plain go test and fails under
// make test (DWPROBE_REQUIRE_ALL=1).
//
// Its place in dwprobe's import order (probegen/layers_test.go): a leaf,
// importing no dwprobe package.
package dwarftest
