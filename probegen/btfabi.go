package probegen

import (
	"debug/elf"
	"fmt"

	"github.com/cilium/ebpf/btf"

	"github.com/dwprobe/dwprobe/probegen/internal/ctype"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// callConv is where a function's integer-class arguments are at its first
// instruction under a machine's procedure call standard: BTF has types but
// no locations, so the standard is the location. Only arguments that take
// one general register or one 8-byte stack slot each are placed; the rest
// (floats, structures and unions by value, 16-byte integers) move the
// arguments after them by rules a fetcharg table cannot follow simply.
type callConv struct {
	regs []string // the integer argument registers, in order
	// stackOff is the first stack argument's offset from %sp at the entry:
	// past the return address on x86_64, none on arm64 (it is in x30).
	stackOff int64
	// sp is the stack pointer as a fetcharg ("%sp"; "%r15" on s390x,
	// "%gpr1" on ppc64le).
	sp string
	// bigEndian: an argument narrower than its 8-byte stack slot is at
	// the slot's end (s390x).
	bigEndian bool
}

// callConvFor is the convention of ELF machine m, from its arch.Arch
// (IntArgRegs, StackArgOffset), with the registers spelled as fetchargs;
// false for a machine without one.
func callConvFor(m elf.Machine) (callConv, bool) {
	a, ok := arch.For(m)
	if !ok {
		return callConv{}, false
	}
	return callConv{regs: fetchRegs(a.IntArgRegs), stackOff: a.StackArgOffset, sp: "%" + a.StackPointer, bigEndian: a.BigEndian}, true
}

// paramLoc is one parameter and where it is at the function's entry: in a
// register (reg), in a stack slot (stack, at off from %sp), or nowhere the
// table can say (why).
type paramLoc struct {
	name  string
	typ   btf.Type
	reg   string
	stack bool
	off   int64
	why   string
}

// fetch starts the fetcharg of the parameter's value.
func (p paramLoc) fetch() *fetch {
	if p.stack {
		sp := p.reg // the stack pointer, for a stack slot
		if sp == "" {
			sp = "%sp"
		}
		return &fetch{base: regBase(sp), refs: []fref{{off: p.off}}}
	}
	return &fetch{base: regBase(p.reg)}
}

// place puts the parameters of fp where cc says they are at the entry.
// After one the table cannot place, the later ones are uncertain too.
func (cc callConv) place(fp *btf.FuncProto) []paramLoc {
	var out []paramLoc
	nreg, nstack := 0, 0
	blocked := ""
	for i, p := range fp.Params {
		if _, void := p.Type.(*btf.Void); void && i == len(fp.Params)-1 {
			break // "...": the variadic tail has no names
		}
		pl := paramLoc{name: p.Name, typ: p.Type}
		switch why := simpleArg(p.Type); {
		case blocked != "":
			pl.why = blocked
		case why != "":
			pl.why = why
			blocked = fmt.Sprintf("it follows %s, %s, after which the argument registers and stack slots are not simply in order", paramName(p.Name, i), why)
		case nreg < len(cc.regs):
			pl.reg = cc.regs[nreg]
			nreg++
		default:
			pl.stack, pl.off, pl.reg = true, cc.stackOff+8*int64(nstack), cc.sp
			if sz, err := btf.Sizeof(p.Type); err == nil && sz < 8 && cc.bigEndian {
				pl.off += int64(8 - sz)
			}
			nstack++
		}
		out = append(out, pl)
	}
	return out
}

func paramName(name string, i int) string {
	if name == "" {
		return fmt.Sprintf("parameter %d", i+1)
	}
	return name
}

// simpleArg says why an argument of type t does not take exactly one
// general register (or one stack slot): "" when it does.
func simpleArg(t btf.Type) string {
	switch u := btf.UnderlyingType(t).(type) {
	case *btf.Pointer, *btf.Enum:
		return ""
	case *btf.Int:
		if u.Size > 8 {
			return fmt.Sprintf("a %d-byte integer, passed in a register pair", u.Size)
		}
		return ""
	case *btf.Float:
		return "a floating-point value, passed in a vector register a kprobe cannot read"
	case *btf.Struct, *btf.Union:
		return "a structure or union passed by value, in registers or on the stack by size and member types"
	}
	return fmt.Sprintf("a parameter of type %s, which the calling convention table does not place", ctype.BTFName(t))
}
