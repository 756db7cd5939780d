package elfobj

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
)

const maxDeflateRatio = 1032

// inflateZdebug decodes a .zdebug_ section: "ZLIB", the uncompressed size
// as a 64-bit big-endian number, then a zlib stream.
func inflateZdebug(raw []byte) ([]byte, error) {
	if len(raw) < 12 || string(raw[:4]) != "ZLIB" {
		return raw, nil // binutils leaves a section that would not shrink as it is
	}
	size := binary.BigEndian.Uint64(raw[4:12])
	// deflate expands at most 1032 times (a 258-byte match per 2 bits):
	// a larger claim is corrupt, and would be allocated before reading.
	if size > 1<<32 || size > uint64(len(raw)-12)*maxDeflateRatio {
		return nil, fmt.Errorf("claims %d bytes uncompressed", size)
	}
	zr, err := zlib.NewReader(bytes.NewReader(raw[12:]))
	if err != nil {
		return nil, err
	}
	out := make([]byte, size)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, err
	}
	return out, nil
}
