package elfobj

import (
	"bytes"
	"compress/zlib"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
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

// inflateSection decodes an SHF_COMPRESSED section (an Elf_Chdr, then a
// zlib or zstd stream) as debug/elf's Section.Data does, but refuses a
// size claim past what the stream's size allows (boundFor) before
// allocating it, and reads no more than the claim: a small file cannot
// make dwprobe decode gigabytes.
func inflateSection(ef *elf.File, raw []byte) ([]byte, error) {
	typ, size, hdr, err := chdrOf(ef, raw)
	if err != nil {
		return nil, err
	}
	stream := raw[hdr:]
	if limit := boundForSection(len(stream)); size > uint64(limit) {
		return nil, fmt.Errorf("claims %d bytes uncompressed from %d", size, len(stream))
	}
	var r io.Reader
	switch typ {
	case elf.COMPRESS_ZLIB:
		zr, err := zlib.NewReader(bytes.NewReader(stream))
		if err != nil {
			return nil, err
		}
		r = zr
	case elf.COMPRESS_ZSTD:
		zr, err := zstd.NewReader(bytes.NewReader(stream), zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxWindow(maxWindow), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		r = zr
	default:
		return nil, fmt.Errorf("unknown compression type %d", typ)
	}
	out := make([]byte, size) // fresh pages: resident only as they are written
	if _, err := io.ReadFull(r, out); err != nil {
		return nil, fmt.Errorf("stream shorter than the %d bytes claimed: %v", size, err)
	}
	return out, nil
}

// boundForSection is what a compressed section of n bytes may claim:
// deflate's largest ratio, and never more than MaxDecompressed (a Debian
// vmlinux's .debug_info, its largest section, is about 200 MB).
func boundForSection(n int) int {
	return int(min(int64(n)*maxDeflateRatio, MaxDecompressed))
}

// chdrOf reads the Elf32_Chdr or Elf64_Chdr at the start of raw: the
// compression, the size claimed, and the header's length.
func chdrOf(ef *elf.File, raw []byte) (elf.CompressionType, uint64, int, error) {
	bo := ef.ByteOrder
	switch ef.Class {
	case elf.ELFCLASS64:
		if len(raw) < 24 {
			return 0, 0, 0, fmt.Errorf("no compression header")
		}
		return elf.CompressionType(bo.Uint32(raw)), bo.Uint64(raw[8:]), 24, nil
	case elf.ELFCLASS32:
		if len(raw) < 12 {
			return 0, 0, 0, fmt.Errorf("no compression header")
		}
		return elf.CompressionType(bo.Uint32(raw)), uint64(bo.Uint32(raw[4:])), 12, nil
	}
	return 0, 0, 0, fmt.Errorf("ELF class %v", ef.Class)
}
