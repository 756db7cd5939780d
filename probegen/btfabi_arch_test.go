package probegen

import (
	"debug/elf"
	"fmt"
	"testing"

	"github.com/cilium/ebpf/btf"
)

// TestCallConvStackArgs places the arguments past the registers on each
// machine: the stack pointer's fetcharg name, the first slot's offset,
// and on big-endian s390x a 4-byte int at the end of its 8-byte slot.
func TestCallConvStackArgs(t *testing.T) {
	i32 := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	i64 := &btf.Int{Name: "long", Size: 8, Encoding: btf.Signed}
	proto := func(n int) *btf.FuncProto {
		fp := &btf.FuncProto{Return: i32}
		for i := 0; i < n; i++ {
			typ := btf.Type(i64)
			if i%2 == 0 {
				typ = i32
			}
			fp.Params = append(fp.Params, btf.FuncParam{Name: fmt.Sprintf("p%d", i+1), Type: typ})
		}
		return fp
	}
	for _, c := range []struct {
		m    elf.Machine
		n    int
		want []string // the fetchargs of the parameters past the registers
	}{
		{elf.EM_X86_64, 8, []string{"+8(%sp)", "+16(%sp)"}},
		{elf.EM_AARCH64, 10, []string{"+0(%sp)", "+8(%sp)"}},
		{elf.EM_PPC64, 10, []string{"+96(%gpr1)", "+104(%gpr1)"}},
		{elf.EM_S390, 7, []string{"+160(%r15)", "+172(%r15)"}}, // p6 long, p7 int
		{elf.EM_RISCV, 10, []string{"+0(%sp)", "+8(%sp)"}},
	} {
		cc, ok := callConvFor(c.m)
		if !ok {
			t.Fatalf("%v: no calling convention", c.m)
		}
		var got []string
		for _, pl := range cc.place(proto(c.n)) {
			if pl.stack {
				f := pl.fetch()
				got = append(got, fmt.Sprintf("+%d(%s)", f.refs[0].off, f.base))
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%v: stack arguments %v, want %v", c.m, got, c.want)
		}
	}
}
