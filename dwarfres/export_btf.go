package dwarfres

// SectionData returns the contents of f's section name, decompressed
// (SHF_COMPRESSED) and cached as f's own readers have it; nil when f has
// no such section. For the packages that decode a section dwarfres does
// not (dwarfres/btf: .BTF). The bytes are f's: they may be its mapping,
// gone once f is closed, so a caller that keeps them copies them.
func (f *File) SectionData(name string) ([]byte, error) { return f.section(name) }
