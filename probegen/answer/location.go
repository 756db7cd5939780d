package answer

import (
	"fmt"
	"strconv"

	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// LocKind says where an argument's value is read from at its probe point.
type LocKind uint8

const (
	// LocRegister: the value starts in Location.Register, then goes
	// through Location.Loads (none: the register's value itself).
	LocRegister LocKind = iota + 1
	// LocAddress: the value starts as Location.Address (a global's
	// link-time address, or the uprobe file offset it is mapped from when
	// Location.FileOffset), then goes through Location.Loads; the first
	// load reads the global itself.
	LocAddress
	// LocConst: the constant Location.Const (or Location.Text, a string):
	// the filler written where a variable does not exist, or an
	// immediate the spec gave.
	LocConst
	// LocComm: the name of the task that hit the probe ($comm).
	LocComm
	// LocKernel: read by the kernel by name through its BTF
	// (Location.Text: "file->f_mode"), with no location of dwprobe's.
	LocKernel
	// LocUnreadable: not readable at this point; Location.Reason says why.
	LocUnreadable
)

var locKindNames = [...]string{LocRegister: "register", LocAddress: "address", LocConst: "constant", LocComm: "comm", LocKernel: "kernel", LocUnreadable: "unreadable"}

func (k LocKind) String() string { return enumName(locKindNames[:], k, "LocKind") }

// enumName is names[k], or TYPE(k) for a value without a name.
func enumName[K ~uint8 | ~int](names []string, k K, typ string) string {
	if int(k) >= 0 && int(k) < len(names) && names[k] != "" {
		return names[k]
	}
	return fmt.Sprintf("%s(%d)", typ, k)
}

// Location is a plan for reading an argument at a probe point, on the
// probed machine: a base value (a register, an address or a constant),
// then a chain of loads, each reading memory at the value so far plus its
// offset. It is what the definition's fetcharg says, in terms a BPF
// program (or any reader of pt_regs) can follow.
type Location struct {
	Kind LocKind
	// Register is the kernel's name of the register (no '%': "di",
	// "x19"), for LocRegister. DWARFRegister is its DWARF number, -1
	// where DWARF numbers none.
	Register      string
	DWARFRegister int
	// Symbol, for LocAddress, is the global whose address Address is
	// (plus SymbolOffset into it); "" for an absolute address. Address
	// is link-time: a kernel's moves with KASLR (ebpfprobe relocates
	// it), a user binary's with the load address of a PIE (FileOffset).
	Symbol       string
	SymbolOffset uint64
	Address      uint64
	FileOffset   bool
	// Loads are the dereferences, in order: the value becomes the
	// memory at value+Offset (user memory when User), a pointer's size
	// for every load but the last, which reads the argument's type
	// (ArgRead.Type: Size bytes, a bitfield's container). For a string
	// type, as the kernel reads one, the last load is not made: value+
	// Offset is the string's address.
	Loads []tracefs.Load
	// Const is LocConst's value; Text is LocConst's string, or
	// LocKernel's expression.
	Const int64
	Text  string
	// Reason says why a LocUnreadable argument is not readable here.
	Reason string
}

// Memory reports whether reading the value dereferences memory.
func (l Location) Memory() bool { return len(l.Loads) > 0 }

// locationOf is the plan of fetcharg f of an event on machine a; at says
// how to read a global's address (the link-time address of a symbol,
// false if unknown).
func locationOf(a *arch.Arch, f tracefs.Fetch, at func(sym string) (uint64, bool)) Location {
	l := Location{DWARFRegister: -1, Loads: f.Loads}
	switch f.Base {
	case 0:
		return Location{Kind: LocUnreadable, DWARFRegister: -1, Reason: "no fetcharg"}
	case tracefs.BaseText:
		return Location{Kind: LocUnreadable, DWARFRegister: -1, Reason: f.Why}
	case tracefs.BasePerCPU:
		// This CPU's copy is the kernel's to find (its per-CPU offset):
		// no plan, in the words ParseFetch has for the form.
		base := tracefs.Fetch{Base: tracefs.BasePerCPU, Symbol: f.Symbol}
		if len(f.Loads) > 0 && f.Loads[0] == (tracefs.Load{}) {
			base.Loads = f.Loads[:1]
		}
		return Location{Kind: LocUnreadable, DWARFRegister: -1, Reason: tracefs.TextFetch(base.String()).Why}
	case tracefs.BaseRegister:
		l.Kind, l.Register = LocRegister, f.Register
	case tracefs.BaseStackPointer:
		l.Kind, l.Register = LocRegister, a.StackPointer
	case tracefs.BaseStack:
		l.Kind, l.Register = LocRegister, a.StackPointer
		l.Loads = append([]tracefs.Load{{Offset: 8 * int64(f.N)}}, f.Loads...)
	case tracefs.BaseRetval:
		l.Kind, l.Register = LocRegister, a.IntResultReg
	case tracefs.BaseArg:
		l = argLocation(a, f)
	case tracefs.BaseAddress, tracefs.BaseFileOffset:
		l.Kind, l.Address, l.FileOffset = LocAddress, uint64(f.Addr), f.Base == tracefs.BaseFileOffset
	case tracefs.BaseSymbol:
		base, ok := at(f.Symbol)
		if !ok {
			return Location{Kind: LocUnreadable, DWARFRegister: -1, Reason: "no address for symbol " + f.Symbol}
		}
		l.Kind, l.Symbol, l.SymbolOffset, l.Address = LocAddress, f.Symbol, uint64(f.Addr), base+uint64(f.Addr)
	case tracefs.BaseImmediate:
		l.Kind, l.Const = LocConst, f.Imm
	case tracefs.BaseString:
		l.Kind, l.Text = LocConst, f.Name
	case tracefs.BaseComm:
		l.Kind = LocComm
	case tracefs.BaseBTF:
		l.Kind, l.Text = LocKernel, f.Name
	}
	if l.Kind == LocRegister {
		if n, ok := a.RegisterNumber(l.Register); ok {
			l.DWARFRegister = int(n)
		}
	}
	return l
}

// argLocation is $argN at a function's entry, by the machine's C calling
// convention: a register, or a stack slot past them.
func argLocation(a *arch.Arch, f tracefs.Fetch) Location {
	l := Location{Kind: LocRegister, DWARFRegister: -1}
	if f.N <= len(a.IntArgRegs) {
		l.Register, l.Loads = a.IntArgRegs[f.N-1], f.Loads
		return l
	}
	slot := int64(f.N-len(a.IntArgRegs)-1) * 8
	l.Register = a.StackPointer
	l.Loads = append([]tracefs.Load{{Offset: a.StackArgOffset + slot}}, f.Loads...)
	return l
}

// String writes l as C would read it: "%di", "*(*(%bp-24))", "*(&jiffies)",
// "*u(%x0+8)" for a load from user memory; a constant, "$comm", the
// kernel's BTF expression, or "unreadable: REASON".
func (l Location) String() string {
	var s string
	switch l.Kind {
	case LocRegister:
		s = "%" + l.Register
	case LocAddress:
		s = fmt.Sprintf("%#x", l.Address)
		switch {
		case l.FileOffset:
			s = fmt.Sprintf("@+%#x", l.Address)
		case l.Symbol != "":
			s = "&" + l.Symbol
		}
	case LocConst:
		if l.Text != "" {
			return strconv.Quote(l.Text)
		}
		return strconv.FormatInt(l.Const, 10)
	case LocComm:
		return "$comm"
	case LocKernel:
		return l.Text
	default:
		return "unreadable: " + l.Reason
	}
	for _, ld := range l.Loads {
		s = loadString(s, ld)
	}
	return s
}

// loadString is a load of ld from the value x.
func loadString(x string, ld tracefs.Load) string {
	star := "*"
	if ld.User {
		star = "*u"
	}
	switch {
	case ld.Offset > 0:
		return fmt.Sprintf("%s(%s+%d)", star, x, ld.Offset)
	case ld.Offset < 0:
		return fmt.Sprintf("%s(%s%d)", star, x, ld.Offset)
	}
	return star + "(" + x + ")"
}
