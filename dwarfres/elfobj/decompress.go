package elfobj

import (
	"bytes"
	"compress/gzip"
	"context"
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

// Below MaxDecompressed, a compressed file may expand to maxRatio times
// its size, and to minBound whatever its size: modules with their
// debuginfo compress 4 to 10 times, and a bomb (64 MB of zeros is a 2 KB
// .ko.zst) is refused after expanding to a bound its own size sets,
// instead of after a gigabyte.
const (
	maxRatio = 100
	minBound = 16 << 20
)

// maxWindow bounds the zstd window (its history, allocated whole): 128
// MB is zstd --ultra -22's, the largest any level writes; a frame asking
// more is refused before anything is allocated.
const maxWindow = 1 << 27

// boundFor is what a compressed file of size bytes may expand to.
func boundFor(size int64) int {
	return int(min(max(size*maxRatio, minBound), MaxDecompressed))
}

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
	data, err := decompress(ctx, c, fh, boundFor(st.Size()))
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, &CompressedError{Path: path, Codec: c.name, Err: err}
	}
	return openMemory(path, data)
}

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

// decompress reads all of r through c, up to limit bytes.
func decompress(ctx context.Context, c *codec, r io.Reader, limit int) ([]byte, error) {
	dr, err := c.reader(r)
	if err != nil {
		return nil, err
	}
	defer dr.Close()
	data, err := io.ReadAll(io.LimitReader(ctxReader{ctx, dr}, int64(limit)+1))
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return nil, errors.New("truncated")
	case err != nil:
		return nil, err
	case len(data) > limit:
		return nil, fmt.Errorf("expands past %d bytes", limit)
	case len(data) == 0:
		return nil, errors.New("empty")
	}
	return data, nil
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
