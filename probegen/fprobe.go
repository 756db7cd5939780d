package probegen

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// The f: fprobe events of ResolveOptions.FProbe (Linux 6.5 and later): a kprobe at a
// function's entry or return written as the kernel's lower-overhead
// fprobe, which takes the function by name and reads no registers.

// fprobes rewrites defs, kprobes of spec, as fprobes: "SYM" or
// "SYM%return", each register argument as the $argN or $stackN it is at
// the entry, and, where the target kernel resolves BTF argument names
// itself, a parameter's expression ("file->f_mode") as it was written.
// slots are the arguments of each definition, as setArgs rendered them;
// pts[i] is where defs[i] attaches, which becomes the fprobe's place.
func (e *argEnv) fprobes(defs []tracefs.Event, pts []point, slots [][]argSlot, spec *grammar.Spec) error {
	d := e.dialect()
	if why, ok := d.Lacks(tracefs.FProbeEvents); ok {
		return &PointError{Spec: spec.Raw, Err: fmt.Errorf("this kernel has no fprobe events: %s", why)}
	}
	if !d.Has(tracefs.FProbeEvents) {
		return &PointError{Spec: spec.Raw, Err: fmt.Errorf("%s has no fprobe events (Linux 6.5 added them)", d.From)}
	}
	a, ok := arch.For(e.m)
	if !ok {
		return &PointError{Spec: spec.Raw, Err: fmt.Errorf("fprobes: no machine model for %s", arch.MachineName(e.m))}
	}
	for i := range defs {
		f, at, err := fprobeDef(defs[i], pts[i].at, a)
		if err != nil {
			return &PointError{Spec: spec.Raw, Err: err}
		}
		if d.Has(tracefs.BTFArgs) && i < len(slots) {
			btfArgs(&f, slots[i], spec.Args)
		}
		err = f.Validate()
		if err == nil {
			err = d.Check(f)
		}
		if err != nil {
			return &PointError{Spec: spec.Raw, Err: fmt.Errorf("as an fprobe, %s: %w", f, err)}
		}
		defs[i], pts[i].at = f, at
	}
	return nil
}

// fprobeDef is kprobe k, attached at at, as an fprobe on machine a, and
// where the fprobe attaches.
func fprobeDef(k tracefs.Event, at answer.Attach, a *arch.Arch) (tracefs.Event, answer.Attach, error) {
	if at.Symbol != "" && at.Offset != 0 || at.Module != "" || at.Symbol == "_text" || at.Symbol == "_stext" {
		return k, at, fmt.Errorf("%s is not a function's entry by its name: an fprobe sits at a named function's entry or return only", k.Target)
	}
	fat := answer.Attach{Symbol: at.Symbol}
	if at.Symbol == "" {
		fat.Symbol = at.Place() // 0xADDR, as the kprobe wrote it
	}
	f := k
	f.Kind, f.Type, f.Target = tracefs.FProbe, 'f', fat.Target(tracefs.FProbe, k.Return())
	f.Args = append([]tracefs.Arg(nil), k.Args...)
	for j, arg := range f.Args {
		if arg.Read.Base == tracefs.BaseText {
			fetch, err := entryText(arg.Fetch, a, k.Return())
			if err != nil {
				return k, at, fmt.Errorf("argument %q: %w", arg.String(), err)
			}
			f.Args[j].Fetch, f.Args[j].Read = fetch, tracefs.ReadFetch(fetch)
			continue
		}
		fetch, changed, err := entryFetch(arg.Read, a, k.Return())
		if err != nil {
			return k, at, fmt.Errorf("argument %q: %w", arg.String(), err)
		}
		if changed { // else as written: a raw fetcharg keeps its spelling
			f.Args[j] = tracefs.NewArg(arg.Name, fetch, arg.Type)
		}
	}
	return f, fat, nil
}

// entryFetch is f, read at a function's entry (or at its return, ret),
// without registers: an argument register is $argN and a stack slot,
// +N(%sp) with N a multiple of 8, $stackN/8 (regs_get_kernel_argument,
// regs_get_kernel_stack_nth). changed is false when f reads neither.
func entryFetch(f tracefs.Fetch, a *arch.Arch, ret bool) (tracefs.Fetch, bool, error) {
	changed := false
	if !ret && f.Base == tracefs.BaseRegister {
		if l := f.Loads; f.Register == "sp" && len(l) > 0 && !l[0].User && l[0].Offset >= 0 && l[0].Offset%8 == 0 {
			f = tracefs.Fetch{Base: tracefs.BaseStack, N: int(l[0].Offset / 8), Loads: l[1:]}
			changed = true
		} else if k := slices.Index(a.IntArgRegs, f.Register); k >= 0 {
			f = tracefs.Fetch{Base: tracefs.BaseArg, N: k + 1, Loads: f.Loads}
			changed = true
		}
	}
	if f.Base == tracefs.BaseRegister {
		return f, false, fmt.Errorf("%%%s holds no function argument there, and an fprobe reads no registers", f.Register)
	}
	return f, changed, nil
}

// stackSlotRE is +N(%sp): the stack slot N/8 at a function's entry.
var stackSlotRE = regexp.MustCompile(`\+([0-9]+)\(%sp\)`)

// regRE finds a register in a fetcharg.
var regRE = regexp.MustCompile(`%[a-z0-9_]+`)

// entryText is entryFetch for a fetcharg written as text this model does
// not break down (tracefs.BaseText: a typecast over a register), in the
// text: its registers and stack slots are rewritten where they stand.
func entryText(fetch string, a *arch.Arch, ret bool) (string, error) {
	if !ret {
		fetch = stackSlotRE.ReplaceAllStringFunc(fetch, func(s string) string {
			n, _ := strconv.Atoi(stackSlotRE.FindStringSubmatch(s)[1])
			if n%8 != 0 {
				return s
			}
			return "$stack" + strconv.Itoa(n/8)
		})
		fetch = regRE.ReplaceAllStringFunc(fetch, func(reg string) string {
			for k, r := range a.IntArgRegs {
				if reg[1:] == r {
					return "$arg" + strconv.Itoa(k+1)
				}
			}
			return reg
		})
	}
	if reg := regRE.FindString(fetch); reg != "" {
		return "", fmt.Errorf("%s holds no function argument there, and an fprobe reads no registers", reg)
	}
	return fetch, nil
}

// btfArgs writes the arguments of f that read a parameter (and its
// members) by the expression the spec gave, which the kernel resolves
// through BTF: "count", "file->f_mode".
func btfArgs(f *tracefs.Event, slots []argSlot, args []grammar.Arg) {
	if f.Return() {
		return // the parameters at the return: ReturnArgs, not needed here
	}
	for j := range f.Args {
		if j >= len(slots) || !slots[j].param || slots[j].orig < 0 {
			continue
		}
		if x := args[slots[j].orig].Expr; !strings.Contains(x, "[") && len(x) <= 63 {
			f.Args[j].Fetch, f.Args[j].Read = x, tracefs.Fetch{Base: tracefs.BaseBTF, Name: x}
		}
	}
}

// noFProbeEvents tells whether the vmlinux f is built without fprobe and
// tracepoint probe events: its symbols lack trace_fprobe.c's, though it
// has a symbol table (Debian's 6.12 arm64 kernel: arm64 has no rethook
// before 6.15, so no CONFIG_FPROBE; it refuses f: and t: with EINVAL). A
// module answers for no kernel.
func noFProbeEvents(f *dwarfres.File) bool {
	if !f.IsKernel() {
		return false
	}
	st := f.Symbols()
	return len(st.Lookup("vfs_read")) > 0 && len(st.Lookup("trace_fprobe_create")) == 0
}
