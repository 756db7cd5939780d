package probegen

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/internal/ctype"
	"github.com/dwprobe/dwprobe/tracefs"
)

// fetch is a fetcharg under construction, perf's probe_trace_arg: a base
// (register, symbol or immediate) and a chain of loads, each at the
// previous value plus an offset. build makes the tracefs.Fetch the
// definition writes.
type fetch struct {
	// base is the fetcharg's base without loads: a register, a symbol
	// (sym), an uprobe file offset (sym, fileOff), an immediate, $retval,
	// this_cpu_ptr(@VAR).
	base    tracefs.Fetch
	sym     bool // base is a symbol address: the first load folds into @sym+off
	imm     bool
	refs    []fref
	add     int64 // value = result + add, not loaded (an address computed in a register)
	addrVal bool  // sym with no load: the value is the symbol's address
	fileOff int64 // base "@+": the uprobe file offset of the global
}

// regBase is the fetch base of register r, named as a fetcharg ("%di").
func regBase(r string) tracefs.Fetch {
	return tracefs.Fetch{Base: tracefs.BaseRegister, Register: strings.TrimPrefix(r, "%")}
}

// symBase is the fetch base @name, its offset written even when 0, as
// perf writes a global ("@jiffies+0").
func symBase(name string) tracefs.Fetch {
	return tracefs.Fetch{Base: tracefs.BaseSymbol, Symbol: name, SymOffset: true}
}

// retvalBase is $retval.
var retvalBase = tracefs.Fetch{Base: tracefs.BaseRetval}

// computedError refuses a value computed from a register or symbol
// (DW_OP_breg RDX -1 with DW_OP_stack_value: %dx-1), which no fetcharg
// can write: it reads registers and memory as they are. Only a pointer's
// such value is an address (address says so), whose members a fetcharg
// can still read.
type computedError struct {
	base    string
	add     int64
	address bool
}

func (e *computedError) Error() string {
	if e.address {
		return fmt.Sprintf("the value is an address computed from %s%+d; read a member through it or use :string", e.base, e.add)
	}
	return fmt.Sprintf("the value is computed, %s%+d, not held in a register or memory: a fetcharg reads those as they are and cannot add to them", e.base, e.add)
}

// fetchOf is f.build for a value of cur's type: a computed pointer is
// called an address, any other computed value not.
func fetchOf(f *fetch, cur ctype.Val) (tracefs.Fetch, error) {
	s, err := f.build()
	var ce *computedError
	if errors.As(err, &ce) {
		if tp, ok := ctype.Real(cur.Type); ok && (tp.Kind() == ctype.Ptr || tp.Kind() == ctype.Array) {
			ce.address = true
		}
	}
	return s, err
}

type fref struct {
	off  int64
	user bool
}

// build is the fetcharg f has made, or why none can read its value.
func (f *fetch) build() (tracefs.Fetch, error) {
	if f.sym && f.addrVal {
		return tracefs.Fetch{}, errors.New("the value is the address of a global; name a member, an element or use :string")
	}
	if f.add != 0 {
		return tracefs.Fetch{}, &computedError{base: f.base.String(), add: f.add}
	}
	refs := f.refs
	out := f.base
	out.Loads = nil
	if f.sym {
		if len(refs) == 0 {
			return tracefs.Fetch{}, errors.New("the value is the address of a global; name a member, an element or use :string")
		}
		if out.Base == tracefs.BaseFileOffset { // uprobe file offset: one number
			out.Addr = f.fileOff + refs[0].off
		} else {
			out.Addr = refs[0].off
		}
		out.Loads = append(out.Loads, tracefs.Load{})
		refs = refs[1:]
	}
	// this_cpu_ptr(@VAR) read whole, +0(this_cpu_ptr(@VAR)), is written
	// this_cpu_read(@VAR): tracefs.BasePerCPU.
	for _, r := range refs {
		out.Loads = append(out.Loads, tracefs.Load{Offset: r.off, User: r.user})
	}
	return out, nil
}

// load dereferences the current value plus off (a pointer followed).
func (f *fetch) load(off int64, user bool) error {
	if f.imm {
		return errors.New("a constant cannot be dereferenced")
	}
	if f.sym && len(f.refs) == 0 && f.addrVal {
		// The value is the symbol's address (plus add): the first load
		// folds into @sym+off.
		f.addrVal = false
		f.refs = append(f.refs, fref{off: f.add + off, user: user})
		f.add = 0
		return nil
	}
	f.refs = append(f.refs, fref{off: f.add + off, user: user})
	f.add = 0
	return nil
}

// member moves within the object the value lives in.
func (f *fetch) member(off int64, user bool) error {
	if len(f.refs) == 0 || f.addrVal {
		if f.imm {
			return errors.New("a constant has no members")
		}
		return errors.New("the structure is in a register, not in memory (perf: \"Structure on a register is not supported yet\")")
	}
	f.refs[len(f.refs)-1].off += off
	if user {
		f.refs[len(f.refs)-1].user = true
	}
	return nil
}

// fromLoc starts a fetch from a variable's resolved location.
func (e *argEnv) fromLoc(loc dwarfres.Loc) (*fetch, error) {
	switch loc.Kind {
	case dwarfres.LocReg:
		r, err := dwarfRegister(e.m, loc.Reg)
		if err != nil {
			return nil, err
		}
		return &fetch{base: regBase(r)}, nil
	case dwarfres.LocRegOffset:
		r, err := dwarfRegister(e.m, loc.Reg)
		if err != nil {
			return nil, err
		}
		return &fetch{base: regBase(r), add: loc.Offset}, nil
	case dwarfres.LocConst:
		return &fetch{base: tracefs.Fetch{Base: tracefs.BaseImmediate, Imm: loc.Const}, imm: true}, nil
	case dwarfres.LocMem:
		f := &fetch{}
		if pf, ok, err := e.perCPU(loc); ok || err != nil {
			return pf, err
		}
		if loc.HasAddr || loc.Sym != "" {
			base, off, err := e.global(loc)
			if err != nil {
				return nil, err
			}
			f.base, f.sym = base, true
			if base.Base == tracefs.BaseFileOffset {
				f.fileOff, off = off, 0
			}
			for i, d := range loc.Derefs {
				if i == 0 {
					d += off
				}
				f.refs = append(f.refs, fref{off: d})
			}
			return f, nil
		}
		r, err := dwarfRegister(e.m, loc.Reg)
		if err != nil {
			return nil, err
		}
		f.base = regBase(r)
		for _, d := range loc.Derefs {
			f.refs = append(f.refs, fref{off: d})
		}
		return f, nil
	case dwarfres.LocAddrValue:
		base, off, err := e.global(loc)
		if err != nil {
			return nil, err
		}
		if base.Base == tracefs.BaseFileOffset {
			return &fetch{base: base, sym: true, addrVal: true, fileOff: off}, nil
		}
		return &fetch{base: base, sym: true, addrVal: true, add: off}, nil
	}
	return nil, fmt.Errorf("location kind %d: %w", loc.Kind, grammar.ErrNotSupported)
}

// perCPU reads a per-CPU variable (in .data..percpu) on a kernel that
// reads this CPU's copy itself (tracefs.PerCPUReads, Linux 7.3): the
// variable whole as this_cpu_read(@VAR), members and what it points to
// through this_cpu_ptr(@VAR). ok is false for any other variable, and on
// a kernel without them (global refuses it then).
func (e *argEnv) perCPU(loc dwarfres.Loc) (*fetch, bool, error) {
	if e.user || !e.f.IsKernel() || e.f.IsModule() || !e.dialect().Has(tracefs.PerCPUReads) || !loc.HasAddr && loc.Sym == "" || len(loc.Derefs) == 0 {
		return nil, false, nil
	}
	addr, has := loc.Addr, loc.HasAddr
	if !has {
		if addr, has = e.f.SymbolAddr(loc.Sym); !has {
			return nil, false, nil
		}
	}
	if !strings.HasSuffix(e.f.SectionName(addr), "data..percpu") {
		return nil, false, nil
	}
	name, start, ok := e.f.DataSymbol(addr, loc.Sym)
	if !ok {
		return nil, true, fmt.Errorf("no symbol names the per-CPU variable %s at %#x, which this_cpu_ptr() needs: %w", loc.Sym, addr, grammar.ErrNotSupported)
	}
	if n := e.f.Symbols().Count(name); n > 1 {
		return nil, true, fmt.Errorf("the per-CPU variable %s is not unique in the kernel's symbol table (%d symbols), and this_cpu_ptr() names it: %w", name, n, grammar.ErrNotSupported)
	}
	f := &fetch{base: tracefs.Fetch{Base: tracefs.BasePerCPU, Symbol: name}}
	for i, d := range loc.Derefs {
		if i == 0 {
			d += int64(addr - start)
		}
		f.refs = append(f.refs, fref{off: d})
	}
	return f, true, nil
}

// global names a global variable's address: @SYMBOL (kernel) with the
// offset of loc.Addr from it, or @+FILEOFFSET for uprobes.
func (e *argEnv) global(loc dwarfres.Loc) (tracefs.Fetch, int64, error) {
	if e.f.IsModule() && !e.f.KallsymsHasData() {
		// A module has no symbol kallsyms always lists to count from,
		// as _stext is for the vmlinux.
		return tracefs.Fetch{}, 0, fmt.Errorf("the kernel's kallsyms lists no data symbols (CONFIG_KALLSYMS_ALL is off), so it cannot resolve @%s for a fetcharg: %w", loc.Sym, grammar.ErrNotSupported)
	}
	addr, has := loc.Addr, loc.HasAddr
	if !has {
		if loc.Sym == "" {
			return tracefs.Fetch{}, 0, fmt.Errorf("a global with neither an address nor a name")
		}
		a, ok := e.f.SymbolAddr(loc.Sym)
		if !ok {
			if e.user || e.f.IsKernel() && !e.f.KallsymsHasData() {
				return tracefs.Fetch{}, 0, fmt.Errorf("global %s is defined in another object: %w", loc.Sym, grammar.ErrNotSupported)
			}
			// Declared here, defined elsewhere in the kernel: kallsyms
			// knows the name even when this file's symtab does not.
			return symBase(loc.Sym), 0, nil
		}
		addr = a
	}
	if !e.user && strings.HasSuffix(e.f.SectionName(addr), "data..percpu") {
		// perf writes @var and reads CPU 0's copy... or whatever lies at
		// the per-CPU offset: fetchargs cannot add a CPU's base.
		return tracefs.Fetch{}, 0, fmt.Errorf("%s is a per-CPU variable: a kprobe fetcharg cannot add the CPU's per-CPU base to it: %w", loc.Sym, grammar.ErrNotSupported)
	}
	if e.user {
		if e.f.ExportedData(loc.Sym) {
			e.note(answer.NoteGlobal, fmt.Sprintf("%s is exported by a shared library: an executable that uses it may hold its own copy (a copy relocation), and this library's stays unchanged; probe the executable to read that one", loc.Sym))
		}
		off, err := e.f.UprobeDataOffset(e.addr, addr)
		if err != nil {
			return tracefs.Fetch{}, 0, fmt.Errorf("global %s at %#x: %w", loc.Sym, addr, err)
		}
		return tracefs.Fetch{Base: tracefs.BaseFileOffset}, int64(off), nil
	}
	if e.f.IsKernel() && !e.f.KallsymsHasData() {
		// kallsyms has no data symbols (CONFIG_KALLSYMS_ALL=n): name the
		// address from _stext, which it always lists (not _text: on arm64
		// that is below the text range kallsyms keeps).
		if stext, ok := e.f.SymbolAddr("_stext"); ok && addr >= stext {
			e.note(answer.NoteGlobal, "this kernel's kallsyms lists no data symbols (CONFIG_KALLSYMS_ALL is off): globals are read through @_stext+OFFSET")
			return symBase("_stext"), int64(addr - stext), nil
		}
	}
	name, start, ok := e.f.DataSymbol(addr, loc.Sym)
	if !ok {
		if !has && loc.Sym != "" {
			return symBase(loc.Sym), 0, nil
		}
		// No symbol covers it (a string literal): _stext moves with the
		// image under KASLR, so the offset from it still holds.
		if stext, ok := e.f.SymbolAddr("_stext"); ok && e.f.IsKernel() && addr >= stext {
			return symBase("_stext"), int64(addr - stext), nil
		}
		return tracefs.Fetch{}, 0, fmt.Errorf("no symbol covers the global %s at %#x", loc.Sym, addr)
	}
	if st := e.f.Symbols(); e.f.IsKernel() && !e.f.IsModule() && st.HasText && addr >= st.Text {
		if n := st.Count(name); n > 1 {
			// As kernelTarget does for a function: kallsyms_lookup_name
			// takes one of the symbols of that name, maybe another unit's.
			e.note(answer.NoteNotUnique, fmt.Sprintf("%s is not unique in the kernel's symbol table (%d symbols); wrote @_text+%d so the kernel reads this unit's %s+%d at %#x", name, n, addr-st.Text, name, addr-start, addr))
			return symBase("_text"), int64(addr - st.Text), nil
		}
	}
	if e.f.IsModule() && (strings.Contains(name, ".") || e.f.Symbols().Count(name) > 1) {
		return e.moduleAnchor(loc, name, start, addr)
	}
	return symBase(name), int64(addr - start), nil
}

// moduleAnchor reads a module's global whose name is not unique (in the
// module, or made by the compiler per unit: __func__.N, which the vmlinux
// has hundreds of) through another symbol of its section that is unique
// (elfsym.SectionAnchor), as a vmlinux global is read from _text: the
// kernel's kallsyms_lookup_name searches the vmlinux first, then every
// module, and @__func__.2 would read another unit's. Without such a
// symbol it refuses.
func (e *argEnv) moduleAnchor(loc dwarfres.Loc, name string, start, addr uint64) (tracefs.Fetch, int64, error) {
	n := e.f.Symbols().Count(name)
	anchor, astart, section, ok := e.f.SectionAnchor(start, name)
	if !ok {
		return tracefs.Fetch{}, 0, fmt.Errorf("%s is not unique (%d in the module; the kernel looks @%s up in the vmlinux first, then in every module) and no other symbol of its section is unique in the module to read it through: %w", name, n, name, grammar.ErrNotSupported)
	}
	off := int64(addr) - int64(astart)
	e.note(answer.NoteNotUnique, fmt.Sprintf("%s is not unique (%d in the module; the kernel looks @%s up in the vmlinux first, then in every module); wrote @%s%+d so the kernel reads this unit's %s+%d through %s, unique in the module and in the same section (%s)", name, n, name, anchor, off, name, addr-start, anchor, section))
	return symBase(anchor), off, nil
}

// rawArg is a spec's argument a whose expression is a fetcharg the user
// wrote ("+8(%di)", "$arg2", "file->f_mode"), outside text: written as
// given, with the read plan grammar.ParseArg read once (Arg.Fetch).
func rawArg(a grammar.Arg) tracefs.Arg {
	return tracefs.Arg{Name: a.Name, Fetch: a.Expr, Type: a.Type, Read: a.Fetch}
}
