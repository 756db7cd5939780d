package sdt

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// SystemTap's SDT note: section, owner and type (sys/sdt.h, perf's
// util/symbol.h SDT_NOTE_*).
const (
	sdtNoteSection  = ".note.stapsdt"
	sdtBaseSection  = ".stapsdt.base"
	sdtProbeSection = ".probes"
	sdtNoteType     = 3
	sdtNoteOwner    = "stapsdt"
)

// ErrNoSDT: the binary has no SDT markers (no .note.stapsdt, or no
// stapsdt note in it). It wraps elfobj.ErrNotFound: asking for a marker of such a
// binary is a probe that does not resolve.
var ErrNoSDT error = noSDTError{}

type noSDTError struct{}

func (noSDTError) Error() string { return "no SDT markers (no " + sdtNoteSection + " notes)" }
func (noSDTError) Unwrap() error { return elfobj.ErrNotFound }

// Marker is one SystemTap SDT/USDT marker (a stapsdt note of
// .note.stapsdt), as <sys/sdt.h> writes it.
type Marker struct {
	Provider, Name string
	// Args is the operand string, "N@OP" words separated by spaces
	// ("8@%rbp -4@-20(%rbp)"); "" when the marker has none.
	Args string
	// Loc, Base and Semaphore are the note's three addresses, link-time
	// (Semaphore 0: none).
	Loc, Base, Semaphore uint64
	// Offset is where a uprobe goes and RefCtr the semaphore's file offset
	// (0: none), both adjusted as perf's populate_sdt_note does
	// (sdt_adjust_loc, sdt_adjust_refctr): Loc moves by the difference
	// between .stapsdt.base's file offset and the note's Base (undoing
	// prelink and turning the address into a file offset); Semaphore by
	// .probes' address minus its offset.
	Offset, RefCtr uint64
}

// Markers reads f's SDT markers in note order. Errors wrap ErrNoSDT
// when there are none, ErrMalformed (a *DecodeError) when a note cannot
// be decoded.
func Markers(f *elfobj.Object) ([]Marker, error) {
	sec := f.ELF.Section(sdtNoteSection)
	// perf ignores a .note.stapsdt that is not a non-allocated note.
	if sec == nil || sec.Type != elf.SHT_NOTE || sec.Flags&elf.SHF_ALLOC != 0 {
		return nil, fmt.Errorf("%s: %w", f.Path, ErrNoSDT)
	}
	data, err := sec.Data()
	if err != nil {
		return nil, &elfobj.DecodeError{Section: sdtNoteSection, Msg: err.Error()}
	}
	ms, err := ParseNotes(data, f.ELF.ByteOrder, f.ELF.Class)
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("%s: %w", f.Path, ErrNoSDT)
	}
	base := f.ELF.Section(sdtBaseSection)
	probes := f.ELF.Section(sdtProbeSection)
	for i := range ms {
		ms[i].adjust(base, probes)
	}
	return ms, nil
}

// adjust sets Offset and RefCtr from the note's addresses, as perf 6.1
// does: nothing moves when the section is missing or at file offset 0.
func (m *Marker) adjust(base, probes *elf.Section) {
	m.Offset, m.RefCtr = m.Loc, m.Semaphore
	if base != nil && base.Offset != 0 {
		m.Offset = m.Loc + base.Offset - m.Base
	}
	if probes != nil && probes.Offset != 0 && m.Semaphore != 0 {
		m.RefCtr = m.Semaphore - (probes.Addr - probes.Offset)
	}
}

// ParseNotes decodes the notes of a .note.stapsdt section: each
// stapsdt note of type 3 is three addresses (4 or 8 bytes by class), then
// the provider, name and argument strings, NUL-terminated. Notes of other
// owners are skipped; a stapsdt note of another type ends the list, as in
// perf's construct_sdt_notes_list. Offset and RefCtr are left as Loc and
// Semaphore (SDTMarkers adjusts them).
func ParseNotes(data []byte, order binary.ByteOrder, class elf.Class) ([]Marker, error) {
	var out []Marker
	for off := 0; off < len(data); {
		if len(data)-off < 12 {
			return nil, sdtErr(off, "truncated note header")
		}
		namesz := uint64(order.Uint32(data[off:]))
		descsz := uint64(order.Uint32(data[off+4:]))
		typ := order.Uint32(data[off+8:])
		nameOff := uint64(off) + 12
		descOff := nameOff + sdtAlign(namesz)
		end := descOff + sdtAlign(descsz)
		if descOff+descsz > uint64(len(data)) {
			return nil, sdtErr(off, "note extends past the section")
		}
		name := data[nameOff : nameOff+namesz]
		if string(name) == sdtNoteOwner+"\x00" {
			if typ != sdtNoteType {
				break
			}
			m, err := parseSDTDesc(data[descOff:descOff+descsz], order, class)
			if err != nil {
				return nil, sdtErr(int(descOff), err.Error())
			}
			out = append(out, m)
		}
		off = int(min(end, uint64(len(data))))
	}
	return out, nil
}

func sdtAlign(n uint64) uint64 { return (n + 3) &^ 3 }

func sdtErr(off int, msg string) error {
	return &elfobj.DecodeError{Section: sdtNoteSection, Offset: uint64(off), Msg: msg}
}

// sdtDescError is a malformed note description; ParseNotes places it.
type sdtDescError string

func (e sdtDescError) Error() string { return string(e) }

// parseSDTDesc decodes one note's description (perf's populate_sdt_note).
func parseSDTDesc(d []byte, order binary.ByteOrder, class elf.Class) (Marker, error) {
	var m Marker
	size := 8
	if class == elf.ELFCLASS32 {
		size = 4
	}
	if len(d) < 3*size+3 {
		return m, sdtDescError("note too short for three addresses and two names")
	}
	addr := func(i int) uint64 {
		if size == 4 {
			return uint64(order.Uint32(d[i*4:]))
		}
		return order.Uint64(d[i*8:])
	}
	m.Loc, m.Base, m.Semaphore = addr(0), addr(1), addr(2)
	strs := d[3*size:]
	prov, rest, ok := bytes.Cut(strs, []byte{0})
	if !ok {
		return m, sdtDescError("provider not NUL-terminated")
	}
	name, rest, ok := bytes.Cut(rest, []byte{0})
	if !ok {
		return m, sdtDescError("marker name not NUL-terminated")
	}
	m.Provider, m.Name = string(prov), string(name)
	// perf: no arguments when the string is missing, empty or ":".
	if args, _, _ := bytes.Cut(rest, []byte{0}); len(args) > 0 && args[0] != ':' {
		m.Args = string(args)
	}
	return m, nil
}
