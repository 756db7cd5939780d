package elfobj

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"testing"
)

// TestRelocKinds: each relocation type debug sections use writes S+A (or
// S+A-P) in its size, little-endian, truncated.
func TestRelocKinds(t *testing.T) {
	const sym, addend, p = 0x10040, 0x1c, 0x20
	cases := []struct {
		m    elf.Machine
		typ  uint32
		want []byte
	}{
		{elf.EM_X86_64, uint32(elf.R_X86_64_64), []byte{0x5c, 0, 1, 0, 0, 0, 0, 0}},
		{elf.EM_X86_64, uint32(elf.R_X86_64_32), []byte{0x5c, 0, 1, 0}},
		{elf.EM_X86_64, uint32(elf.R_X86_64_32S), []byte{0x5c, 0, 1, 0}},
		{elf.EM_X86_64, uint32(elf.R_X86_64_PC32), []byte{0x3c, 0, 1, 0}},
		{elf.EM_X86_64, uint32(elf.R_X86_64_PC64), []byte{0x3c, 0, 1, 0, 0, 0, 0, 0}},
		{elf.EM_AARCH64, uint32(elf.R_AARCH64_ABS64), []byte{0x5c, 0, 1, 0, 0, 0, 0, 0}},
		{elf.EM_AARCH64, uint32(elf.R_AARCH64_ABS32), []byte{0x5c, 0, 1, 0}},
		{elf.EM_AARCH64, uint32(elf.R_AARCH64_ABS16), []byte{0x5c, 0}},
		{elf.EM_AARCH64, uint32(elf.R_AARCH64_PREL64), []byte{0x3c, 0, 1, 0, 0, 0, 0, 0}},
		{elf.EM_AARCH64, uint32(elf.R_AARCH64_PREL32), []byte{0x3c, 0, 1, 0}},
		{elf.EM_AARCH64, uint32(elf.R_AARCH64_PREL16), []byte{0x3c, 0}},
	}
	o := &Object{Order: binary.LittleEndian}
	for _, c := range cases {
		k, ok := relocKinds[c.m][c.typ]
		if !ok {
			t.Errorf("%v type %d: not supported", c.m, c.typ)
			continue
		}
		out := make([]byte, 8)
		o.writeUint(out, k.size, k.value(sym, addend, p))
		if got := out[:len(c.want)]; !bytes.Equal(got, c.want) || k.size != len(c.want) {
			t.Errorf("%v type %d: wrote % x (%d bytes), want % x", c.m, c.typ, got, k.size, c.want)
		}
	}
	if _, ok := relocKinds[elf.EM_X86_64][uint32(elf.R_X86_64_GOTPCREL)]; ok {
		t.Error("R_X86_64_GOTPCREL is accepted; a debug section never uses it, and it cannot be applied offline")
	}
}
