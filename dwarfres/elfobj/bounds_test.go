package elfobj

import (
	"bytes"
	"compress/zlib"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestOpenAnyBomb: 64 MB of zeros, a few KB compressed, is refused at
// its first bytes, which are no ELF header; an ELF header followed by
// them, once it expands past what its size and its header allow, not
// after a gigabyte (a 33 KB .ko.zst peaked at 3.76 GB). Either way the
// message names the file and says which bound held.
func TestOpenAnyBomb(t *testing.T) {
	zeros := make([]byte, 64<<20)
	tiny, err := os.ReadFile("../../probegen/testdata/tiny/tiny-gcc-O0-dwarf5")
	if err != nil {
		t.Fatal(err)
	}
	headed := append(bytes.Clone(tiny), zeros...)
	for _, ext := range dwarftest.CompressExts {
		p := filepath.Join(t.TempDir(), "bomb.ko."+ext)
		os.WriteFile(p, dwarftest.Compress(t, ext, zeros), 0o644)
		if _, err := OpenAny(p); !errors.Is(err, ErrNotELF) || !strings.HasPrefix(err.Error(), p+": ") {
			t.Errorf("OpenAny(64 MB of zeros as .%s) = %v; want it refused as no ELF", ext, err)
		}
		os.WriteFile(p, dwarftest.Compress(t, ext, headed), 0o644)
		_, err := OpenAny(p)
		var ee *ExpandError
		if !errors.As(err, &ee) || errors.Is(err, ErrCompressed) || ee.Bound != minBound || !strings.HasPrefix(err.Error(), p+": ") {
			t.Errorf("OpenAny(an ELF header and 64 MB of zeros as .%s) = %v; want it refused as expanding past %d bytes, not as corrupt", ext, err, minBound)
		}
	}
}

// TestOpenAnyCompressible: a valid module that compresses past the
// ratio bound (a 40 MB zeroed section: over 100 times, over 16 MB) opens
// as its ELF header says it is; it was refused as a "corrupt compressed
// file" (issue 34).
func TestOpenAnyCompressible(t *testing.T) {
	dwarftest.NeedTool(t, "objcopy")
	dir := t.TempDir()
	zeros := filepath.Join(dir, "zeros")
	os.WriteFile(zeros, make([]byte, 40<<20), 0o644)
	big := filepath.Join(dir, "big.ko")
	if out, err := exec.Command("objcopy", "--add-section", ".zeroed="+zeros, "../../probegen/testdata/tiny/tiny-gcc-O0-dwarf5", big).CombinedOutput(); err != nil {
		t.Fatalf("objcopy: %v\n%s", err, out)
	}
	plain, err := os.ReadFile(big)
	if err != nil {
		t.Fatal(err)
	}
	for _, ext := range dwarftest.CompressExts {
		z := dwarftest.Compress(t, ext, plain)
		if int64(len(z))*maxRatio >= int64(len(plain)) {
			t.Fatalf(".%s: %d bytes compressed, not past the ratio bound", ext, len(z))
		}
		p := filepath.Join(dir, "big.ko."+ext)
		os.WriteFile(p, z, 0o644)
		f, err := OpenAny(p)
		if err != nil {
			t.Errorf("OpenAny(a module of 40 MB zeros as .%s, %d bytes) = %v", ext, len(z), err)
			continue
		}
		if !bytes.Equal(f.data, plain) {
			t.Errorf(".%s: not the module's bytes", ext)
		}
		f.Close()
	}
}

// withCompressedInfo is the ELF b (64-bit little-endian) with its
// .debug_info replaced by an SHF_COMPRESSED one: a Chdr of type typ
// claiming size bytes, then stream, appended to the file.
func withCompressedInfo(t *testing.T, b []byte, typ elf.CompressionType, size uint64, stream []byte) []byte {
	t.Helper()
	ef, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	idx := sectionIndex(ef, ef.Section(".debug_info"))
	shoff := binary.LittleEndian.Uint64(b[0x28:])
	shentsize := uint64(binary.LittleEndian.Uint16(b[0x3a:]))
	out := bytes.Clone(b)
	at := uint64(len(out))
	chdr := binary.LittleEndian.AppendUint32(nil, uint32(typ))
	chdr = binary.LittleEndian.AppendUint32(chdr, 0)
	chdr = binary.LittleEndian.AppendUint64(chdr, size)
	chdr = binary.LittleEndian.AppendUint64(chdr, 1)
	out = append(append(out, chdr...), stream...)
	sh := out[shoff+uint64(idx)*shentsize:]
	binary.LittleEndian.PutUint64(sh[8:], binary.LittleEndian.Uint64(sh[8:])|uint64(elf.SHF_COMPRESSED))
	binary.LittleEndian.PutUint64(sh[24:], at)
	binary.LittleEndian.PutUint64(sh[32:], uint64(len(chdr)+len(stream)))
	return out
}

func zlibOf(b []byte) []byte {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(b)
	w.Close()
	return z.Bytes()
}

func zstdOf(t *testing.T, b []byte) []byte {
	w, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	return w.EncodeAll(b, nil)
}

// TestCompressedSectionBounds: an SHF_COMPRESSED .debug_info decodes as
// the plain one; a size claim no stream of its length can reach is
// refused before anything is allocated (a 2 MB ELF claiming 2 GB peaked
// at 4.48 GB), and a stream short of its claim is an error naming the
// section.
func TestCompressedSectionBounds(t *testing.T) {
	plain := tinyELF(t)
	ef, err := elf.NewFile(bytes.NewReader(plain))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := ef.Section(".debug_info").Data()
	cases := []struct {
		name   string
		typ    elf.CompressionType
		size   uint64
		stream []byte
		want   string // "" for the plain section's bytes
	}{
		{"zlib", elf.COMPRESS_ZLIB, uint64(len(info)), zlibOf(info), ""},
		{"zstd", elf.COMPRESS_ZSTD, uint64(len(info)), zstdOf(t, info), ""},
		{"zlib claiming past deflate's ratio", elf.COMPRESS_ZLIB, uint64(len(zlibOf(info))) * 1033, zlibOf(info), "claims"},
		{"zstd claiming 2 GiB", elf.COMPRESS_ZSTD, 2 << 30, zstdOf(t, make([]byte, 4<<20)), "claims"},
		{"zlib short of its claim", elf.COMPRESS_ZLIB, uint64(len(info)) + 100, zlibOf(info), "shorter"},
	}
	for _, c := range cases {
		p := filepath.Join(t.TempDir(), "c.o")
		os.WriteFile(p, withCompressedInfo(t, plain, c.typ, c.size, c.stream), 0o644)
		o, err := Open(p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := o.Section(".debug_info")
		o.Close()
		var de *DecodeError
		switch {
		case c.want == "" && (err != nil || !bytes.Equal(got, info)):
			t.Errorf("%s: %d bytes, %v; want the plain section's %d", c.name, len(got), err, len(info))
		case c.want != "" && (!errors.As(err, &de) || de.Section != ".debug_info" || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v; want a DecodeError of .debug_info saying %q", c.name, err, c.want)
		}
	}
}

// TestOpenAnyContextCancelled: a decompression stops with the context's
// error once it is done (a signal), whatever the codec.
func TestOpenAnyContextCancelled(t *testing.T) {
	plain := tinyELF(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, ext := range dwarftest.CompressExts {
		p := filepath.Join(t.TempDir(), "m.ko."+ext)
		os.WriteFile(p, dwarftest.Compress(t, ext, plain), 0o644)
		if o, err := OpenAnyContext(ctx, p); !errors.Is(err, context.Canceled) {
			t.Errorf("OpenAnyContext(%s) cancelled: %v, %v", ext, o, err)
		}
	}
}
