package dwarfres

import (
	"bytes"
	"strconv"
)

// KernelVersion returns the major and minor version of the kernel f is,
// read from its linux_banner ("Linux version 6.1.0-18-amd64 (...)"); ok is
// false for a file that is no kernel or whose banner can't be read (a
// debuginfo file without the data).
func (f *File) KernelVersion() (major, minor int, ok bool) {
	addr, found := f.SymbolAddr("linux_banner")
	if !found {
		return 0, 0, false
	}
	b, err := f.Bytes(addr, 64)
	if err != nil {
		return 0, 0, false
	}
	return parseBanner(b)
}

// parseBanner reads "MAJOR.MINOR" after "Linux version ".
func parseBanner(b []byte) (major, minor int, ok bool) {
	rest, found := bytes.CutPrefix(b, []byte("Linux version "))
	if !found {
		return 0, 0, false
	}
	majS, rest, found := bytes.Cut(rest, []byte("."))
	if !found {
		return 0, 0, false
	}
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	maj, err1 := strconv.Atoi(string(majS))
	mnr, err2 := strconv.Atoi(string(rest[:end]))
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return maj, mnr, true
}
