package probegen

import (
	"reflect"
	"testing"
)

// TestX86Rets finds the RET instructions of amd64 code, not RET-looking
// bytes inside other instructions.
func TestX86Rets(t *testing.T) {
	code := []byte{
		0x48, 0xc7, 0xc0, 0xc3, 0x00, 0x00, 0x00, // mov rax, 0xc3 (a 0xc3 byte inside)
		0x74, 0x01, // je +1
		0xc3,       // ret           (0x1009)
		0x31, 0xc0, // xor eax, eax
		0xc3, // ret                 (0x100c)
		0xcc, // int3 padding
	}
	if got, want := x86Rets(code, 0x1000), []uint64{0x1009, 0x100c}; !reflect.DeepEqual(got, want) {
		t.Errorf("x86Rets = %#x, want %#x", got, want)
	}
}

func TestArm64Rets(t *testing.T) {
	code := []byte{
		0x00, 0x04, 0x00, 0x91, // add x0, x0, #1
		0xc0, 0x03, 0x5f, 0xd6, // ret              (0x2004)
		0x1f, 0x20, 0x03, 0xd5, // nop
	}
	if got, want := arm64Rets(code, 0x2000), []uint64{0x2004}; !reflect.DeepEqual(got, want) {
		t.Errorf("arm64Rets = %#x, want %#x", got, want)
	}
}

func TestRetvalIndex(t *testing.T) {
	for in, want := range map[string]int{"$retval": 0, "$retval0": 0, "$retval1": 1, "$retval12": 12} {
		if got, ok := retvalIndex(in); !ok || got != want {
			t.Errorf("retvalIndex(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"$retvalx", "$retval-1", "$retval+1", "retval", "$params"} {
		if _, ok := retvalIndex(in); ok {
			t.Errorf("retvalIndex(%q) accepted", in)
		}
	}
}
