package tracefs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// typeRE matches the probe argument types any kernel's README lists:
// s8/16/32/64, u…, x…, char, string, ustring, symbol, symstr, %pd/%pD,
// b<bit-width>@<bit-offset>/<container-size>, and <type>[<array-size>].
// Which of them a kernel has is its Dialect's business.
var typeRE = regexp.MustCompile(`^(?:[sux](?:8|16|32|64)|char|string|ustring|symbol|symstr|%p[dD]|b[0-9]+@[0-9]+/[0-9]+)(?:\[[0-9]+\])?$`)

// bitfieldRE is b<bit-width>@<bit-offset>/<container-size>.
var bitfieldRE = regexp.MustCompile(`^b([0-9]+)@([0-9]+)/([0-9]+)`)

// maxArrayLen is MAX_ARRAY_LEN: TYPE[N] takes N from 1 to 64.
const maxArrayLen = 64

// validType reports a type in typeRE whose array, if it is one, has 1 to
// 64 elements (traceprobe_parse_probe_arg: BAD_ARRAY_NUM, ARRAY_TOO_BIG)
// and whose bitfield, if it is one, fits its container
// (__parse_bitfield_probe_arg: a width of 1 or more, width plus offset at
// most the container's bits, a container of 8 to 64).
func validType(t string) bool {
	if !typeRE.MatchString(t) {
		return false
	}
	if i := strings.IndexByte(t, '['); i > 0 {
		if n, ok := kstrtoul(t[i+1 : len(t)-1]); !ok || n == 0 || n > maxArrayLen {
			return false
		}
	}
	m := bitfieldRE.FindStringSubmatch(t)
	if m == nil {
		return true
	}
	w, _ := strconv.Atoi(m[1])
	o, _ := strconv.Atoi(m[2])
	c, _ := strconv.Atoi(m[3])
	return (c == 8 || c == 16 || c == 32 || c == 64) && w > 0 && w+o <= c
}

// fetchProblem checks fetcharg s of e as parse_probe_arg and
// parse_probe_vars do (Linux 6.12's, whose grammar holds 6.1's), and says
// what the kernel would refuse and at which byte of s, or "" if it
// accepts it:
//
//	%REG  @ADDR  @SYM[+|-OFFS] (kprobes)  @+OFFS (uprobes)
//	$stackN  $stack  $retval (return probes)  $comm
//	$argN, $arg*, NAME[->M|.M…] (kernel probes at a function's entry, at
//	its return, or at a tracepoint)  $retval->M…
//	+|-[u]OFFS(FETCHARG)  \IMM  \"STRING"
//
// Which kernels have $arg*, BTF names, and $argN on return probes is the
// Dialect's business (FeatureProblem).
func (e Event) fetchProblem(s string) (msg string, off int) {
	if s == "" {
		return "empty fetch expression", 0
	}
	if _, ok, problem := FetchForm(s); ok {
		// Linux 7.3's forms (which kernels read them is the Dialect's
		// business): kernel probes only.
		if problem != "" {
			return problem, 0
		}
		if e.Kind == UProbe || e.Kind == TProbe && strings.HasPrefix(s, "(") {
			return strconv.Quote(s) + " is read by kernel probes only (kprobes and fprobes)", 0
		}
		return "", 0
	}
	switch s[0] {
	case '$':
		return e.varProblem(s[1:]), 0
	case '%':
		if e.Kind == FProbe || e.Kind == TProbe {
			// parse_probe_arg: "eprobe and fprobe do not handle registers".
			return "fprobes and tracepoint probes read no registers: write $argN or the argument's name", 0
		}
		if !regName(s[1:]) {
			return "bad register name " + strconv.Quote(s), 0
		}
	case '@':
		return e.memProblem(s), 0
	case '+', '-':
		return e.derefProblem(s)
	case '\\':
		if strings.HasPrefix(s, `\"`) {
			if len(s) < 3 || s[len(s)-1] != '"' {
				return "immediate string without its closing '\"'", len(s)
			}
			return "", 0
		}
		if !immediate(s[1:]) {
			// str_to_immediate: a number, read by kstrtoul/kstrtol with
			// base 0; "\deade12d" is BAD_IMM.
			return "bad immediate " + strconv.Quote(s) + ": the kernel reads \\NUMBER (\\42, \\-1, \\0x2a)", 1
		}
	default:
		if !btfName(s) {
			return "bad fetch argument " + strconv.Quote(s), 0
		}
		return e.entryProblem(s, "a BTF argument name "+strconv.Quote(s)), 0
	}
	return "", 0
}

// btfNameRE is NAME[->MEMBER|.MEMBER…], what parse_btf_arg reads.
var btfNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(?:(?:->|\.)[A-Za-z_][A-Za-z0-9_]*)*$`)

// btfName reports a BTF argument with its members: "count", "file->f_mode".
func btfName(s string) bool { return btfNameRE.MatchString(s) }

// entryProblem says why what (a function argument: $argN, $arg*, a BTF
// name) can't be read at e's probe point: only kernel probes read them,
// and only at a function's entry or return or at a tracepoint.
func (e Event) entryProblem(v, what string) string {
	switch {
	case e.Kind == UProbe:
		return v + " is for kernel probes only: uprobes have no function-argument access"
	case e.Kind == KProbe && !e.Return() && !e.atEntry():
		return what + " is read at a function's entry only (SYMBOL or SYMBOL+0), not at " + e.Target
	}
	return ""
}

// maxStackParam is the kernel's PARAM_MAX_STACK, THREAD_SIZE / sizeof(long):
// 16 KiB stacks on x86_64 and arm64 (without KASAN, as Debian builds them).
const maxStackParam = 16384 / 8

// varProblem checks the name of a $variable (without the '$').
func (e Event) varProblem(v string) string {
	switch {
	case v == "retval" || strings.HasPrefix(v, "retval-") || strings.HasPrefix(v, "retval."):
		if !e.Return() {
			return "$retval is only for return probes"
		}
		if v != "retval" && !btfName(v) {
			return "bad member access $" + v + " ($retval->MEMBER, $retval.MEMBER)"
		}
	case v == "arg*":
		return e.entryProblem("$arg*", "$arg*")
	case v == "stack" || v == "comm" || v == "COMM":
	case strings.HasPrefix(v, "stack"):
		if !decimal(v[5:]) {
			return "bad stack slot $" + v
		}
		if n, err := strconv.ParseUint(v[5:], 10, 64); e.Kind == KProbe && (err != nil || n > maxStackParam) {
			return fmt.Sprintf("bad stack slot $%s: kprobes read $stack0 to $stack%d", v, maxStackParam)
		}
	case strings.HasPrefix(v, "arg"):
		n, err := strconv.ParseUint(v[3:], 10, 32)
		switch {
		case err != nil || !decimal(v[3:]) || n == 0:
			return "bad function argument $" + v + " ($arg1, $arg2, …)"
		case n > maxStackParam:
			return fmt.Sprintf("bad function argument $%s: the kernel reads $arg1 to $arg%d", v, maxStackParam)
		default:
			return e.entryProblem("$"+v, "$"+v)
		}
	default:
		return "unknown variable $" + v
	}
	return ""
}

// atEntry reports whether a kprobe target may be what the kernel's
// kprobe_on_func_entry takes for a function entry: the address SYM+OFFS
// is a function's first byte. That holds for a symbol with no offset or
// offset 0, never for an address, and never for a nonzero offset from a
// function. An offset from _text or _stext (which perf writes for a
// function whose name is not unique) lands wherever it does: only
// kallsyms knows, so it may be. (x86's "+4" past an ENDBR also counts
// there, but whether a function starts with one is not in the line.)
func (e Event) atEntry() bool {
	t := e.Target
	if t == "" || isDigit(t[0]) {
		return false
	}
	i := strings.IndexAny(t, "+-")
	if i < 0 {
		return true
	}
	n, ok := kstrtol(t[i:])
	sym := t[:i]
	if j := strings.IndexByte(sym, ':'); j >= 0 {
		sym = sym[j+1:] // MOD:SYM
	}
	return ok && (n == 0 || sym == "_text" || sym == "_stext")
}

// memProblem checks @ADDR, @SYM and @+OFFS.
func (e Event) memProblem(s string) string {
	switch {
	case len(s) < 2:
		return "'@' needs an address, a symbol or a file offset"
	case isDigit(s[1]):
		if _, ok := kstrtoul(s[1:]); !ok {
			return "bad memory address " + strconv.Quote(s)
		}
	case s[1] == '+':
		if e.Kind == KProbe {
			return "kprobes read no file offset (@+OFFS is for uprobes)"
		}
		if _, ok := kstrtol(s[2:]); !ok {
			return "bad file offset " + strconv.Quote(s)
		}
	case e.Kind == UProbe:
		return "uprobes read no symbol (@SYM is for kprobes; use @+FILEOFFSET)"
	}
	return ""
}

// derefProblem checks +|-[u]OFFS(FETCHARG).
func (e Event) derefProblem(s string) (string, int) {
	rest := strings.TrimPrefix(s[1:], "u")
	i := strings.IndexByte(rest, '(')
	if i < 0 {
		return "dereference " + strconv.Quote(s) + " needs (FETCHARG)", 0
	}
	sign := ""
	if s[0] == '-' {
		sign = "-"
	}
	if _, ok := kstrtol(sign + rest[:i]); !ok {
		return "bad dereference offset in " + strconv.Quote(s), 0
	}
	start := len(s) - len(rest) + i + 1
	if !strings.HasSuffix(s, ")") {
		return "dereference " + strconv.Quote(s) + " without its closing ')'", len(s)
	}
	inner := s[start : len(s)-1]
	if inner == "$comm" || inner == "$COMM" || strings.HasPrefix(inner, `\"`) {
		return "$comm and strings can't be dereferenced", start
	}
	msg, off := e.fetchProblem(inner)
	return msg, start + off
}

// regName is the shape of a register name: what regs_query_register_offset
// may know (which ones it does is the Dialect's business).
func regName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c == '_' || 'a' <= c && c <= 'z' || isDigit(c)) {
			return false
		}
	}
	return true
}

// immediate is str_to_immediate: a digit starts kstrtoul, '-' and '+'
// kstrtol.
func immediate(s string) bool {
	if s == "" {
		return false
	}
	switch {
	case isDigit(s[0]):
		_, ok := kstrtoul(s)
		return ok
	case s[0] == '-':
		_, ok := kstrtol(s)
		return ok
	case s[0] == '+':
		_, ok := kstrtol(s[1:])
		return ok
	}
	return false
}

// kstrtoul is the kernel's kstrtoul(s, 0, …): an optional '+', then "0x"
// hexadecimal, "0" octal or decimal, nothing after.
func kstrtoul(s string) (uint64, bool) {
	s = strings.TrimPrefix(s, "+")
	base := 10
	switch {
	case len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		base, s = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base = 8
	}
	if s == "" || s[0] == '+' || s[0] == '-' || strings.ContainsRune(s, '_') {
		return 0, false
	}
	n, err := strconv.ParseUint(s, base, 64)
	return n, err == nil
}

// kstrtol is the kernel's kstrtol(s, 0, …): kstrtoul with an optional '-',
// within int64.
func kstrtol(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	u, ok := kstrtoul(strings.TrimPrefix(s, "-"))
	if !ok || neg && strings.HasPrefix(strings.TrimPrefix(s, "-"), "+") {
		return 0, false
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > 1<<63-1 {
		return 0, false
	}
	return int64(u), true
}

// decimal reports a non-empty run of decimal digits.
func decimal(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}
