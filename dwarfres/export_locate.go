package dwarfres

import "debug/elf"

// ELFBuildID is the GNU build-id of f's note sections as hex, or "": for
// a file read with debug/elf alone (a debuginfod download being checked).
func ELFBuildID(f *elf.File) string {
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOTE || s.Size > 1<<20 {
			continue
		}
		b, err := s.Data()
		if err != nil {
			continue
		}
		if id := buildIDNote(b, f.ByteOrder); id != "" {
			return id
		}
	}
	return ""
}
