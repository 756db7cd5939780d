package probegen

import (
	"debug/elf"
	"errors"
	"regexp"
	"strings"
)

// arm64 SDT operands are what gcc prints for <sys/sdt.h>'s "nor"
// constraints: x1, w1, sp, [sp], [sp, 16], [x29, -12], constants. perf
// 6.1's arch/arm64/util/perf_regs.c converts xN (as %xN) and [sp, NUM]
// (as +NUM(%sp)) only; dwprobe writes those the same way and also
// converts wN, other base registers, negative displacements and
// constants.
func init() { sdtParsers[elf.EM_AARCH64] = sdtArm64Operand }

// sdtArm64Reg is a general register: xN, wN (its low half) or sp.
var sdtArm64Reg = regexp.MustCompile(`^(?:([xw])([0-9]|[12][0-9]|30)|(sp|wsp))$`)

// sdtArm64Mem is [REG], [REG, NUM] or [REG, #NUM].
var sdtArm64Mem = regexp.MustCompile(`^\[([a-z0-9]+)(?:, ?#?([+-]?[0-9]+))?\]$`)

// sdtArm64Imm is a constant: NUM or #NUM.
var sdtArm64Imm = regexp.MustCompile(`^#?([+-]?(?:0x[0-9a-fA-F]+|[0-9]+))$`)

func sdtArm64Operand(op string, _ SDTSymbols) (string, string, error) {
	if m := sdtArm64Imm.FindStringSubmatch(op); m != nil {
		f, err := sdtImmediate(m[1])
		return f, "", err
	}
	if m := sdtArm64Mem.FindStringSubmatch(op); m != nil {
		r, err := sdtArm64Register(m[1])
		if err != nil {
			return "", "", err
		}
		f, err := sdtDeref(m[2], r)
		return f, "", err
	}
	if strings.HasPrefix(op, "[") {
		return "", "", errors.New("register-indexed or pre/post-indexed addressing has no fetch argument form")
	}
	r, err := sdtArm64Register(op)
	return r, "", err
}

// sdtArm64Register names the kernel's register: %xN for xN and wN, %sp.
func sdtArm64Register(s string) (string, error) {
	m := sdtArm64Reg.FindStringSubmatch(s)
	if m == nil {
		return "", errors.New("not an operand the kernel can read")
	}
	if m[3] != "" {
		return sdtRegister(elf.EM_AARCH64, "sp")
	}
	return sdtRegister(elf.EM_AARCH64, "x"+m[2])
}
