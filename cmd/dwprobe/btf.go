package main

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/tracefs"
)

// Probes from BTF, when the kernel has no DWARF: --btf FILE, or the
// fallback when no debuginfo is found for the running kernel (its
// /sys/kernel/btf/vmlinux) or -k names a vmlinux without DWARF (its .BTF).

// kallsymsPath and filterFuncsPath are the running kernel's symbols and
// ftrace's traceable functions (variables: tests point them elsewhere).
var (
	kallsymsPath    = "/proc/kallsyms"
	filterFuncsPath = "available_filter_functions" // under tracefs's root
	runningBTFPath  = dwarfres.RunningBTFPath
)

// btfFallback reports whether err, openTarget's for o, is a kernel or a
// kernel module without DWARF that BTF may answer for.
func btfFallback(o *options, err error) bool {
	return o.exec == "" && errors.Is(err, dwarfres.ErrNoDebugInfo)
}

// strippedWithBTF is why a -k vmlinux opened for its symbols alone (no
// DWARF found) is answered from its .BTF instead: nil when it has DWARF
// or no .BTF (perf's symbol-table answers then), or is not -k's kernel.
func strippedWithBTF(o *options, t *dwarfres.File) error {
	if o.exec != "" || o.module != "" || t.MissingDebug() == nil || !t.IsKernel() || t.ELF.Section(".BTF") == nil {
		return nil
	}
	return t.MissingDebug()
}

// btfKernel is a kernel opened for BTF resolution, with what to close.
type btfKernel struct {
	target *probegen.BTFTarget
	elf    *dwarfres.File // the vmlinux, nil without one
	mod    *dwarfres.File // -m's module, nil without -m
	what   string         // where the types and symbols come from, for the note
}

func (k *btfKernel) close() {
	if k.elf != nil {
		k.elf.Close()
	}
	if k.mod != nil {
		k.mod.Close()
	}
}

// openBTF finds the BTF for o: --btf FILE (an ELF with .BTF, or a raw
// blob; -k's vmlinux then gives the symbols, machine and version), -k's
// own .BTF, or the running kernel's. A raw blob other than the running
// kernel's says neither machine nor version: the running kernel's are
// taken, and its symbols are not.
func openBTF(o *options) (*btfKernel, error) {
	k := &btfKernel{}
	var err error
	if o.vmlinux != "" {
		if k.elf, err = dwarfres.Open(o.vmlinux); err != nil {
			return nil, err
		}
	}
	types, err := loadTypes(o, k)
	if err != nil {
		k.close()
		return nil, err
	}
	t := &probegen.BTFTarget{Types: types, Machine: types.Machine, Major: types.Major, Minor: types.Minor}
	switch {
	case k.elf != nil:
		t.Machine = k.elf.Machine
		t.Major, t.Minor, _ = k.elf.KernelVersion()
		t.Syms = dwarfres.ELFKernelSyms{F: k.elf}
		if o.module == "" {
			k.what += " with " + k.elf.Path + "'s symbols"
		}
	case types.Machine == elf.EM_NONE:
		t.Machine = tracefs.HostDialect().Machine
		rel, _ := runningKernel()
		t.Major, t.Minor, _ = dwarfres.ParseRelease(rel)
		switch {
		case sameFile(types.Path, runningBTFPath) && o.module != "":
			// The module's own symbols answer (moduleTarget).
		case sameFile(types.Path, runningBTFPath):
			t.Syms, err = runningSyms()
			if err != nil {
				k.close()
				return nil, err
			}
			k.what += " with " + kallsymsPath
		default:
			k.what += rawBlobNote(o, t.Machine, rel)
		}
	}
	if o.module != "" {
		if err := moduleTarget(o, k, t); err != nil {
			k.close()
			return nil, err
		}
	}
	k.target = t
	return k, nil
}

// moduleTarget turns t, the kernel's, into -m's module's: its BTF split
// on the kernel's, its .ko's symbols and machine.
func moduleTarget(o *options, k *btfKernel, t *probegen.BTFTarget) error {
	_, path, rel, err := moduleFileOf(o)
	if err != nil {
		return err
	}
	if k.mod, err = dwarfres.OpenModuleFile(path, o.vmlinux, rel); err != nil {
		return err
	}
	if t.Types, err = moduleTypes(k, t.Types); err != nil {
		return err
	}
	t.Syms, t.Machine, t.Module = dwarfres.ELFKernelSyms{F: k.mod}, k.mod.Machine, k.mod.ModuleName()
	return nil
}

// moduleTypes reads k.mod's BTF, split on base: the running kernel's
// /sys/kernel/btf/MODULE when base is the running kernel's and it has
// loaded the module, else the .ko's .BTF.
func moduleTypes(k *btfKernel, base *dwarfres.BTF) (*dwarfres.BTF, error) {
	if sameFile(base.Path, runningBTFPath) {
		p := filepath.Join(filepath.Dir(runningBTFPath), k.mod.ModuleName())
		if raw, err := os.ReadFile(p); err == nil {
			k.what += "; the module's from " + p + " with " + k.mod.Path + "'s symbols"
			return dwarfres.ParseSplitBTF(raw, base, p)
		}
	}
	k.what += "; the module's from " + k.mod.Path + "'s .BTF with its symbols"
	return k.mod.SplitBTF(base)
}

// rawBlobNote says what a raw blob other than the running kernel's is
// taken for: it names neither machine nor version. With -m the machine
// is the module's ELF's.
func rawBlobNote(o *options, m elf.Machine, rel string) string {
	if o.module != "" {
		return fmt.Sprintf(" taken for the running kernel's version, %s (give -k VMLINUX for another kernel's)", rel)
	}
	return fmt.Sprintf(" taken for the running kernel's machine, %s, and version, %s: a raw blob names neither (give -k VMLINUX for another kernel's)", tracefs.MachineName(m), rel)
}

// loadTypes reads the BTF o names: --btf's file, -k's .BTF or the
// running kernel's.
func loadTypes(o *options, k *btfKernel) (*dwarfres.BTF, error) {
	switch {
	case o.btf != "":
		k.what = o.btf
		b, err := dwarfres.LoadBTF(o.btf)
		if err == nil && k.elf == nil && b.Machine != elf.EM_NONE {
			// An ELF with .BTF: its symbols too.
			k.elf, err = dwarfres.Open(o.btf)
		}
		return b, err
	case k.elf != nil:
		k.what = k.elf.Path + "'s .BTF"
		return k.elf.BTF()
	}
	k.what = runningBTFPath
	return dwarfres.LoadBTF(runningBTFPath)
}

// runningSyms reads the running kernel's kallsyms and, when tracefs is
// mounted, ftrace's traceable functions.
func runningSyms() (*dwarfres.Kallsyms, error) {
	ks, err := os.Open(kallsymsPath)
	if err != nil {
		return nil, err
	}
	defer ks.Close()
	var filter io.Reader
	if fsys, err := liveFS(); err == nil {
		if b, err := os.ReadFile(filepath.Join(fsys.Root(), filterFuncsPath)); err == nil {
			filter = bytes.NewReader(b)
		}
	}
	return dwarfres.ParseKallsyms(ks, filter)
}

// sameFile reports whether a and b are one file.
func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// dispatchBTF runs the mode o asks for from BTF; why is the DWARF path's
// failure that led here (nil for --btf).
func dispatchBTF(ctx context.Context, o *options, why error, stdout, stderr io.Writer) error {
	if o.line != "" {
		return btfRefusal(why, "-L lists source lines, which BTF does not have")
	}
	k, err := openBTF(o)
	if err != nil {
		if why != nil {
			return fmt.Errorf("%w; no BTF either (%v)", why, err)
		}
		return err
	}
	defer k.close()
	if !o.quiet {
		fmt.Fprintf(stderr, "note: %sfrom BTF (%s): function entries and returns, their parameters and return values only\n", btfReason(o, why), k.what)
	}
	switch {
	case len(o.adds) > 0:
		rs, err := resolveAllBTF(ctx, o, k.target, o.adds, stderr)
		if err != nil {
			return nothingAdded(err)
		}
		return addResolved(ctx, o, rs, func() error { return btfCheckRunning(k) }, stdout, stderr)
	case len(o.defs) > 0:
		return btfDefinitions(ctx, o, k.target, stdout, stderr)
	case len(o.vars) > 0:
		return btfVars(o, k, stdout, stderr)
	}
	rules := o.filter
	if o.funcs != "\x00" && o.funcs != "" {
		rules = o.funcs
	}
	names, err := probegen.BTFFunctions(k.target, rules)
	for _, n := range names {
		fmt.Fprintln(stdout, n)
	}
	return err
}

// btfReason is the note's start: why BTF is used.
func btfReason(o *options, why error) string {
	switch {
	case why == nil:
		return ""
	case o.module != "":
		return fmt.Sprintf("no debuginfo for the module %s: ", o.module)
	case o.vmlinux == "":
		rel, _ := runningKernel()
		return fmt.Sprintf("no debuginfo for the running kernel %s: ", rel)
	}
	return fmt.Sprintf("no DWARF in %s: ", o.vmlinux)
}

// btfRefusal refuses what only DWARF answers, with the DWARF path's
// error when there was one.
func btfRefusal(why error, what string) error {
	if why != nil {
		return fmt.Errorf("%w (%s)", why, what)
	}
	return fmt.Errorf("%s: %w", what, probegen.ErrNeedsDWARF)
}

// btfCheckRunning refuses to add kprobes from a vmlinux that is not the
// running kernel; the running kernel's BTF is the running kernel's.
func btfCheckRunning(k *btfKernel) error {
	if k.mod != nil {
		return checkRunningModule(k.mod)
	}
	if k.elf == nil {
		return nil
	}
	return checkRunningKernel(k.elf)
}

// resolveAllBTF is resolveAll from BTF.
func resolveAllBTF(ctx context.Context, o *options, t *probegen.BTFTarget, args []string, stderr io.Writer) ([]resolved, error) {
	ins, err := expandSpecs(args)
	if err != nil {
		return nil, err
	}
	ro := probegen.ResolveOptions{NoInlines: o.noInlines, MaxProbes: o.maxProbes}
	return resolveEach(ctx, o, args, ins, stderr, func(in specInput) resolved {
		r := resolved{in: in}
		if r.spec, r.err = probegen.ParseSpec(in.raw); r.err == nil {
			r.defs, r.notes, r.err = probegen.BTFDefinitions(t, r.spec, ro)
		}
		return r
	})
}

// btfDefinitions is -D (and --bootconfig, --json) from BTF, as
// runDefinitions.
func btfDefinitions(ctx context.Context, o *options, t *probegen.BTFTarget, stdout, stderr io.Writer) error {
	rs, err := resolveAllBTF(ctx, o, t, o.defs, stderr)
	if o.bootconfig {
		return printBootconfig(o, rs, err, stdout, stderr)
	}
	return printDefinitions(o, rs, err, stdout)
}

// btfVars is -V from BTF: perf's listing of the parameters at the entry,
// its @<FUNC+0> line marked as from BTF.
func btfVars(o *options, k *btfKernel, stdout, stderr io.Writer) error {
	ro := probegen.ResolveOptions{MaxProbes: o.maxProbes}
	for _, raw := range o.vars {
		spec, err := probegen.ParseSpec(raw)
		if err != nil {
			return err
		}
		if len(spec.Args) > 0 {
			return errorWith(probegen.ErrSyntax, "-V %q: --vars takes a probe point, not arguments (column %d)", raw, spec.Args[0].Col)
		}
		lists, err := probegen.BTFVars(k.target, spec, ro, o.filter)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Available variables at %s\n", probegen.PerfPoint(&spec.Point))
		for _, vl := range lists {
			fmt.Fprintf(stdout, "\t@<%s> from BTF: the parameters at the entry\n", vl.Point)
			for _, l := range vl.Lines {
				fmt.Fprintf(stdout, "\t\t%s\n", l)
			}
			if !o.quiet {
				leftOut(stderr, vl)
			}
		}
	}
	return nil
}
