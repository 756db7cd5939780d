package elfobj

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unicode/utf8"
)

// sniff names what a non-ELF file is, when its first bytes tell cheaply,
// so the user learns what they passed instead of "bad magic number": a
// compressed or boot kernel image (with where the debuginfo vmlinux is),
// a compressed file, a text file. "" when nothing is recognised.
func sniff(data []byte) string {
	if k, rel := sniffKernelImage(data); k != "" {
		if rel == "" {
			rel = "RELEASE"
		}
		return fmt.Sprintf("%s; probes need the vmlinux with debuginfo (Debian ships it in "+
			"linux-image-%s-dbg as /usr/lib/debug/boot/vmlinux-%s)", k, rel, rel)
	}
	for _, m := range compressMagics {
		if bytes.HasPrefix(data, m.magic) {
			return "a " + m.name + "-compressed file (a vmlinuz? probes need the uncompressed ELF with debuginfo)"
		}
	}
	if isText(data[:min(len(data), 512)]) {
		return "a text file"
	}
	return ""
}

var compressMagics = []struct {
	magic []byte
	name  string
}{
	{[]byte{0x1f, 0x8b}, "gzip"},
	{[]byte{0xfd, '7', 'z', 'X', 'Z', 0}, "xz"},
	{[]byte{0x28, 0xb5, 0x2f, 0xfd}, "zstd"},
	{[]byte("BZh"), "bzip2"},
	{[]byte{0x02, 0x21, 0x4c, 0x18}, "lz4"},
	{[]byte{0x5d, 0, 0}, "lzma"},
}

// sniffKernelImage recognises the boot images a kernel build makes besides
// vmlinux: x86's bzImage (the "HdrS" setup header, whose kernel_version
// field points at the release string), arm64's Image ("ARM\x64" at 0x38)
// and an EFI zboot image ("zimg" after "MZ"); release is "" when the
// image does not tell it cheaply.
func sniffKernelImage(data []byte) (what, release string) {
	switch {
	case len(data) > 0x210 && string(data[0x202:0x206]) == "HdrS":
		rel := bzRelease(data)
		if rel != "" {
			return "a compressed x86 kernel image (bzImage) of release " + rel, rel
		}
		return "a compressed x86 kernel image (bzImage)", ""
	case len(data) > 0x40 && string(data[0x38:0x3c]) == "ARM\x64":
		return "an arm64 kernel boot image (Image, no debuginfo)", ""
	case len(data) > 8 && string(data[0:2]) == "MZ" && string(data[4:8]) == "zimg":
		return "a compressed EFI kernel image (zboot)", ""
	}
	return "", ""
}

// bzRelease is the release from a bzImage's kernel_version string (at
// its setup header's offset 0x20e, relative to 0x200), "" when unreadable.
func bzRelease(data []byte) string {
	p := int(binary.LittleEndian.Uint16(data[0x20e:])) + 0x200
	if p >= len(data) || binary.LittleEndian.Uint16(data[0x20e:]) == 0 {
		return ""
	}
	s := data[p:min(len(data), p+128)]
	if i := bytes.IndexAny(s, " \x00"); i > 0 {
		return string(s[:i])
	}
	return ""
}

// isText: valid UTF-8 without control bytes other than whitespace.
func isText(b []byte) bool {
	if len(b) == 0 || !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' {
			return false
		}
	}
	return true
}
