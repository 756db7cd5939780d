package elfobj

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// MaxDecompressed bounds what a compressed file may expand to: the largest
// Debian module with its debuginfo is under 100 MB, so a file expanding
// past this is corrupt or hostile, not a module.
const MaxDecompressed = 1 << 30

// Below MaxDecompressed, a compressed file may expand to the larger of
// maxRatio times its size (minBound whatever its size) and the size its
// own ELF header gives (the end of its section header table, which the
// linker writes last; up to maxClaimed): modules with their debuginfo
// compress 4 to 10 times, but one with a large zeroed section compresses
// far more, and is still the module its header says. What does not start with an ELF
// header is refused after its first bytes (64 MB of zeros is a 2 KB
// .ko.zst), and a file expanding past its own header's size is not
// that ELF either.
const (
	maxRatio = 100
	minBound = 16 << 20
	// maxClaimed bounds what an ELF header's size may raise the bound
	// to: a crafted header must not have a 2 KB file fill a gigabyte.
	maxClaimed = 256 << 20
)

// maxWindow bounds the zstd window (its history, allocated whole): 128
// MB is zstd --ultra -22's, the largest any level writes; a frame asking
// more is refused before anything is allocated.
const maxWindow = 1 << 27

// boundFor is what a compressed file of size bytes may expand to, before
// its ELF header is read.
func boundFor(size int64) int {
	return int(min(max(size*maxRatio, minBound), MaxDecompressed))
}

// elfEnd is the end of the section header table the ELF header hdr (at
// least 64 bytes) places, 0 if hdr is not an ELF header.
func elfEnd(hdr []byte) uint64 {
	if len(hdr) < 64 || string(hdr[:4]) != "\x7fELF" {
		return 0
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if hdr[5] == 2 {
		bo = binary.BigEndian
	}
	switch hdr[4] {
	case 1: // ELFCLASS32
		return uint64(bo.Uint32(hdr[0x20:])) + uint64(bo.Uint16(hdr[0x2e:]))*uint64(bo.Uint16(hdr[0x30:]))
	case 2:
		return bo.Uint64(hdr[0x28:]) + uint64(bo.Uint16(hdr[0x3a:]))*uint64(bo.Uint16(hdr[0x3c:]))
	}
	return 0
}

// ExpandError reports a compressed file that expands past Bound bytes,
// dwprobe's bound against decompression bombs: maxRatio times its Size
// (at least 16 MB, at most MaxDecompressed), or the size its ELF header
// gives (at most 256 MB), whichever is larger. It wraps ErrExpandBound: a file that is not corrupt
// may still be refused, and an uncompressed copy has no bound. Hint is
// the caller's wording of what to do.
type ExpandError struct {
	Path, Codec string
	Size        int64 // the compressed file's bytes
	Bound       int
	Hint        string
}

func (e *ExpandError) Error() string {
	s := fmt.Sprintf("%s: %s-compressed file of %d bytes %v, %d bytes (%d times its size, at least %d MB, or the size its ELF header gives, up to %d MB)",
		e.Path, e.Codec, e.Size, ErrExpandBound, e.Bound, maxRatio, minBound>>20, maxClaimed>>20)
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

func (e *ExpandError) Unwrap() error { return ErrExpandBound }

// errExpands: decompress stopped at its bound.
var errExpands = errors.New("expands past its bound")

// A codec is one compression kernel modules are installed with
// (CONFIG_MODULE_COMPRESS_{GZIP,XZ,ZSTD}), known by its magic.
type codec struct {
	name   string
	magic  []byte
	reader func(io.Reader) (io.ReadCloser, error)
}

var codecs = []codec{
	{"gzip", []byte{0x1f, 0x8b}, func(r io.Reader) (io.ReadCloser, error) { return gzip.NewReader(r) }},
	{"xz", []byte{0xfd, '7', 'z', 'X', 'Z', 0}, newXZ},
	{"zstd", []byte{0x28, 0xb5, 0x2f, 0xfd}, newZstd},
}

func newXZ(r io.Reader) (io.ReadCloser, error) {
	x, err := xz.NewReader(r)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(x), nil
}

func newZstd(r io.Reader) (io.ReadCloser, error) {
	// One goroutine: a module is small, and the machine is shared. Low
	// memory: buffers grow as the data needs, not to the window's size.
	d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxDecompressed),
		zstd.WithDecoderMaxWindow(maxWindow), zstd.WithDecoderLowmem(true))
	if err != nil {
		return nil, err
	}
	return d.IOReadCloser(), nil
}

// codecOf returns the codec whose magic head starts with, or nil.
func codecOf(head []byte) *codec {
	for i := range codecs {
		if bytes.HasPrefix(head, codecs[i].magic) {
			return &codecs[i]
		}
	}
	return nil
}

// CompressedError reports a compressed file that does not decompress
// (truncated, corrupt, or larger than MaxDecompressed); it wraps
// ErrCompressed.
type CompressedError struct {
	Path  string
	Codec string
	Err   error
}

func (e *CompressedError) Error() string {
	return fmt.Sprintf("%s: %v (%s): %v", e.Path, ErrCompressed, e.Codec, e.Err)
}

func (e *CompressedError) Unwrap() error { return ErrCompressed }

// OpenAny is OpenAnyContext without a way to interrupt it.
func OpenAny(path string) (*Object, error) {
	return OpenAnyContext(context.Background(), path)
}

// OpenAnyContext opens path as Open does, decompressing it first into
// memory when it is gzip, xz or zstd compressed (a module installed as
// .ko.gz, .ko.xz or .ko.zst): no temporary file is written, and the
// decompression stops with ctx's error once ctx is done. The File keeps
// path as its name. Errors wrap those of Open, ctx's, or ErrCompressed (a
// *CompressedError).
func OpenAnyContext(ctx context.Context, path string) (*Object, error) {
	fh, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	head := make([]byte, 8)
	n, _ := io.ReadFull(fh, head)
	c := codecOf(head[:n])
	if c == nil {
		return Open(path)
	}
	if _, err := fh.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	data, bound, err := decompress(ctx, c, fh, boundFor(st.Size()))
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	switch {
	case errors.Is(err, errExpands):
		return nil, &ExpandError{Path: path, Codec: c.name, Size: st.Size(), Bound: bound}
	case errors.Is(err, errNotELFStart):
		return nil, fmt.Errorf("%s: %w (it is %s-compressed, and what it decompresses to is not)", path, ErrNotELF, c.name)
	case err != nil:
		return nil, &CompressedError{Path: path, Codec: c.name, Err: err}
	}
	return openMemory(path, data)
}

// errNotELFStart: what a compressed file decompresses to does not start
// with an ELF header.
var errNotELFStart = errors.New("not an ELF header")

// ctxReader reads r until ctx is done: a signal ends a decompression
// between two reads of its output (a small file may expand for long
// without reading its input again).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// decompress reads all of r through c, up to limit bytes or, past it,
// the size the ELF header it starts with gives (up to MaxDecompressed);
// bound is the one that held. What does not start with an ELF header is
// errNotELFStart after its first 64 bytes; past the bound, errExpands.
func decompress(ctx context.Context, c *codec, r io.Reader, limit int) (data []byte, bound int, err error) {
	dr, err := c.reader(r)
	if err != nil {
		return nil, limit, err
	}
	defer dr.Close()
	in := ctxReader{ctx, dr}
	hdr := make([]byte, 64)
	n, err := io.ReadFull(in, hdr)
	switch {
	case n == 0 && err == io.EOF:
		return nil, limit, errors.New("empty")
	case n == 0 && err == io.ErrUnexpectedEOF:
		// A stream cut before its first block's end (xz writes
		// nothing until then).
		return nil, limit, errors.New("truncated")
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		// Shorter than an ELF header: openMemory says so.
		return hdr[:n], limit, nil
	case err != nil:
		return nil, limit, err
	}
	end := elfEnd(hdr)
	if end == 0 {
		return nil, limit, errNotELFStart
	}
	bound = int(max(uint64(limit), min(end, maxClaimed)))
	rest, err := io.ReadAll(io.LimitReader(in, int64(bound-len(hdr))+1))
	data = append(hdr, rest...)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return nil, bound, errors.New("truncated")
	case err != nil:
		return nil, bound, err
	case len(data) > bound:
		return nil, bound, errExpands
	}
	return data, bound, nil
}

// openMemory opens the ELF in data, copied into an anonymous mapping so
// that the File is unmapped by Close as a mapped file is.
func openMemory(path string, data []byte) (*Object, error) {
	if len(data) < 64 {
		return nil, fmt.Errorf("%s: %w (only %d bytes decompressed)", path, ErrNotELF, len(data))
	}
	m, err := syscall.Mmap(-1, 0, len(data), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("%s: map: %w", path, err)
	}
	copy(m, data)
	return openMapped(path, m, nil)
}
