package sdtprobe

import (
	"errors"
	"regexp"
	"strings"

	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// arm64 SDT operands are what gcc prints for <sys/sdt.h>'s "nor"
// constraints: x1, w1, sp, [sp], [sp, 16], [x29, -12], constants. perf
// 6.1's arch/arm64/util/perf_regs.c converts xN (as %xN) and [sp, NUM]
// (as +NUM(%sp)) only; dwprobe writes those the same way and also
// converts wN, other base registers, negative displacements and
// constants. The register names are arch.ARM64's AsmRegister.
func init() { sdtParsers[arch.ARM64] = sdtArm64Operand }

// sdtArm64Mem is [REG], [REG, NUM] or [REG, #NUM].
var sdtArm64Mem = regexp.MustCompile(`^\[([a-z0-9]+)(?:, ?#?([+-]?[0-9]+))?\]$`)

// sdtArm64Imm is a constant: NUM or #NUM.
var sdtArm64Imm = regexp.MustCompile(`^#?([+-]?(?:0x[0-9a-fA-F]+|[0-9]+))$`)

func sdtArm64Operand(op string, _ Symbols) (tracefs.Fetch, string, error) {
	if m := sdtArm64Imm.FindStringSubmatch(op); m != nil {
		f, err := sdtImmediate(m[1])
		return f, "", err
	}
	if m := sdtArm64Mem.FindStringSubmatch(op); m != nil {
		r, err := sdtArm64Register(m[1])
		if err != nil {
			return tracefs.Fetch{}, "", err
		}
		f, err := sdtDeref(m[2], r)
		return f, "", err
	}
	if strings.HasPrefix(op, "[") {
		return tracefs.Fetch{}, "", errors.New("register-indexed or pre/post-indexed addressing has no fetch argument form")
	}
	r, err := sdtArm64Register(op)
	return r, "", err
}

// sdtArm64Register names the kernel's register: %xN for xN and wN, %sp.
func sdtArm64Register(s string) (tracefs.Fetch, error) {
	name, _, ok := arch.ARM64.AsmRegister(s)
	if !ok {
		return tracefs.Fetch{}, errors.New("not an operand the kernel can read")
	}
	return sdtRegister(arch.ARM64, name)
}
