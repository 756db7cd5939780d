package arch

import (
	"errors"
	"reflect"
	"testing"
)

// TestStepAt pins each kind of step on the instructions the reference
// kernels hold, at address 0x1000.
func TestStepAt(t *testing.T) {
	for _, c := range []struct {
		what string
		a    *Arch
		code []byte
		want Step
	}{
		{"x86 endbr64", X86_64, []byte{0xf3, 0x0f, 0x1e, 0xfa}, Step{Len: 4, Falls: true}},
		{"x86 push rbx", X86_64, []byte{0x53}, Step{Len: 1, Falls: true}},
		{"x86 2-byte nop (jump label)", X86_64, []byte{0x66, 0x90}, Step{Len: 2, Falls: true}},
		{"x86 je -0x31", X86_64, []byte{0x74, 0xcf}, Step{Len: 2, Targets: []uint64{0x1002 - 0x31}, Falls: true}},
		{"x86 je rel32", X86_64, []byte{0x0f, 0x84, 0x10, 0, 0, 0}, Step{Len: 6, Targets: []uint64{0x1016}, Falls: true}},
		{"x86 jmp rel8", X86_64, []byte{0xeb, 0x05}, Step{Len: 2, Targets: []uint64{0x1007}}},
		{"x86 jmp rel32 (a tail call)", X86_64, []byte{0xe9, 0, 1, 0, 0}, Step{Len: 5, Targets: []uint64{0x1105}}},
		{"x86 jmp *rax", X86_64, []byte{0xff, 0xe0}, Step{Len: 2}},
		{"x86 call rel32", X86_64, []byte{0xe8, 0, 1, 0, 0}, Step{Len: 5, Falls: true}},
		{"x86 ret", X86_64, []byte{0xc3}, Step{Len: 1}},
		{"x86 int3 (padding)", X86_64, []byte{0xcc}, Step{Len: 1}},
		{"x86 ud2 (WARN resumes)", X86_64, []byte{0x0f, 0x0b}, Step{Len: 2, Falls: true}},
		{"x86 vzeroupper", X86_64, []byte{0xc5, 0xf8, 0x77, 0xc3}, Step{Len: 3, Falls: true}},
		{"arm64 b +8", ARM64, []byte{0x02, 0x00, 0x00, 0x14}, Step{Len: 4, Targets: []uint64{0x1008}}},
		{"arm64 b.eq +8", ARM64, []byte{0x40, 0x00, 0x00, 0x54}, Step{Len: 4, Targets: []uint64{0x1008}, Falls: true}},
		{"arm64 cbz x0, -4", ARM64, []byte{0xe0, 0xff, 0xff, 0xb4}, Step{Len: 4, Targets: []uint64{0xffc}, Falls: true}},
		{"arm64 tbnz w0, #1, +8", ARM64, []byte{0x40, 0x00, 0x08, 0x37}, Step{Len: 4, Targets: []uint64{0x1008}, Falls: true}},
		{"arm64 bl +8", ARM64, []byte{0x02, 0x00, 0x00, 0x94}, Step{Len: 4, Falls: true}},
		{"arm64 ret", ARM64, []byte{0xc0, 0x03, 0x5f, 0xd6}, Step{Len: 4}},
		{"arm64 br x16", ARM64, []byte{0x00, 0x02, 0x1f, 0xd6}, Step{Len: 4}},
		{"arm64 nop", ARM64, []byte{0x1f, 0x20, 0x03, 0xd5}, Step{Len: 4, Falls: true}},
		{"arm64 brk (WARN resumes)", ARM64, []byte{0x00, 0x00, 0x20, 0xd4}, Step{Len: 4, Falls: true}},
		{"arm64 undecodable word", ARM64, []byte{0, 0, 0, 0}, Step{Len: 4, Falls: true}},
	} {
		got, err := c.a.StepAt(c.code, 0x1000)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s (% x): StepAt = %+v, %v; want %+v", c.what, c.code, got, err, c.want)
		}
	}
	if _, err := X86_64.StepAt([]byte{0xf3, 0x0f, 0x04}, 0); err == nil {
		t.Error("x86 rep before an unknown opcode: StepAt decoded it")
	}
	if _, err := RISCV64.StepAt([]byte{0x13, 0, 0, 0}, 0); !errors.Is(err, ErrNoFlow) {
		t.Errorf("riscv64: StepAt error = %v, want ErrNoFlow", err)
	}
}
