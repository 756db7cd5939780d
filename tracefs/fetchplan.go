package tracefs

import (
	"errors"
	"strconv"
	"strings"
)

// FetchBase is where a fetcharg's value starts, before its loads.
type FetchBase uint8

const (
	// BaseRegister: %REG, the register's value (Fetch.Register).
	BaseRegister FetchBase = iota + 1
	// BaseAddress: @ADDR, the absolute address Fetch.Addr.
	BaseAddress
	// BaseSymbol: @SYM[+|-OFFS], Fetch.Symbol's address plus Fetch.Addr
	// (a signed offset).
	BaseSymbol
	// BaseFileOffset: @+OFFS (uprobes), the address at which file
	// offset Fetch.Addr of the probed binary is mapped.
	BaseFileOffset
	// BaseStack: $stackN, the Nth word on the stack (Fetch.N).
	BaseStack
	// BaseStackPointer: $stack, the stack pointer's value.
	BaseStackPointer
	// BaseRetval: $retval, the function's return value (return probes).
	BaseRetval
	// BaseArg: $argN, the Nth argument of the function (N from 1).
	BaseArg
	// BaseComm: $comm, the task's name.
	BaseComm
	// BaseImmediate: \IMM, the constant Fetch.Imm.
	BaseImmediate
	// BaseString: \"STRING", the constant Fetch.Name.
	BaseString
	// BaseBTF: NAME[->M…] or $retval->M…, an argument (or the return
	// value) and its members by the kernel's BTF (Fetch.Name, as written).
	BaseBTF
	// BasePerCPU: this_cpu_ptr(@SYM), this CPU's copy of the per-CPU
	// variable Fetch.Symbol (Linux 7.3's parse_this_cpu); its first load,
	// at offset 0, is written this_cpu_read(@SYM).
	BasePerCPU
	// BaseText: a fetcharg this model does not break down (a typecast,
	// "(task_struct)$current->pid"; text ParseFetch refuses), Fetch.Name
	// as written; Fetch.Why says why ParseFetch refuses it. ParseFetch
	// never returns it; ReadFetch and TextFetch do.
	BaseText
)

// Fetch is one fetcharg, parsed or built: a base value, then Loads in
// order, each reading memory at the value so far plus its offset. @ADDR
// and @SYM are a base address and one load at offset 0: "+8(@jiffies+4)"
// is BaseSymbol jiffies, Addr 4, Loads {0} {8}. String writes it as the
// kernel reads it; the zero Fetch (Base 0) is no fetcharg.
type Fetch struct {
	Base     FetchBase
	Register string // BaseRegister: the kernel's name, without '%'
	Symbol   string // BaseSymbol, BasePerCPU
	Addr     int64  // BaseAddress, BaseFileOffset; BaseSymbol's offset
	N        int    // BaseStack's slot, BaseArg's number
	Imm      int64  // BaseImmediate
	Name     string // BaseString's text; BaseBTF's expression; BaseText's text
	Loads    []Load
	// SymOffset: BaseSymbol's offset is written, even when it is 0, as
	// perf writes a global ("@jiffies+0"); Hex writes BaseImmediate and
	// BaseFileOffset in hex ("\0xdeade12d", perf's placeholder;
	// "@+0x4010", an SDT operand). ParseFetch sets them from the text,
	// so that String gives the text back.
	SymOffset, Hex bool
	// Why is BaseText's reason: ParseFetch's error for Name.
	Why string
}

// Load is one dereference of a fetcharg: +OFFS(…), or +uOFFS(…) from user
// memory.
type Load struct {
	Offset int64
	User   bool
}

// ErrFetch is what ParseFetch returns for text that is not a fetcharg the
// kernel's grammar holds (the Dialect says which kernels accept it).
var ErrFetch = errors.New("not a fetch argument")

// ParseFetch parses a fetcharg as parse_probe_arg reads it:
//
//	%REG  @ADDR  @SYM[+|-OFFS]  @+OFFS  $stackN  $stack  $retval  $comm
//	$argN  NAME[->M…]  $retval->M…  +|-[u]OFFS(FETCHARG)  \IMM  \"STRING"
//
// The error wraps ErrFetch. $arg* (which the kernel expands into several
// arguments) is not one fetcharg and is refused.
func ParseFetch(s string) (Fetch, error) {
	var loads []Load
	for len(s) > 0 && (s[0] == '+' || s[0] == '-') && s[len(s)-1] == ')' {
		i := strings.IndexByte(s, '(')
		if i < 0 {
			break
		}
		off, user := s[:i], false
		if strings.HasPrefix(off[1:], "u") {
			off, user = off[:1]+off[2:], true
		}
		n, ok := kstrtol(strings.TrimPrefix(off, "+"))
		if !ok {
			return Fetch{}, fetchErr(s)
		}
		loads = append(loads, Load{Offset: n, User: user})
		s = s[i+1 : len(s)-1]
	}
	f, err := parseFetchBase(s)
	if err != nil {
		return Fetch{}, err
	}
	for i := len(loads) - 1; i >= 0; i-- {
		f.Loads = append(f.Loads, loads[i])
	}
	return f, nil
}

func fetchErr(s string) error { return errors.Join(ErrFetch, errors.New(strconv.Quote(s))) }

// ReadFetch reads s, a fetcharg someone wrote (a spec's raw fetcharg),
// once: ParseFetch's Fetch, or, for text ParseFetch refuses (a form this
// model does not break down, or a mistake the kernel will refuse),
// BaseText holding s and ParseFetch's reason. The caller writes s as
// given, not the Fetch's String.
func ReadFetch(s string) Fetch {
	f, err := ParseFetch(s)
	if err != nil {
		return Fetch{Base: BaseText, Name: s, Why: err.Error()}
	}
	return f
}

// TextFetch is s, a fetcharg built as text in a form this model does not
// break down (a typecast, "(task_struct)$current->pid"), as BaseText:
// String writes s. Why is what ParseFetch says of such text as a whole.
func TextFetch(s string) Fetch { return Fetch{Base: BaseText, Name: s, Why: fetchErr(s).Error()} }

// parseFetchBase parses a fetcharg without its outer loads.
func parseFetchBase(s string) (Fetch, error) {
	if s == "" {
		return Fetch{}, fetchErr(s)
	}
	switch s[0] {
	case '%':
		if !regName(s[1:]) {
			return Fetch{}, fetchErr(s)
		}
		return Fetch{Base: BaseRegister, Register: s[1:]}, nil
	case '@':
		return parseMem(s)
	case '$':
		return parseVar(s)
	case '\\':
		if strings.HasPrefix(s, `\"`) && len(s) >= 3 && s[len(s)-1] == '"' {
			return Fetch{Base: BaseString, Name: s[2 : len(s)-1]}, nil
		}
		if !immediate(s[1:]) {
			return Fetch{}, fetchErr(s)
		}
		n, ok := kstrtol(strings.TrimPrefix(s[1:], "+"))
		if !ok { // a number above int64's range: kstrtoul's bits
			u, _ := kstrtoul(s[1:])
			n = int64(u)
		}
		hex := strings.HasPrefix(s[1:], "0x") || strings.HasPrefix(s[1:], "0X")
		return Fetch{Base: BaseImmediate, Imm: n, Hex: hex}, nil
	}
	if f, ok := parsePerCPU(s); ok {
		return f, nil
	}
	if btfName(s) {
		return Fetch{Base: BaseBTF, Name: s}, nil
	}
	return Fetch{}, fetchErr(s)
}

// parsePerCPU parses this_cpu_read(@SYM) and this_cpu_ptr(@SYM).
func parsePerCPU(s string) (Fetch, bool) {
	fn, in, ok := strings.Cut(s, "(@")
	if !ok || fn != "this_cpu_read" && fn != "this_cpu_ptr" || !strings.HasSuffix(in, ")") {
		return Fetch{}, false
	}
	sym := in[:len(in)-1]
	if !btfNameRE.MatchString(sym) || strings.ContainsAny(sym, ".-") {
		return Fetch{}, false
	}
	f := Fetch{Base: BasePerCPU, Symbol: sym}
	if fn == "this_cpu_read" {
		f.Loads = []Load{{}}
	}
	return f, true
}

// parseMem parses @ADDR, @+OFFS and @SYM[+|-OFFS]: an address and the load
// at it.
func parseMem(s string) (Fetch, error) {
	at := []Load{{}}
	switch {
	case len(s) < 2:
	case isDigit(s[1]):
		if n, ok := kstrtoul(s[1:]); ok {
			return Fetch{Base: BaseAddress, Addr: int64(n), Loads: at}, nil
		}
	case s[1] == '+':
		if n, ok := kstrtol(s[2:]); ok {
			hex := strings.HasPrefix(s[2:], "0x") || strings.HasPrefix(s[2:], "0X")
			return Fetch{Base: BaseFileOffset, Addr: n, Loads: at, Hex: hex && n >= 0}, nil
		}
	default:
		sym, off := s[1:], int64(0)
		if i := strings.IndexAny(sym, "+-"); i > 0 {
			n, ok := kstrtol(strings.TrimPrefix(sym[i:], "+"))
			if !ok {
				return Fetch{}, fetchErr(s)
			}
			sym, off = sym[:i], n
			return Fetch{Base: BaseSymbol, Symbol: sym, Addr: off, Loads: at, SymOffset: true}, nil
		}
		return Fetch{Base: BaseSymbol, Symbol: sym, Addr: off, Loads: at}, nil
	}
	return Fetch{}, fetchErr(s)
}

// parseVar parses the $variables.
func parseVar(s string) (Fetch, error) {
	v := s[1:]
	switch {
	case v == "retval":
		return Fetch{Base: BaseRetval}, nil
	case strings.HasPrefix(v, "retval") && btfName(v):
		return Fetch{Base: BaseBTF, Name: s}, nil
	case v == "comm" || v == "COMM":
		return Fetch{Base: BaseComm}, nil
	case v == "stack":
		return Fetch{Base: BaseStackPointer}, nil
	case strings.HasPrefix(v, "stack") && decimal(v[5:]):
		n, err := strconv.Atoi(v[5:])
		if err == nil {
			return Fetch{Base: BaseStack, N: n}, nil
		}
	case strings.HasPrefix(v, "arg") && decimal(v[3:]):
		n, err := strconv.Atoi(v[3:])
		if err == nil && n > 0 {
			return Fetch{Base: BaseArg, N: n}, nil
		}
	}
	return Fetch{}, fetchErr(s)
}

// String writes f as the kernel reads it; ParseFetch(f.String()) is f
// (but for BaseText, which ParseFetch refuses).
func (f Fetch) String() string {
	loads := f.Loads
	var s string
	switch f.Base {
	case BasePerCPU:
		s = "this_cpu_ptr(@" + f.Symbol + ")"
		if len(loads) > 0 && loads[0] == (Load{}) {
			s, loads = "this_cpu_read(@"+f.Symbol+")", loads[1:]
		}
	case BaseText:
		s = f.Name
	case BaseRegister:
		s = "%" + f.Register
	case BaseAddress, BaseFileOffset, BaseSymbol:
		s = f.memString()
		if len(loads) > 0 && loads[0] == (Load{}) {
			loads = loads[1:]
		} else {
			s = "+0(" + s + ")" // never parsed so: the address alone is no fetcharg
		}
	case BaseStack:
		s = "$stack" + strconv.Itoa(f.N)
	case BaseStackPointer:
		s = "$stack"
	case BaseRetval:
		s = "$retval"
	case BaseArg:
		s = "$arg" + strconv.Itoa(f.N)
	case BaseComm:
		s = "$comm"
	case BaseImmediate:
		s = `\` + strconv.FormatInt(f.Imm, 10)
		if f.Hex {
			s = `\0x` + strconv.FormatUint(uint64(f.Imm), 16)
		}
	case BaseString:
		s = `\"` + f.Name + `"`
	case BaseBTF:
		s = f.Name
	}
	for _, l := range loads {
		u := ""
		if l.User {
			u = "u"
		}
		sign := "+"
		if l.Offset < 0 {
			sign = "-"
		}
		s = sign + u + strconv.FormatUint(absInt(l.Offset), 10) + "(" + s + ")"
	}
	return s
}

func (f Fetch) memString() string {
	switch f.Base {
	case BaseAddress:
		return "@0x" + strconv.FormatUint(uint64(f.Addr), 16)
	case BaseFileOffset:
		if f.Hex && f.Addr >= 0 {
			return "@+0x" + strconv.FormatInt(f.Addr, 16)
		}
		return "@+" + strconv.FormatInt(f.Addr, 10)
	}
	if f.Addr == 0 && !f.SymOffset {
		return "@" + f.Symbol
	}
	return "@" + f.Symbol + signed(f.Addr)
}

func signed(n int64) string {
	if n < 0 {
		return "-" + strconv.FormatUint(absInt(n), 10)
	}
	return "+" + strconv.FormatInt(n, 10)
}

func absInt(n int64) uint64 {
	if n < 0 {
		return uint64(-(n + 1)) + 1
	}
	return uint64(n)
}

// FetchType is a fetcharg's :TYPE, parsed.
type FetchType struct {
	// Size is the bytes read per element: 1 to 8; 0 for a string,
	// symbol or "" (the kernel's default, a machine word).
	Size   int
	Signed bool // s8…s64
	Hex    bool // x8…x64
	// String is a NUL-terminated string (string, ustring, symstr); User
	// reads it from user memory (ustring).
	String, User bool
	// BitWidth and BitOffset place a bitfield b<width>@<offset>/<bits>
	// in a container of Size bytes; 0 and 0 for other types.
	BitWidth, BitOffset int
	// Array is N of TYPE[N], 0 for a scalar.
	Array int
}

// ParseType parses a fetch type as the kernel's README lists them (any
// kernel's; which of them a kernel has is its Dialect's business). ""
// is the default type. The error wraps ErrFetch.
func ParseType(t string) (FetchType, error) {
	if t != "" && !validType(t) {
		return FetchType{}, fetchErr(t)
	}
	var ft FetchType
	if i := strings.IndexByte(t, '['); i > 0 {
		ft.Array, _ = strconv.Atoi(t[i+1 : len(t)-1])
		t = t[:i]
	}
	if m := bitfieldRE.FindStringSubmatch(t); m != nil {
		ft.BitWidth, _ = strconv.Atoi(m[1])
		ft.BitOffset, _ = strconv.Atoi(m[2])
		c, _ := strconv.Atoi(m[3])
		ft.Size = c / 8
		return ft, nil
	}
	switch t {
	case "string", "symstr":
		ft.String = true
	case "ustring":
		ft.String, ft.User = true, true
	case "char":
		ft.Size = 1
	case "", "symbol", "%pd", "%pD":
	default:
		bits, _ := strconv.Atoi(t[1:])
		ft.Size, ft.Signed, ft.Hex = bits/8, t[0] == 's', t[0] == 'x'
	}
	return ft, nil
}
