package probegen

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/dwprobe/dwprobe/dwarfres"
	dbtf "github.com/dwprobe/dwprobe/dwarfres/btf"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/internal/ctype"
	"github.com/dwprobe/dwprobe/tracefs"
)

// Linux 7.3 reads a typecast ((STRUCT)VAR->F, container_of's
// (STRUCT,MEMBER)VAR->OTHER) only at a function's entry or return
// (trace_probe.c's handle_typecast: NOSUP_BTFARG elsewhere), where VAR is
// one of the function's BTF arguments. At any other point of a kprobe
// (FUNC:N, FUNC+OFF, SRC:N) dwprobe writes the typecast itself: VAR is
// the DWARF variable in scope there (or a register), STRUCT and MEMBER
// are read from the vmlinux's BTF as the kernel reads them, and the
// result is a +OFF(...) fetcharg: container_of subtracts MEMBER's offset
// from VAR before the first member is read.

// castAtPoint reports a typecast the kernel would not read where sc is:
// a kprobe on a kernel that reads typecasts (tracefs.BTFCasts), at an
// address that is not the start of a function's symbol, and not a
// return probe.
func (e *argEnv) castAtPoint(expr string, sc *dwarfres.Scope) bool {
	if !strings.HasPrefix(expr, "(") || e.user || e.ret || sc == nil || e.f == nil || !e.f.IsKernel() {
		return false
	}
	if !e.dialect().Has(tracefs.BTFCasts) {
		return false
	}
	sym, ok := e.f.Symbols().At(sc.Addr)
	return !ok || sym.Start != sc.Addr
}

// castParts is one typecast: (Struct[,Member])Operand Rest, Rest the
// member chain after the operand (it starts with "->").
type castParts struct {
	Struct, Member, Operand, Rest string
}

// splitCast cuts a typecast as handle_typecast does: the type up to the
// first ')', then a parenthesized operand or one up to "->".
func splitCast(s string) (castParts, error) {
	var c castParts
	if !strings.HasPrefix(s, "(") {
		return c, fmt.Errorf("%q is not a typecast", s)
	}
	close := strings.IndexByte(s, ')')
	if close < 0 {
		return c, fmt.Errorf("missing ')' in the typecast %q", s)
	}
	c.Struct, c.Member, _ = strings.Cut(s[1:close], ",")
	after := s[close+1:]
	if strings.HasPrefix(after, "(") {
		end := closingParen(after)
		if end < 0 {
			return c, fmt.Errorf("unbalanced parentheses in %q", s)
		}
		c.Operand, c.Rest = after[1:end], after[end+1:]
	} else {
		i := strings.Index(after, "->")
		if i < 0 {
			return c, fmt.Errorf("a typecast needs a member after its operand: %q", s)
		}
		c.Operand, c.Rest = after[:i], after[i:]
	}
	if c.Struct == "" || c.Operand == "" || !strings.HasPrefix(c.Rest, "->") {
		return c, fmt.Errorf("a typecast is (STRUCT)VAR->MEMBER or (STRUCT,MEMBER)VAR->OTHER, not %q", s)
	}
	return c, nil
}

// closingParen is the index of the ')' closing s[0]'s '(', or -1.
func closingParen(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// convertCast writes a typecast the kernel does not read at sc's point
// (castAtPoint) from DWARF and the vmlinux's BTF.
func (e *argEnv) convertCast(a grammar.Arg, sc *dwarfres.Scope) (tracefs.Arg, ctype.Val, error) {
	e.addr = sc.Addr
	f, cur, fields, err := e.castValue(a, sc, a.Expr, 0)
	if err != nil {
		return tracefs.Arg{}, ctype.Val{}, err
	}
	name := a.Name
	if name == "" {
		name = argName(a, "arg", fields)
	}
	r := tracefs.Arg{Name: name}
	if r.Type, err = fetchType(f, cur, a.Type, a.User); err != nil {
		return tracefs.Arg{}, ctype.Val{}, e.valErr(a, cur, err)
	}
	fe, err := fetchOf(f, cur)
	if err != nil {
		return tracefs.Arg{}, ctype.Val{}, e.argErr(a, "%s: %v", a.Expr, err)
	}
	r = tracefs.NewArg(r.Name, fe, r.Type)
	e.note(answer.NoteOther, fmt.Sprintf("%s: the kernel reads typecasts at a function's entry or return only; at %s dwprobe wrote it from the debuginfo and the kernel's BTF: %s", a.Expr, scopeLabel(sc), r.Fetch))
	return r, cur, nil
}

// castValue reads s, a typecast, into f: where its member chain ends,
// and the chain's fields (the last named names the argument).
func (e *argEnv) castValue(a grammar.Arg, sc *dwarfres.Scope, s string, depth int) (*fetch, ctype.Val, []field, error) {
	if depth > 8 {
		return nil, ctype.Val{}, nil, e.argErr(a, "typecasts nest 8 levels deep at most")
	}
	c, err := splitCast(s)
	if err != nil {
		return nil, ctype.Val{}, nil, e.argErr(a, "%v", err)
	}
	f, _, err := e.castOperand(a, sc, c.Operand, depth)
	if err != nil {
		return nil, ctype.Val{}, nil, err
	}
	st, err := e.btfStruct(c.Struct)
	if err != nil {
		return nil, ctype.Val{}, nil, e.argErr(a, "%v", err)
	}
	stc := ctype.FromBTF(st)
	if c.Member != "" {
		// container_of: the operand points at STRUCT's MEMBER.
		k, err := ctype.MemberOffset(stc, c.Struct, c.Member)
		if err != nil {
			return nil, ctype.Val{}, nil, e.causeErr(a, memberErr(err))
		}
		f.add -= k
	}
	_, fields, err := splitFields("x" + c.Rest)
	if err != nil {
		return nil, ctype.Val{}, nil, e.argErr(a, "%v", err)
	}
	cur := ctype.Val{Name: "(" + c.Struct + ")" + c.Operand, Type: ctype.FromBTF(&btf.Pointer{Target: st})}
	for _, fl := range fields {
		if cur, err = stepField(f, cur, fl, false); err != nil {
			return nil, ctype.Val{}, nil, e.valErr(a, cur, err)
		}
	}
	return f, cur, fields, nil
}

// castOperand starts the fetch of a typecast's operand: another
// typecast, a register, or a C variable (with members) in scope at sc.
func (e *argEnv) castOperand(a grammar.Arg, sc *dwarfres.Scope, op string, depth int) (*fetch, ctype.Val, error) {
	switch {
	case strings.HasPrefix(op, "("):
		f, cur, _, err := e.castValue(a, sc, op, depth+1)
		return f, cur, err
	case strings.HasPrefix(op, "%"):
		if err := e.checkRaw(op); err != nil {
			return nil, ctype.Val{}, e.argErr(a, "%v", err)
		}
		return &fetch{base: regBase(op)}, ctype.Val{Name: op}, nil
	case isCVarName(op):
		vname, fields, err := splitFields(op)
		if err != nil {
			return nil, ctype.Val{}, e.argErr(a, "%v", err)
		}
		v, ok := sc.Lookup(vname)
		if !ok {
			return nil, ctype.Val{}, e.undeclaredErr(a, vname, sc)
		}
		loc, err := sc.Location(v)
		if err != nil {
			return nil, ctype.Val{}, e.locErr(a, vname, sc, v, err)
		}
		f, err := e.fromLoc(loc)
		if err != nil {
			return nil, ctype.Val{}, e.entryErr(a, v, fmt.Errorf("%s: %w", vname, err))
		}
		cur := ctype.DWARFVal(v)
		for _, fl := range fields {
			if cur, err = stepField(f, cur, fl, false); err != nil {
				return nil, ctype.Val{}, e.valErr(a, cur, err)
			}
		}
		return f, cur, nil
	}
	return nil, ctype.Val{}, e.argErr(a, "the kernel reads typecasts at a function's entry or return only, and at %s dwprobe writes one itself only over a variable, a register or another typecast, not %q", scopeLabel(sc), op)
}

// errNoStruct is a typecast's STRUCT the kernel's BTF does not have.
var errNoStruct = errors.New("no such structure or union in the kernel's BTF")

// btfStruct is the structure or union name of the vmlinux's BTF, the
// types the kernel reads a typecast with.
func (e *argEnv) btfStruct(name string) (btf.Type, error) {
	if e.castBTF == nil {
		b, err := dbtf.FromFile(dbtf.ELF{Object: e.f.Object, Image: e.f.Image})
		if err != nil {
			return nil, fmt.Errorf("a typecast away from a function's entry is read with the kernel's BTF: %w", err)
		}
		e.castBTF = b
	}
	ts, _ := e.castBTF.Spec.AnyTypesByName(name)
	for _, t := range ts {
		switch t.(type) {
		case *btf.Struct, *btf.Union:
			return t, nil
		}
	}
	return nil, fmt.Errorf("(%s): %w", name, errNoStruct)
}

// perCPUName handles this_cpu_read(NAME) and this_cpu_ptr(NAME) with a
// bare C name: the kernel reads NAME as one of the function's BTF
// arguments (a __percpu pointer passed in), at its entry only. Where
// NAME is instead a per-CPU variable in DWARF, what the user asked for
// is this CPU's copy of it, which 7.3 reads as this_cpu_read(@NAME): so
// dwprobe writes it. ok is false when expr is no such form or NAME is an
// argument the kernel reads (passed through); an error refuses a NAME
// the kernel would not find.
func (e *argEnv) perCPUName(a grammar.Arg, sc *dwarfres.Scope) (tracefs.Arg, bool, error) {
	fn, inner, ok := strings.Cut(a.Expr, "(")
	if !ok || fn != "this_cpu_read" && fn != "this_cpu_ptr" || !strings.HasSuffix(inner, ")") || sc == nil || e.user {
		return tracefs.Arg{}, false, nil
	}
	name := strings.TrimSuffix(inner, ")")
	if !isCVarName(name) || strings.ContainsAny(name, "-.[()") {
		return tracefs.Arg{}, false, nil
	}
	sym, symOK := e.f.Symbols().At(sc.Addr)
	atEntry := e.ret || symOK && sym.Start == sc.Addr
	if atEntry && isParam(sc, name) {
		return tracefs.Arg{}, false, nil
	}
	if v, ok := sc.Lookup(name); ok {
		if loc, err := sc.Location(v); err == nil {
			if pf, ok, err := e.perCPU(loc); ok && err == nil && pf.base.Base == tracefs.BasePerCPU {
				pc := tracefs.Fetch{Base: tracefs.BasePerCPU, Symbol: pf.base.Symbol}
				if fn == "this_cpu_read" {
					pc.Loads = []tracefs.Load{{}}
				}
				r := tracefs.NewArg(a.Name, pc, a.Type)
				e.note(answer.NoteOther, fmt.Sprintf("%s: %s is a per-CPU variable, which the kernel reads as %s (a bare name is one of the function's BTF arguments)", a.Expr, name, r.Fetch))
				return r, true, nil
			}
		}
	}
	return tracefs.Arg{}, true, e.argErr(a, "%s names no per-CPU variable in the debuginfo at %s, and the kernel reads %s(NAME) only of one of the function's BTF arguments, at its entry; a per-CPU variable is %s(@VAR)", name, scopeLabel(sc), fn, fn)
}
