package elfobj

import (
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
)

// BuildID returns the GNU build-id as hex, or "".
func (o *Object) BuildID() string {
	for _, s := range o.ELF.Sections {
		if s.Type != elf.SHT_NOTE || o.data == nil {
			continue
		}
		if id := BuildIDNote(o.data[s.Offset:s.Offset+s.FileSize], o.Order); id != "" {
			return id
		}
	}
	return ""
}

// BuildIDOf is the GNU build-id of f's note sections as hex, or "": for a
// file read with debug/elf alone (a debuginfod download being checked).
func BuildIDOf(f *elf.File) string {
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOTE || s.Size > 1<<20 {
			continue
		}
		b, err := s.Data()
		if err != nil {
			continue
		}
		if id := BuildIDNote(b, f.ByteOrder); id != "" {
			return id
		}
	}
	return ""
}

// BuildIDNote finds the NT_GNU_BUILD_ID note among ELF notes (a note
// section, or the kernel's /sys/kernel/notes) and returns its
// descriptor as hex, or "".
func BuildIDNote(b []byte, order binary.ByteOrder) string {
	for len(b) >= 12 {
		nsz, dsz, typ := order.Uint32(b), order.Uint32(b[4:]), order.Uint32(b[8:])
		n := 12 + align4(nsz)
		if uint64(len(b)) < uint64(n)+uint64(align4(dsz)) {
			break
		}
		if typ == ntGNUBuildID && nsz == 4 && string(b[12:15]) == "GNU" {
			return hex.EncodeToString(b[n : n+dsz])
		}
		b = b[n+align4(dsz):]
	}
	return ""
}

// ntGNUBuildID is NT_GNU_BUILD_ID, which debug/elf does not name.
const ntGNUBuildID = 3

func align4(n uint32) uint32 { return (n + 3) &^ 3 }
