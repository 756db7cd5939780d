package elfobj

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

func TestInflateZdebug(t *testing.T) {
	want := []byte("the uncompressed section")
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(want)
	w.Close()
	raw := binary.BigEndian.AppendUint64([]byte("ZLIB"), uint64(len(want)))
	raw = append(raw, z.Bytes()...)
	if got, err := inflateZdebug(raw); err != nil || !bytes.Equal(got, want) {
		t.Errorf("inflateZdebug = %q, %v; want %q", got, err, want)
	}
	if got, err := inflateZdebug([]byte("plain")); err != nil || string(got) != "plain" {
		t.Errorf("a section without the ZLIB header: %q, %v; want it as it is", got, err)
	}
	bad := binary.BigEndian.AppendUint64([]byte("ZLIB"), 100)
	if _, err := inflateZdebug(append(bad, 1, 2, 3)); err == nil {
		t.Error("a corrupt stream decoded without error")
	}
	huge := binary.BigEndian.AppendUint64([]byte("ZLIB"), uint64(len(z.Bytes()))*1033)
	if _, err := inflateZdebug(append(huge, z.Bytes()...)); err == nil || !strings.Contains(err.Error(), "claims") {
		t.Errorf("a size past what deflate can expand to: %v; want it refused before reading", err)
	}
}

// FuzzInflateZdebug: any .zdebug_ content inflates within its bound or is
// refused, never a panic (the part of dwarfres's FuzzAltLinks that moved
// here with inflateZdebug).
func FuzzInflateZdebug(f *testing.F) {
	f.Add([]byte("ZLIB\x00\x00\x00\x00\x00\x00\x00\x10\x78\x9c"))
	f.Add([]byte("plain"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if out, err := inflateZdebug(b); err == nil && uint64(len(out)) > 1<<32 {
			t.Fatalf("%d bytes", len(out))
		}
	})
}

// TestInflateZdebugDamaged: a cut stream or an absurd size is an error.
func TestInflateZdebugDamaged(t *testing.T) {
	good := dwarftest.ZlibGNU(bytes.Repeat([]byte("dwarf"), 100))
	huge := slices.Clone(good)
	binary.BigEndian.PutUint64(huge[4:], 1<<40)
	for name, in := range map[string][]byte{"truncated": good[:len(good)/2], "huge size": huge} {
		if b, err := inflateZdebug(in); err == nil {
			t.Errorf("%s: %d bytes, no error", name, len(b))
		}
	}
}
