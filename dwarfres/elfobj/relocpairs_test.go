package elfobj

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"testing"
)

// TestRISCVRelocPairs: riscv's debug sections hold label differences as
// ADD/SUB pairs applied one after the other to the same bytes (a
// DW_AT_high_pc: ADD64 end, SUB64 start), and a CFA advance_loc's 6-bit
// delta as SET6/SUB6 inside its opcode byte, whose top two bits stay.
func TestRISCVRelocPairs(t *testing.T) {
	o := &Object{Machine: elf.EM_RISCV, Order: binary.LittleEndian}
	kinds := relocKinds[elf.EM_RISCV]
	type step struct {
		typ elf.R_RISCV
		v   uint64 // S + A
	}
	for _, tt := range []struct {
		name  string
		in    []byte
		steps []step
		want  []byte
	}{
		{"ADD64 SUB64", make([]byte, 8), []step{{elf.R_RISCV_ADD64, 0x3b10 + 2854}, {elf.R_RISCV_SUB64, 0x3b10}}, binary.LittleEndian.AppendUint64(nil, 2854)},
		{"ADD32 SUB32", make([]byte, 4), []step{{elf.R_RISCV_ADD32, 0x200}, {elf.R_RISCV_SUB32, 0x1f0}}, []byte{0x10, 0, 0, 0}},
		{"ADD16 SUB16 borrow", []byte{0, 0}, []step{{elf.R_RISCV_ADD16, 0x100}, {elf.R_RISCV_SUB16, 0xff}}, []byte{1, 0}},
		{"ADD8 SUB8", []byte{0}, []step{{elf.R_RISCV_ADD8, 9}, {elf.R_RISCV_SUB8, 4}}, []byte{5}},
		{"SET8", []byte{0xaa}, []step{{elf.R_RISCV_SET8, 0x1234}}, []byte{0x34}},
		// DW_CFA_advance_loc (0x40 | delta): SET6 the end, SUB6 the start.
		{"SET6 SUB6", []byte{0x40}, []step{{elf.R_RISCV_SET6, 0x1016}, {elf.R_RISCV_SUB6, 0x1010}}, []byte{0x46}},
		{"SUB6 wraps in 6 bits", []byte{0x41}, []step{{elf.R_RISCV_SUB6, 2}}, []byte{0x7f}},
	} {
		b := bytes.Clone(tt.in)
		for _, s := range tt.steps {
			k, ok := kinds[uint32(s.typ)]
			if !ok {
				t.Fatalf("%s: %v not supported", tt.name, s.typ)
			}
			o.apply(b, k, k.value(s.v, 0, 0))
		}
		if !bytes.Equal(b, tt.want) {
			t.Errorf("%s: % x, want % x", tt.name, b, tt.want)
		}
	}
}
