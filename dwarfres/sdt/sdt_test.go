package sdt

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// sdtNote assembles one note of a 64-bit little-endian .note.stapsdt.
func sdtNote(owner string, typ uint32, loc, base, sem uint64, strs string) []byte {
	desc := binary.LittleEndian.AppendUint64(nil, loc)
	desc = binary.LittleEndian.AppendUint64(desc, base)
	desc = binary.LittleEndian.AppendUint64(desc, sem)
	desc = append(desc, strs...)
	name := append([]byte(owner), 0)
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(name)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(desc)))
	b = binary.LittleEndian.AppendUint32(b, typ)
	b = append(b, name...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	b = append(b, desc...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func TestParseSDTNotes(t *testing.T) {
	data := sdtNote("stapsdt", 3, 0x1139, 0x2004, 0, "app\x00tick\x00-4@-20(%rbp) 8@%rax\x00")
	data = append(data, sdtNote("GNU", 3, 1, 2, 3, "x\x00y\x00\x00")...) // another owner: skipped
	data = append(data, sdtNote("stapsdt", 3, 0x1150, 0x2004, 0x4010, "app\x00noargs\x00\x00")...)
	data = append(data, sdtNote("stapsdt", 3, 0x1160, 0x2004, 0, "app\x00colon\x00:\x00")...)
	ms, err := ParseNotes(data, binary.LittleEndian, elf.ELFCLASS64)
	if err != nil {
		t.Fatal(err)
	}
	want := []Marker{
		{Provider: "app", Name: "tick", Args: "-4@-20(%rbp) 8@%rax", Loc: 0x1139, Base: 0x2004},
		{Provider: "app", Name: "noargs", Loc: 0x1150, Base: 0x2004, Semaphore: 0x4010},
		{Provider: "app", Name: "colon", Loc: 0x1160, Base: 0x2004},
	}
	if len(ms) != len(want) {
		t.Fatalf("got %d markers %+v, want %d", len(ms), ms, len(want))
	}
	for i := range want {
		if ms[i] != want[i] {
			t.Errorf("marker %d: got %+v, want %+v", i, ms[i], want[i])
		}
	}
}

// TestParseNotes32: an ELFCLASS32 note's addresses are 4 bytes.
func TestParseSDTNotes32(t *testing.T) {
	desc := binary.BigEndian.AppendUint32(nil, 0x10400)
	desc = binary.BigEndian.AppendUint32(desc, 0x10800)
	desc = binary.BigEndian.AppendUint32(desc, 0x20000)
	desc = append(desc, "p\x00n\x004@r3\x00"...)
	b := binary.BigEndian.AppendUint32(nil, 8)
	b = binary.BigEndian.AppendUint32(b, uint32(len(desc)))
	b = binary.BigEndian.AppendUint32(b, 3)
	b = append(append(b, "stapsdt\x00"...), desc...)
	ms, err := ParseNotes(b, binary.BigEndian, elf.ELFCLASS32)
	want := Marker{Provider: "p", Name: "n", Args: "4@r3", Loc: 0x10400, Base: 0x10800, Semaphore: 0x20000}
	if err != nil || len(ms) != 1 || ms[0] != want {
		t.Errorf("got %+v, %v; want %+v", ms, err, want)
	}
}

func TestParseSDTNotesMalformed(t *testing.T) {
	good := sdtNote("stapsdt", 3, 1, 2, 3, "p\x00n\x00\x00")
	for name, data := range map[string][]byte{
		"truncated header": good[:8],
		"past the section": good[:len(good)-8],
		"short desc":       sdtNote("stapsdt", 3, 1, 2, 3, "")[:12+8+24],
		"no NUL":           sdtNote("stapsdt", 3, 1, 2, 3, "provider"),
	} {
		_, err := ParseNotes(data, binary.LittleEndian, elf.ELFCLASS64)
		var de *elfobj.DecodeError
		if !errors.As(err, &de) || !errors.Is(err, elfobj.ErrMalformed) {
			t.Errorf("%s: got %v, want a *DecodeError", name, err)
		}
	}
	// A stapsdt note of another type ends the list, as in perf.
	data := append(sdtNote("stapsdt", 3, 1, 2, 0, "p\x00a\x00\x00"), sdtNote("stapsdt", 4, 1, 2, 0, "p\x00b\x00\x00")...)
	data = append(data, sdtNote("stapsdt", 3, 1, 2, 0, "p\x00c\x00\x00")...)
	ms, err := ParseNotes(data, binary.LittleEndian, elf.ELFCLASS64)
	if err != nil || len(ms) != 1 || ms[0].Name != "a" {
		t.Errorf("got %+v, %v; want marker a only", ms, err)
	}
}

func TestSDTAdjust(t *testing.T) {
	// python3.11's function__entry: .stapsdt.base at 0x8cc5a0 (file offset
	// 0x4cc5a0), .probes at 0xa84260 (0x683260); perf 6.1 prints
	// /usr/bin/python3.11:0xf20a1(0x683260).
	m := Marker{Loc: 0x4f20a1, Base: 0x8cc5a0, Semaphore: 0xa84260}
	m.adjust(&elf.Section{SectionHeader: elf.SectionHeader{Addr: 0x8cc5a0, Offset: 0x4cc5a0}},
		&elf.Section{SectionHeader: elf.SectionHeader{Addr: 0xa84260, Offset: 0x683260}})
	if m.Offset != 0xf20a1 || m.RefCtr != 0x683260 {
		t.Errorf("got %#x(%#x), want 0xf20a1(0x683260)", m.Offset, m.RefCtr)
	}
	m = Marker{Loc: 0x1139, Base: 0x2004}
	m.adjust(nil, nil)
	if m.Offset != 0x1139 || m.RefCtr != 0 {
		t.Errorf("without sections: got %#x(%#x), want 0x1139(0)", m.Offset, m.RefCtr)
	}
}

// TestMarkersPython reads Debian's python3.11, whose markers perf 6.1
// lists (perf buildid-cache --add; perf probe -x ... -D 'sdt_python:*').
func TestMarkersPython(t *testing.T) {
	const py = "/usr/bin/python3.11"
	if _, err := os.Stat(py); err != nil {
		dwarftest.Skip(t, "%s missing (apt-get install python3.11)", py)
		return
	}
	f, err := elfobj.Open(py)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ms, err := Markers(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Name == "function__entry" {
			if m.Provider != "python" || m.Args != "8@%rbp 8@%r12 -4@%eax" || m.Offset != 0xf20a1 || m.RefCtr != 0x683260 {
				t.Errorf("function__entry: got %+v", m)
			}
			return
		}
	}
	t.Errorf("no python:function__entry among %d markers", len(ms))
}

func TestMarkersNone(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := elfobj.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Markers(f); !errors.Is(err, ErrNoSDT) || !errors.Is(err, elfobj.ErrNotFound) {
		t.Errorf("a Go test binary: got %v, want ErrNoSDT", err)
	}
}

// FuzzSDTNote: ParseNotes never panics, and returns markers or a
// *DecodeError, never both.
func FuzzSDTNote(f *testing.F) {
	f.Add(sdtNote("stapsdt", 3, 0x1139, 0x2004, 0x4010, "app\x00tick\x00-4@-20(%rbp) 8@%rax\x00"), false)
	f.Add(sdtNote("stapsdt", 3, 1, 2, 3, "p\x00n\x00"), true)
	f.Fuzz(func(t *testing.T, data []byte, is32 bool) {
		class := elf.ELFCLASS64
		if is32 {
			class = elf.ELFCLASS32
		}
		ms, err := ParseNotes(data, binary.LittleEndian, class)
		var de *elfobj.DecodeError
		if err != nil && (ms != nil || !errors.As(err, &de)) {
			t.Fatalf("got %v and %d markers", err, len(ms))
		}
	})
}
