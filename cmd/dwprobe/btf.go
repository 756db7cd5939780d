package main

import (
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/btf"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/tracefs"
)

// Probes from BTF, when the kernel has no DWARF: --btf FILE, or the
// fallback when no debuginfo is found for the running kernel (its
// /sys/kernel/btf/vmlinux) or -k names a vmlinux without DWARF (its .BTF).

// kallsymsPath and filterFuncsPath are the running kernel's symbols and
// ftrace's traceable functions (variables: tests point them elsewhere).
var (
	kallsymsPath    = btf.KallsymsPath
	filterFuncsPath = "available_filter_functions" // under tracefs's root
	runningBTFPath  = btf.RunningPath
)

// btfKernel is a kernel opened for BTF resolution: its target, the
// files it holds, and where the types and symbols come from.
type btfKernel struct {
	*btf.Kernel
	target *probegen.BTFTarget
}

// openBTF finds the BTF for o (btf.Open): --btf FILE, -k's own .BTF, or
// the running kernel's; with -m, the module's split on it.
func openBTF(o *options) (*btfKernel, error) {
	bo := btf.Options{BTF: o.btf, Vmlinux: o.vmlinux, Running: runningBTFPath, Kallsyms: kallsymsPath, Traceable: traceable,
		Machine: tracefs.HostDialect().Machine}
	bo.Release, _ = runningKernel()
	if o.module != "" {
		bo.OpenModule = func() (*dwarfres.File, error) {
			_, path, rel, err := moduleFileOf(o)
			if err != nil {
				return nil, err
			}
			return dwarfres.OpenModuleFile(path, o.vmlinux, rel)
		}
	}
	k, err := btf.Open(bo)
	if err != nil {
		return nil, err
	}
	return &btfKernel{Kernel: k, target: probegen.BTFTargetOf(k)}, nil
}

// traceable is ftrace's list of traceable functions, nil when tracefs is
// not mounted or the list cannot be read.
func traceable() io.Reader {
	fsys, err := liveFS()
	if err != nil {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(fsys.Root(), filterFuncsPath))
	if err != nil {
		return nil
	}
	return bytes.NewReader(b)
}

// btfWhat says where k's types and symbols come from, for the note.
func btfWhat(o *options, k *btfKernel) string {
	from := k.From
	what := from.TypesPath
	if from.Types == btf.TypesVmlinux {
		what += "'s .BTF"
	}
	switch {
	case from.Syms == btf.SymsELF && o.module == "":
		what += " with " + from.SymsPath + "'s symbols"
	case from.Syms == btf.SymsKallsyms:
		what += " with " + from.SymsPath
	case from.Assumed:
		what += rawBlobNote(o, from.Machine, from.Release)
	}
	switch {
	case from.ModuleRunning:
		what += "; the module's from " + from.ModuleTypes + " with " + k.ModFile.Path + "'s symbols"
	case from.ModuleTypes != "":
		what += "; the module's from " + k.ModFile.Path + "'s .BTF with its symbols"
	}
	return what
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
	defer k.Close()
	if !o.quiet {
		fmt.Fprintf(stderr, "note: %sfrom BTF (%s): function entries and returns, their parameters and return values only\n", btfReason(o, why), btfWhat(o, k))
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
	if k.ModFile != nil {
		return checkRunningModule(k.ModFile)
	}
	if k.Vmlinux == nil {
		return nil
	}
	return checkRunningKernel(k.Vmlinux)
}

// resolveAllBTF is resolveAll from BTF.
func resolveAllBTF(ctx context.Context, o *options, t *probegen.BTFTarget, args []string, stderr io.Writer) ([]resolved, error) {
	ro := probegen.ResolveOptions{NoInlines: o.noInlines, MaxProbes: o.maxProbes}
	res := &probegen.Resolver{BTF: t, Options: ro, Brief: !o.json}
	var out []resolved
	err := resolveEach(ctx, o, args, stderr, 1, func(in specInput) resolved {
		return resolveSpec(res, in)
	}, func(r resolved) error {
		out = append(out, r)
		return nil
	})
	if err != nil && !o.json && !hasSpecFile(args) {
		return nil, err
	}
	return out, err
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
