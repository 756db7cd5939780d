package elfsym

import (
	"bytes"
	"strconv"
)

// KernelVersion returns the major and minor version of the kernel im is,
// read from its linux_banner ("Linux version 6.1.0-18-amd64 (...)"); ok is
// false for a file that is no kernel or whose banner can't be read (a
// debuginfo file without the data).
func (im *Image) KernelVersion() (major, minor int, ok bool) {
	b, ok := im.banner()
	if !ok {
		return 0, 0, false
	}
	return parseBanner(b)
}

// KernelRelease returns the release of the kernel im is, as uname -r gives
// it, from its linux_banner ("Linux version 6.1.0-18-amd64 (...)"); ok as
// KernelVersion's.
func (im *Image) KernelRelease() (string, bool) {
	b, ok := im.banner()
	if !ok {
		return "", false
	}
	rest, found := bytes.CutPrefix(b, []byte("Linux version "))
	rel, _, spaced := bytes.Cut(rest, []byte(" "))
	if !found || !spaced || len(rel) == 0 {
		return "", false
	}
	return string(rel), true
}

// banner is the start of im's linux_banner, long enough for any release.
func (im *Image) banner() ([]byte, bool) {
	addr, found := im.SymbolAddr("linux_banner")
	if !found {
		return nil, false
	}
	b, err := im.obj.Bytes(addr, 128)
	return b, err == nil
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
