package elfobj

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// tinyELF is a 3 KB ELF with DWARF from probegen's fuzz seeds.
func tinyELF(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../../probegen/testdata/tiny/tiny-gcc-O0-dwarf5")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOpenAnyCompressed opens an ELF compressed each way as the plain one,
// and refuses it truncated or corrupt with ErrCompressed, naming the file
// and the codec.
func TestOpenAnyCompressed(t *testing.T) {
	plain := tinyELF(t)
	dir := t.TempDir()
	for _, ext := range dwarftest.CompressExts {
		t.Run(ext, func(t *testing.T) {
			z := dwarftest.Compress(t, ext, plain)
			p := filepath.Join(dir, "m.ko."+ext)
			os.WriteFile(p, z, 0o644)
			f, err := OpenAny(p)
			if err != nil {
				t.Fatalf("OpenAny: %v", err)
			}
			if f.Path != p || f.SectionHeader(".debug_info") == nil || !bytes.Equal(f.data, plain) {
				t.Errorf("OpenAny(%s): path %q, DWARF %v, same bytes %v", ext, f.Path, f.SectionHeader(".debug_info") != nil, bytes.Equal(f.data, plain))
			}
			f.Close()
			corrupt := append([]byte(nil), z...)
			for i := len(corrupt) / 3; i < len(corrupt)*2/3; i++ {
				corrupt[i] ^= 0x5a
			}
			for what, b := range map[string][]byte{"truncated": z[:len(z)/2], "corrupt": corrupt, "magic only": z[:6]} {
				os.WriteFile(p, b, 0o644)
				_, err := OpenAny(p)
				var ce *CompressedError
				if !errors.Is(err, ErrCompressed) || !errors.As(err, &ce) || ce.Path != p {
					t.Errorf("OpenAny(%s %s) = %v, want a CompressedError on %s", what, ext, err, p)
				}
			}
		})
	}
}

// TestOpenAnyPlain opens an uncompressed file as Open does, errors included.
func TestOpenAnyPlain(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.ko")
	os.WriteFile(p, tinyELF(t), 0o644)
	f, err := OpenAny(p)
	if err != nil || f.SectionHeader(".debug_info") == nil {
		t.Fatalf("OpenAny(plain) = %v", err)
	}
	f.Close()
	os.WriteFile(p, []byte("not an elf, just some text that is long enough to sniff at all\n"), 0o644)
	if _, err := OpenAny(p); !errors.Is(err, ErrNotELF) {
		t.Errorf("OpenAny(text) = %v, want ErrNotELF", err)
	}
}

// TestDecompressBound stops reading past the bound: the limit the
// compressed size sets or, when larger, the size the ELF header gives;
// a decompression bomb is refused, not held in memory, and what does not
// start with an ELF header is refused after its first bytes.
func TestDecompressBound(t *testing.T) {
	plain := tinyELF(t)
	end := int(elfEnd(plain))
	if end != len(plain) {
		t.Fatalf("the tiny ELF's header gives %d bytes, it has %d", end, len(plain))
	}
	padded := append(bytes.Clone(plain), make([]byte, 4096)...)
	ctx := context.Background()
	for _, ext := range dwarftest.CompressExts {
		z := func(b []byte) *bytes.Reader { return bytes.NewReader(dwarftest.Compress(t, ext, b)) }
		c := codecOf(dwarftest.Compress(t, ext, plain))
		if _, bound, err := decompress(ctx, c, z(padded), len(plain)); !errors.Is(err, errExpands) || bound != end {
			t.Errorf("decompress(%s) past its limit and its header's size = bound %d, %v", ext, bound, err)
		}
		if b, bound, err := decompress(ctx, c, z(plain), 100); err != nil || !bytes.Equal(b, plain) || bound != end {
			t.Errorf("decompress(%s) past its limit, within its header's size = %d bytes, bound %d, %v", ext, len(b), bound, err)
		}
		if _, _, err := decompress(ctx, c, z(make([]byte, 1<<20)), 1<<30); !errors.Is(err, errNotELFStart) {
			t.Errorf("decompress(%s) of zeros = %v, want refused at its first bytes", ext, err)
		}
	}
}

// FuzzDecompress feeds compressed modules, intact and damaged, through
// what OpenAny does with a compressed file: an error or a File, never a
// panic nor an unbounded allocation.
func FuzzDecompress(f *testing.F) {
	b, err := os.ReadFile("../../probegen/testdata/tiny/tiny-gcc-O0-dwarf5")
	if err != nil {
		f.Fatal(err)
	}
	for _, ext := range dwarftest.CompressExts {
		f.Add(dwarftest.Compress(f, ext, b))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := codecOf(data)
		if c == nil {
			return
		}
		plain, _, err := decompress(context.Background(), c, bytes.NewReader(data), 1<<20)
		if err != nil {
			return
		}
		m, err := openMemory("fuzz", plain)
		if (m == nil) == (err == nil) {
			t.Fatalf("openMemory = %v, %v", m, err)
		}
		if m != nil {
			m.Close()
		}
	})
}
