package arch

import (
	"debug/elf"
	"errors"

	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/x86/x86asm"
)

// Step is what one instruction does to the flow of control: its length,
// the addresses it branches to directly, and whether the instruction
// after it can run next.
type Step struct {
	Len     int
	Targets []uint64
	// Falls is false after an unconditional jump, a return and a trap
	// that does not come back; true after anything else, calls
	// included (a call that does not return still looks like one that
	// does: an answer that errs on the side of a path that is not
	// there).
	Falls bool
}

// ErrNoFlow is the answer of StepAt on a machine it has no decoder for.
var ErrNoFlow = errors.New("no control-flow decoder for this machine")

// StepAt decodes the instruction at code[0], at address addr, as a Step
// (x86_64 and arm64). An indirect branch has no Targets. An instruction
// that does not decode is an error on x86_64, where the next one's start
// is then unknown; on arm64 it is a 4-byte Step that falls through.
func (a *Arch) StepAt(code []byte, addr uint64) (Step, error) {
	switch a.Machine {
	case elf.EM_X86_64:
		return x86Step(code, addr)
	case elf.EM_AARCH64:
		return arm64Step(code, addr), nil
	}
	return Step{}, ErrNoFlow
}

// x86Step is StepAt on x86_64. int3 does not fall through: compiled code
// holds it only as padding after a jump or return (straight-line
// speculation hardening, CONFIG_SLS); ud2 does, as the kernel's WARN
// resumes after it (report_bug).
func x86Step(code []byte, addr uint64) (Step, error) {
	if n, ok := x86VZero(code); ok {
		return Step{Len: n, Falls: true}, nil
	}
	in, err := x86asm.Decode(code, 64)
	if err != nil || in.Op == 0 || in.Len == 0 {
		if n, ok := x86Extra(code); ok {
			return Step{Len: n, Falls: true}, nil
		}
		if err == nil {
			err = x86asm.ErrUnrecognized
		}
		return Step{}, err
	}
	s := Step{Len: in.Len, Falls: true}
	rel := func() {
		if r, ok := in.Args[0].(x86asm.Rel); ok {
			s.Targets = []uint64{addr + uint64(in.Len) + uint64(int64(r))}
		}
	}
	switch in.Op {
	case x86asm.JMP:
		rel()
		s.Falls = false
	case x86asm.LJMP, x86asm.RET, x86asm.LRET, x86asm.IRET, x86asm.IRETD, x86asm.IRETQ,
		x86asm.SYSRET, x86asm.SYSEXIT:
		s.Falls = false
	case x86asm.INT:
		if code[0] == 0xcc {
			s.Falls = false
		}
	case x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JG, x86asm.JGE,
		x86asm.JL, x86asm.JLE, x86asm.JNE, x86asm.JNO, x86asm.JNP, x86asm.JNS, x86asm.JO,
		x86asm.JP, x86asm.JS, x86asm.JCXZ, x86asm.JECXZ, x86asm.JRCXZ,
		x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE:
		rel()
	}
	return s, nil
}

// arm64Step is StepAt on arm64. brk falls through, as the kernel's WARN
// resumes after it.
func arm64Step(code []byte, addr uint64) Step {
	s := Step{Len: 4, Falls: true}
	if len(code) > 4 {
		code = code[:4]
	}
	in, err := arm64asm.Decode(code)
	if err != nil {
		return s
	}
	rel := func() {
		for _, a := range in.Args {
			if r, ok := a.(arm64asm.PCRel); ok {
				s.Targets = []uint64{addr + uint64(int64(r))}
			}
		}
	}
	switch in.Op {
	case arm64asm.B:
		rel()
		_, cond := in.Args[0].(arm64asm.Cond)
		s.Falls = cond
	case arm64asm.CBZ, arm64asm.CBNZ, arm64asm.TBZ, arm64asm.TBNZ:
		rel()
	case arm64asm.BR, arm64asm.RET, arm64asm.ERET:
		s.Falls = false
	}
	return s
}
