package sdtprobe

import (
	"debug/elf"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// ArgError is a marker operand the kernel cannot read (a scaled index,
// an unknown symbol, a register it does not know); the definition goes
// without that argument, as perf's synthesize_sdt_probe_arg skips it.
// It wraps grammar.ErrNotSupported.
type ArgError struct {
	Index   int    // 1-based: the argN the operand would have been
	Operand string // as the note writes it, "8@foo(%rip)"
	Msg     string
}

func (e *ArgError) Error() string {
	return fmt.Sprintf("arg%d %q: %s", e.Index, e.Operand, e.Msg)
}

func (e *ArgError) Unwrap() error { return grammar.ErrNotSupported }

// Symbols answers the @+OFFS of a symbol's address for a rip-relative
// operand ("foo(%rip)"): the kernel reads @+OFFS relative to the probed
// instruction's mapping (translate_user_vaddr). ok is false for an
// unknown symbol. A nil Symbols knows none.
type Symbols func(name string) (off uint64, ok bool)

// sdtOperandParser converts one operand (without its "N@") into a fetch
// argument for one machine; the grammars live in sdt_x86_64.go and
// sdt_aarch64.go, the register names they accept in tracefs/arch.
type sdtOperandParser func(op string, syms Symbols) (fetch tracefs.Fetch, typ string, err error)

var sdtParsers = map[*arch.Arch]sdtOperandParser{}

// sdtTypes is perf's type_to_suffix, indexed by the note's size + 8: a
// negative size is signed ("-4@%eax" is s32), a size with no kernel type
// gives none.
var sdtTypes = [17]string{"s64", "", "", "", "s32", "", "s16", "s8",
	"", "u8", "u16", "", "u32", "", "", "", "u64"}

// Operands splits a marker's argument string into operands as perf
// does (argv_split on spaces), rejoining the pieces of a bracketed arm64
// operand that holds a space ("-4@[sp, 12]", and also "[x29, -12]", which
// perf 6.1 leaves split).
func Operands(args string) []string {
	var out []string
	for _, w := range strings.Fields(args) {
		if n := len(out); n > 0 && strings.Count(out[n-1], "[") > strings.Count(out[n-1], "]") {
			out[n-1] += " " + w
			continue
		}
		out = append(out, w)
	}
	return out
}

// Arg converts operand i (0-based) of a marker, "N@OP" or "OP", into
// the fetch argument argN+1 with the note's size and sign, for machine m.
// Registers the kernel does not know are refused here rather than by the
// kernel. Errors are *ArgError.
func Arg(m elf.Machine, i int, operand string, syms Symbols) (tracefs.Arg, error) {
	bad := func(format string, a ...any) (tracefs.Arg, error) {
		return tracefs.Arg{}, &ArgError{Index: i + 1, Operand: operand, Msg: fmt.Sprintf(format, a...)}
	}
	a, _ := arch.For(m)
	parse := sdtParsers[a]
	if parse == nil {
		return bad("SDT operands of %s binaries are not supported", arch.MachineName(m))
	}
	op, typ := operand, ""
	if at := strings.IndexByte(operand, '@'); at >= 0 {
		size, err := strconv.Atoi(operand[:at])
		if err != nil || size < -8 || size > 8 {
			return bad("size %q is not one of -8..8", operand[:at])
		}
		op, typ = operand[at+1:], sdtTypes[size+8]
	}
	fetch, bits, err := parse(op, syms)
	if err != nil {
		return bad("%v", err)
	}
	if bits != "" { // a high-byte register: a bitfield of its register
		typ = bits
	}
	name := "arg" + strconv.Itoa(i+1)
	return tracefs.NewArg(name, fetch, typ), nil
}

// sdtConst is a constant as gas writes one: decimal, 0x hex, 0 octal.
var sdtConst = regexp.MustCompile(`^[+-]?(?:0[xX][0-9a-fA-F]+|[0-9]+)$`)

// sdtImmediate converts a constant operand into the kernel's \IMM, in
// decimal (kstrtol's base 0 would read a leading 0 as gas does, but
// decimal leaves no doubt).
func sdtImmediate(n string) (tracefs.Fetch, error) {
	if sdtConst.MatchString(n) {
		if v, err := strconv.ParseInt(n, 0, 64); err == nil {
			return tracefs.Fetch{Base: tracefs.BaseImmediate, Imm: v}, nil
		}
		if v, err := strconv.ParseUint(strings.TrimPrefix(n, "+"), 0, 64); err == nil {
			return tracefs.Fetch{Base: tracefs.BaseImmediate, Imm: int64(v)}, nil
		}
	}
	return tracefs.Fetch{}, fmt.Errorf("bad constant %q", n)
}

// sdtRegister checks a register name the kernel must know on a.
func sdtRegister(a *arch.Arch, reg string) (tracefs.Fetch, error) {
	if !a.HasRegister(reg) {
		return tracefs.Fetch{}, fmt.Errorf("register %%%s is not one the kernel reads on %s", reg, a.Name)
	}
	return tracefs.Fetch{Base: tracefs.BaseRegister, Register: reg}, nil
}

// sdtDeref writes +N(FETCH) with perf's sign rules: a displacement
// without a sign gets '+', none at all gets "+0". The displacement is the
// compiler's decimal: one with a leading zero (octal to the kernel's
// kstrtol, which then refuses "08") or past 64 bits is refused.
func sdtDeref(disp string, inner tracefs.Fetch) (tracefs.Fetch, error) {
	if disp == "" {
		return withLoad(inner, tracefs.Load{}), nil
	}
	if digits := strings.TrimLeft(disp, "+-"); len(digits) > 1 && digits[0] == '0' {
		return tracefs.Fetch{}, fmt.Errorf("displacement %s has a leading zero, which the kernel would read as octal", disp)
	}
	off, err := strconv.ParseInt(disp, 10, 64)
	if err != nil {
		return tracefs.Fetch{}, fmt.Errorf("displacement %s does not fit a fetch argument", disp)
	}
	return withLoad(inner, tracefs.Load{Offset: off}), nil
}

// withLoad is f with one more load, l, outermost.
func withLoad(f tracefs.Fetch, l tracefs.Load) tracefs.Fetch {
	f.Loads = append(append([]tracefs.Load(nil), f.Loads...), l)
	return f
}
