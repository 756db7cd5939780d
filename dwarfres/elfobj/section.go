package elfobj

import (
	"debug/elf"
	"strings"
)

// Section returns the contents of section name, decompressing an
// SHF_COMPRESSED or .zdebug_ one and relocating a relocatable object's
// debug sections, once; nil if absent. Errors are *DecodeError.
func (o *Object) Section(name string) ([]byte, error) {
	o.secMu.Lock()
	defer o.secMu.Unlock()
	if b, ok := o.secs[name]; ok {
		return b, nil
	}
	b, err := o.readSection(name)
	if err != nil {
		return nil, err
	}
	o.secs[name] = b
	return b, nil
}

// Sec is Section for the sections whose absence is not an error: a
// decompression failure reads as absence too.
func (o *Object) Sec(name string) []byte {
	b, _ := o.Section(name)
	return b
}

func (o *Object) readSection(name string) ([]byte, error) {
	s := o.ELF.Section(name)
	if s == nil {
		if z := o.zdebugSection(name); z != nil && z.Type != elf.SHT_NOBITS && o.data != nil {
			b, err := inflateZdebug(o.data[z.Offset : z.Offset+z.FileSize])
			if err != nil {
				return nil, &DecodeError{Section: z.Name, Offset: 0, Msg: "cannot decompress: " + err.Error()}
			}
			return b, nil
		}
	}
	if s == nil || s.Type == elf.SHT_NOBITS {
		return nil, nil
	}
	var b []byte
	if s.Flags&elf.SHF_COMPRESSED != 0 {
		var err error
		func() {
			defer Guard(&err, name)
			if o.data == nil { // sections in memory: debug/elf's copy
				b, err = s.Data()
				return
			}
			b, err = inflateSection(o.ELF, o.data[s.Offset:s.Offset+s.FileSize])
		}()
		if err != nil {
			return nil, &DecodeError{Section: name, Offset: 0, Msg: "cannot decompress: " + err.Error()}
		}
	} else {
		if o.data == nil { // sections in memory: only those given
			return nil, nil
		}
		b = o.data[s.Offset : s.Offset+s.FileSize]
	}
	if o.IsModule() && relocatedSection(name) {
		if err := o.relocate(sectionIndex(o.ELF, s), b); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// RawSection is the file bytes of section name as stored (not
// decompressed, not relocated), nil if absent.
func (o *Object) RawSection(name string) []byte {
	s := o.ELF.Section(name)
	if s == nil || s.Type == elf.SHT_NOBITS || s.Offset+s.FileSize > uint64(len(o.data)) {
		return nil
	}
	return o.data[s.Offset : s.Offset+s.FileSize]
}

// SectionHeader is the header of section name, or of the .zdebug_
// section standing for a .debug_ one; nil if neither exists.
func (o *Object) SectionHeader(name string) *elf.Section {
	if s := o.ELF.Section(name); s != nil {
		return s
	}
	return o.zdebugSection(name)
}

// zdebugSection returns the .zdebug_X section standing for .debug_X: the
// GNU compression that predates SHF_COMPRESSED, which gcc -gz=zlib-gnu
// and Go toolchains before 1.12 write; nil when there is none.
func (o *Object) zdebugSection(name string) *elf.Section {
	rest, ok := strings.CutPrefix(name, ".debug_")
	if !ok {
		return nil
	}
	return o.ELF.Section(".zdebug_" + rest)
}

// sectionIndex is the index of s in ef.Sections.
func sectionIndex(ef *elf.File, s *elf.Section) int {
	for i, x := range ef.Sections {
		if x == s {
			return i
		}
	}
	return -1
}
