package locate

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"path/filepath"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// DebugLink is a binary's .gnu_debuglink: the file name of its separate
// debuginfo and the CRC-32 of that file's contents, as objcopy
// --add-gnu-debuglink writes them.
type DebugLink struct {
	Name string
	CRC  uint32
}

// ParseDebugLink decodes a .gnu_debuglink section: a NUL-terminated file
// name (no directory), padding to 4 bytes, and the CRC-32 (IEEE, as
// zlib's crc32) in the file's byte order. Errors wrap elfobj.ErrMalformed.
func ParseDebugLink(b []byte, order binary.ByteOrder) (DebugLink, error) {
	n := bytes.IndexByte(b, 0)
	if n <= 0 {
		return DebugLink{}, &elfobj.DecodeError{Section: ".gnu_debuglink", Msg: "no NUL-terminated file name"}
	}
	name := string(b[:n])
	if strings.Contains(name, "/") || name == "." || name == ".." {
		return DebugLink{}, &elfobj.DecodeError{Section: ".gnu_debuglink", Msg: fmt.Sprintf("file name %q is not a plain name", name)}
	}
	off := (n + 4) &^ 3
	if off+4 > len(b) {
		return DebugLink{}, &elfobj.DecodeError{Section: ".gnu_debuglink", Offset: uint64(off), Msg: "no CRC after the file name"}
	}
	return DebugLink{Name: name, CRC: order.Uint32(b[off:])}, nil
}

// DebugLinkDirs finds the file a .gnu_debuglink names where gdb looks for
// it: beside the binary, in .debug/ beside it, and under the global debug
// directory followed by the binary's directory (/usr/lib/debug/usr/bin/
// for /usr/bin/app). Global is that directory, already under a --symfs
// root; Root is the root itself, taken off the binary's path to make the
// global one (Inner). A file whose CRC-32 is not the link's is passed
// over; when no candidate matches and one had another CRC, Find returns a
// *DebugLinkCRCError.
type DebugLinkDirs struct {
	Global string
	Root   string
}

// Find looks for w.Link in the three places.
func (d DebugLinkDirs) Find(w Wanted) (string, []string, error) {
	if w.Link == nil || w.Path == "" {
		return "", nil, nil
	}
	dir := filepath.Dir(w.Path)
	paths := []string{filepath.Join(dir, w.Link.Name), filepath.Join(dir, ".debug", w.Link.Name)}
	if d.Global != "" {
		// The global directory mirrors the binary's absolute directory
		// (gdb's is the objfile's absolute name): -x dl/app from /srv is
		// /usr/lib/debug/srv/dl/, not /usr/lib/debug/dl/.
		abs, err := filepath.Abs(dir)
		if err != nil {
			abs = dir
		}
		paths = append(paths, filepath.Join(d.Global, innerOr(d.Root, abs), w.Link.Name))
	}
	var bad *DebugLinkCRCError
	for i, p := range paths {
		if p == w.Path || !isRegular(p) {
			continue
		}
		crc, err := fileCRC(p)
		if err != nil {
			return "", paths[:i+1], err
		}
		if crc == w.Link.CRC {
			return p, paths[:i+1], nil
		}
		if bad == nil {
			bad = &DebugLinkCRCError{Path: p, Binary: w.Path, Want: w.Link.CRC, Got: crc}
		}
	}
	if bad != nil {
		return "", paths, bad
	}
	return "", paths, nil
}

// fileCRC is the CRC-32 of the file at p, gdb's gnu_debuglink_crc32.
func fileCRC(p string) (uint32, error) {
	fh, err := elfobj.OpenRegular(p)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, fh); err != nil {
		return 0, fmt.Errorf("%s: %w", p, err)
	}
	return h.Sum32(), nil
}

// DebugLinkCRCError reports that the file a .gnu_debuglink names exists
// but is not the one the link was made for (its CRC-32 differs: rebuilt,
// or another program's). It wraps ErrNoDebugInfo and ErrDebugLinkCRC.
type DebugLinkCRCError struct {
	Path, Binary string
	Want, Got    uint32
}

func (e *DebugLinkCRCError) Error() string {
	return fmt.Sprintf("%s: CRC %08x does not match the %08x of %s's .gnu_debuglink (debuginfo of another build?)", e.Path, e.Got, e.Want, e.Binary)
}

func (e *DebugLinkCRCError) Unwrap() []error { return []error{ErrDebugLinkCRC, ErrNoDebugInfo} }

// DistroDebugPaths is where perf 6.1 looks for a user binary's debuginfo
// by its path, under Dir (the debug directory, already under a --symfs
// root; Root that root): Fedora's Dir/PATH.debug, Ubuntu's Dir/PATH,
// OpenEmbedded's DIR/.debug/NAME beside the binary, and Ubuntu's mixed-up
// Dir/lib/... for /usr/lib/... (perf's distro_dwarf_types). A kernel
// module's are ModuleDebugTree's. The build-id of a file found is checked
// when it is attached.
type DistroDebugPaths struct {
	Dir  string
	Root string
}

// Find tries perf's distribution paths for w.Path.
func (d DistroDebugPaths) Find(w Wanted) (string, []string, error) {
	if w.Path == "" || w.Module != "" || !filepath.IsAbs(w.Path) {
		return "", nil, nil
	}
	inner := innerOr(d.Root, w.Path)
	paths := []string{
		filepath.Join(d.Dir, inner) + ".debug",
		filepath.Join(d.Dir, inner),
		filepath.Join(filepath.Dir(w.Path), ".debug", filepath.Base(w.Path)),
	}
	if rest, ok := strings.CutPrefix(inner, "/usr/lib/"); ok {
		paths = append(paths, filepath.Join(d.Dir, "lib", rest))
	}
	return firstExisting(paths, isRegular)
}

// innerOr is p as seen inside root (Inner), or p itself when there is no
// root or p is not under it.
func innerOr(root, p string) string {
	if root == "" {
		return p
	}
	if in, ok := Inner(root, p); ok {
		return in
	}
	return p
}
