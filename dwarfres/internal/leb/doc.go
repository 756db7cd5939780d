// Package leb reads DWARF's LEB128 numbers: one decoder for dwarfres's
// section cursor and dwarfres/cfi's call-frame instructions.
//
// Its place in dwprobe's import order (probegen/layers_test.go): a leaf,
// importing no dwprobe package.
package leb
