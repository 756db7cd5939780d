package probegen

import (
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// ErrGoReturn is the refusal of FUNC%return in a Go program. A uretprobe
// swaps the return address on the stack for a trampoline's; the Go
// runtime copies a goroutine's stack elsewhere when it grows, and its
// unwinder (stack growth, GC, tracebacks) then meets an address it does
// not know and throws, so the program dies.
var ErrGoReturn = errors.New("a return probe (uretprobe) crashes Go programs: the runtime moves goroutine stacks and cannot unwind through the return address the kernel swaps in")

// resolveRetInsns resolves FUNC%ret: a probe at each return instruction
// of each function symbol matching FUNC.
func resolveRetInsns(o *ResolveOptions, t *dwarfres.File, p *grammar.Point) ([]point, error) {
	syms := matchSymbols(t, p.Function)
	if len(syms) == 0 {
		return nil, fmt.Errorf("probe point %s %w", describe(p), dwarfres.ErrNotFound)
	}
	var out []point
	for _, s := range syms {
		addrs, err := retInsns(t, s)
		if err != nil {
			return nil, err
		}
		for _, a := range addrs {
			out = append(out, kernelTarget(t, s.Name, a-s.Start, a, s.Name, true))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no return instruction (it only calls functions that do not return, or tail-calls)", p.Function)
	}
	if len(out) > o.MaxProbes {
		return nil, &TooManyError{Function: p.Function, N: len(out), Max: o.MaxProbes}
	}
	return out, nil
}

// retInsns returns the addresses of the return instructions in s,
// decoded from its first byte to its size.
func retInsns(t *dwarfres.File, s dwarfres.Sym) ([]uint64, error) {
	code, err := funcBytes(t, s)
	if err != nil {
		return nil, err
	}
	if a, ok := arch.For(t.ELF.Machine); ok {
		return a.Rets(code, s.Start), nil
	}
	return nil, fmt.Errorf("return instructions of %s: %w for %v", s.Name, grammar.ErrNotSupported, t.ELF.Machine)
}

// funcBytes reads the bytes of function symbol s from its section.
func funcBytes(t *dwarfres.File, s dwarfres.Sym) ([]byte, error) {
	for _, sec := range t.ELF.Sections {
		if sec.Type != elf.SHT_PROGBITS || s.Start < sec.Addr || s.End > sec.Addr+sec.Size || s.End <= s.Start {
			continue
		}
		b := make([]byte, s.End-s.Start)
		if _, err := sec.ReadAt(b, int64(s.Start-sec.Addr)); err != nil {
			return nil, fmt.Errorf("reading %s: %w", s.Name, err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("%s (%#x, %d bytes) is in no section of the file", s.Name, s.Start, s.End-s.Start)
}

// resultArgs rewrites the arguments of a FUNC%ret spec: $retval is the
// function's first result and $retvalN its result N (from 0), read from
// the register Go's ABI returns it in, typed from the DWARF result; other
// arguments must be raw fetchargs (registers, memory), since the
// function's variables have no location at its return instructions.
func resultArgs(t *dwarfres.File, spec *grammar.Spec) ([]grammar.Arg, error) {
	var results []dwarfres.Entry
	loaded := false
	out := make([]grammar.Arg, 0, len(spec.Args))
	for _, a := range spec.Args {
		k, ok := retvalIndex(a.Expr)
		if !ok {
			if isCVarName(a.Expr) || a.Expr == "$vars" || a.Expr == "$params" {
				return nil, &grammar.SyntaxError{Spec: spec.Raw, Col: a.Col, Msg: fmt.Sprintf("argument %q: at a return instruction only $retval, $retvalN and raw fetchargs are available", a.Raw)}
			}
			out = append(out, a)
			continue
		}
		if !loaded {
			var err error
			if results, err = funcResults(t, spec.Point.Function); err != nil {
				return nil, &PointError{Spec: spec.Raw, Err: err}
			}
			loaded = true
		}
		reg, typ, err := resultReg(t.ELF.Machine, results, k)
		if err != nil {
			return nil, &grammar.SyntaxError{Spec: spec.Raw, Col: a.Col, Msg: fmt.Sprintf("argument %q: %v", a.Raw, err)}
		}
		b := a
		b.Expr = reg
		if b.Name == "" {
			b.Name = strings.TrimPrefix(a.Expr, "$")
		}
		if b.Type == "" {
			b.Type = typ
		}
		out = append(out, b)
	}
	return out, nil
}

// retvalIndex reads "$retval" (0) and "$retvalN" (N).
func retvalIndex(expr string) (int, bool) {
	rest, ok := strings.CutPrefix(expr, "$retval")
	if !ok {
		return 0, false
	}
	if rest == "" {
		return 0, true
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 0 && rest[0] != '+'
}

// funcResults lists the DWARF results of function fn, in order. fn is
// looked up as an exact name, glob characters and all.
func funcResults(t *dwarfres.File, fn string) ([]dwarfres.Entry, error) {
	probes, err := t.FindProbes(dwarfres.Query{Function: lazymatch.ExactName(fn), MaxProbes: 1})
	if err != nil {
		return nil, err
	}
	if len(probes) == 0 || probes[0].Scope == nil {
		return nil, fmt.Errorf("%s has no debuginfo to find its results in: %w", fn, dwarfres.ErrNotFound)
	}
	return probes[0].Scope.Results(), nil
}

// resultReg returns the register holding result k and its fetch type.
// Go assigns integer registers to results in order, as many as each
// needs words; floating-point results go to other registers (not read
// here), and a result that takes more than one register (a string, a
// slice, an interface) is refused.
func resultReg(m elf.Machine, results []dwarfres.Entry, k int) (string, string, error) {
	a, ok := arch.For(m)
	if !ok {
		return "", "", fmt.Errorf("results of Go functions on %v: %w", m, grammar.ErrNotSupported)
	}
	regs := fetchRegs(a.GoIntResultRegs)
	if k >= len(results) {
		return "", "", fmt.Errorf("the function has %d result(s)", len(results))
	}
	next := 0
	for i, r := range results {
		tp, ok := r.RealType(true)
		if !ok {
			return "", "", fmt.Errorf("result %d (%s) has no type", i, r.Name())
		}
		size, _ := tp.ByteSize()
		words := int((size + 7) / 8)
		float := tp.Tag() == dwarf.TagBaseType && strings.HasPrefix(tp.Name(), "float")
		if i == k {
			switch {
			case float:
				return "", "", fmt.Errorf("result %d (%s) is a %s, returned in a floating-point register", i, r.Name(), tp.Name())
			case words != 1:
				return "", "", fmt.Errorf("result %d (%s) is a %s of %d words: name one register (%s...) with a raw fetcharg", i, r.Name(), tp.Name(), words, regs[min(next, len(regs)-1)])
			case next >= len(regs):
				return "", "", fmt.Errorf("result %d (%s) is returned on the stack (more results than registers)", i, r.Name())
			}
			return regs[next], resultType(tp, size), nil
		}
		if !float {
			next += words
		}
	}
	return "", "", fmt.Errorf("no result %d", k)
}

// resultType is the fetch type of a one-word result: signed integers
// s8..s64, booleans u8, unsigned integers u8..u64, pointers x64.
func resultType(tp dwarfres.Entry, size int64) string {
	bits := strconv.FormatInt(size*8, 10)
	switch {
	case tp.Tag() != dwarf.TagBaseType:
		return "x" + bits
	case tp.Signed():
		return "s" + bits
	}
	return "u" + bits
}
