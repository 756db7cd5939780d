package sdtprobe

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// x86_64 SDT operands are AT&T assembler operands as gas prints them for
// <sys/sdt.h>'s "nor" constraints. perf 6.1's arch/x86/util/perf_regs.c
// converts +/-NUM(REG) and REG (sdt_reg_tbl renames the register) and skips
// the rest (its sdt_reg_tbl of register names is arch.X86_64's
// AsmRegister); dwprobe writes those the same way and also converts
// constants ($5: \5) and rip-relative symbols (foo+8(%rip): @+OFFS). A
// high-byte register (%ah) is read as bits 8-15 of its register, where
// perf 6.1 reads the wrong byte.
func init() { sdtParsers[arch.X86_64] = sdtX86Operand }

// sdtX86Op is perf's SDT_OP_REGEX, with the parentheses required to pair:
// sign, displacement, register.
var sdtX86Op = regexp.MustCompile(`^([+-]?)([0-9]*)(?:\((%[a-z][a-z0-9]+)\)|(%[a-z][a-z0-9]+))$`)

// sdtX86RipSym is SYM(%rip), SYM+N(%rip), SYM-N(%rip) or N+SYM(%rip).
var sdtX86RipSym = regexp.MustCompile(`^(?:([0-9]+)\+)?([A-Za-z_.$][A-Za-z0-9_.$@]*)([+-][0-9]+)?\(%rip\)$`)

func sdtX86Operand(op string, syms Symbols) (fetch tracefs.Fetch, bits string, err error) {
	switch {
	case strings.HasPrefix(op, "$"):
		f, err := sdtImmediate(op[1:])
		return f, "", err
	case strings.Contains(op, ","):
		return tracefs.Fetch{}, "", errors.New("scaled index addressing has no fetch argument form")
	case strings.HasSuffix(op, "(%rip)"):
		return sdtX86Rip(op, syms)
	}
	m := sdtX86Op.FindStringSubmatch(op)
	if m == nil {
		return tracefs.Fetch{}, "", errors.New("not an operand the kernel can read")
	}
	sign, disp, mem, reg := m[1], m[2], m[3], m[4]
	if mem == "" && (sign != "" || disp != "") {
		return tracefs.Fetch{}, "", errors.New("not an operand the kernel can read")
	}
	name, high, _ := arch.X86_64.AsmRegister(strings.TrimPrefix(mem+reg, "%"))
	r, err := sdtRegister(arch.X86_64, name)
	if err != nil {
		return tracefs.Fetch{}, "", err
	}
	if mem == "" {
		if high {
			return r, "b8@8/64", nil
		}
		return r, "", nil
	}
	if high {
		return tracefs.Fetch{}, "", errors.New("a high-byte register can't be an address")
	}
	if sign != "" && disp == "" {
		return tracefs.Fetch{}, "", errors.New("a sign with no displacement")
	}
	f, err := sdtDeref(sign+disp, r)
	return f, "", err
}

// sdtX86Rip converts a rip-relative operand: the address is the symbol's,
// which the kernel reads as @+OFFS.
func sdtX86Rip(op string, syms Symbols) (tracefs.Fetch, string, error) {
	m := sdtX86RipSym.FindStringSubmatch(op)
	if m == nil {
		return tracefs.Fetch{}, "", errors.New("rip-relative without a symbol: its address depends on the instruction")
	}
	off, ok := uint64(0), false
	if syms != nil {
		off, ok = syms(m[2])
	}
	if !ok {
		return tracefs.Fetch{}, "", fmt.Errorf("symbol %s is not in the binary's symbol table", m[2])
	}
	addr := int64(off)
	for _, n := range []string{m[1], m[3]} {
		if n == "" {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimPrefix(n, "+"), 10, 64)
		if err != nil || (v > 0 && addr > math.MaxInt64-v) {
			return tracefs.Fetch{}, "", fmt.Errorf("offset %s out of range", n)
		}
		addr += v
	}
	// The kernel reads @+OFFS as an offset into the file: one before its
	// start is refused (and an unsigned wrap would read elsewhere).
	if addr < 0 {
		return tracefs.Fetch{}, "", fmt.Errorf("%s lies before the start of the file", op)
	}
	return tracefs.Fetch{Base: tracefs.BaseFileOffset, Addr: addr, Hex: true, Loads: []tracefs.Load{{}}}, "", nil
}
