package dwarftest

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/binary"
	"io"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// CompressExts are the suffixes (after .ko.) of the compressions kernel
// modules are installed with.
var CompressExts = []string{"gz", "xz", "zst"}

// Compress returns data compressed as a module installed as .ko.EXT is.
func Compress(t testing.TB, ext string, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	var w io.WriteCloser
	var err error
	switch ext {
	case "gz":
		w = gzip.NewWriter(&b)
	case "xz":
		w, err = xz.NewWriter(&b)
	case "zst":
		w, err = zstd.NewWriter(&b)
	default:
		t.Fatalf("no compression %q", ext)
	}
	if err == nil {
		_, err = w.Write(data)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		t.Fatalf("compress %s: %v", ext, err)
	}
	return b.Bytes()
}

// ZlibGNU is b as a GNU .zdebug_* section holds it: "ZLIB", the
// uncompressed size (64-bit big-endian), a zlib stream.
func ZlibGNU(b []byte) []byte {
	var z bytes.Buffer
	z.WriteString("ZLIB")
	binary.Write(&z, binary.BigEndian, uint64(len(b)))
	w := zlib.NewWriter(&z)
	w.Write(b)
	w.Close()
	return z.Bytes()
}
