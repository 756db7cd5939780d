package main

import (
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/listing"
	"github.com/dwprobe/dwprobe/tracefs"
)

// Probes from BTF, when the kernel has no DWARF: --btf FILE, or the
// fallback when no debuginfo is found for the running kernel (its
// /sys/kernel/btf/vmlinux) or -k names a vmlinux without DWARF (its .BTF).

// kallsymsPath, filterFuncsPath and runningBTFPath are the running
// kernel's symbols, ftrace's traceable functions and the running kernel's
// BTF ("": probegen.Open's own; variables: tests point them elsewhere).
var (
	kallsymsPath    = ""
	filterFuncsPath = "available_filter_functions" // under tracefs's root
	runningBTFPath  = ""
)

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

// btfWhat says where the types and symbols come from, for the note.
func btfWhat(o *options, from probegen.BTFOrigin) string {
	what := from.TypesPath
	if from.TypesVmlinux {
		what += "'s .BTF"
	}
	switch {
	case from.SymsELF && o.module == "":
		what += " with " + from.SymsPath + "'s symbols"
	case from.SymsKallsyms:
		what += " with " + from.SymsPath
	case from.Assumed:
		what += rawBlobNote(o, from.Machine, from.Release)
	}
	switch {
	case from.ModuleRunning:
		what += "; the module's from " + from.ModuleTypes + " with " + from.Module.Path + "'s symbols"
	case from.ModuleTypes != "":
		what += "; the module's from " + from.Module.Path + "'s .BTF with its symbols"
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

// dispatchBTF runs the mode o asks for from BTF (tgt.Why is the DWARF
// path's failure that led here, nil for --btf).
func dispatchBTF(ctx context.Context, o *options, tgt *probegen.Target, stdout, stderr io.Writer) error {
	k, _ := tgt.BTFOrigin()
	why := tgt.Why
	if !o.quiet {
		fmt.Fprintf(stderr, "note: %sfrom BTF (%s): function entries and returns, their parameters and return values only\n", btfReason(o, why), btfWhat(o, k))
	}
	switch {
	case len(o.adds) > 0:
		rs, err := resolveAll(ctx, o, tgt, o.adds, stderr)
		if err != nil {
			return nothingAdded(err)
		}
		return addResolved(ctx, o, rs, func() error { return btfCheckRunning(k) }, stdout, stderr)
	case len(o.defs) > 0:
		// As without --json or a spec file: the definitions print
		// once every spec has resolved.
		rs, err := resolveAll(ctx, o, tgt, o.defs, stderr)
		if o.bootconfig {
			return printBootconfig(o, rs, err, stdout, stderr)
		}
		return printDefinitions(o, rs, err, stdout)
	case len(o.vars) > 0:
		return btfVars(o, tgt.BTF(), stdout, stderr)
	}
	rules := o.filter
	if o.funcs != "\x00" && o.funcs != "" {
		rules = o.funcs
	}
	names, err := probegen.BTFFunctions(tgt.BTF(), rules)
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
func btfCheckRunning(k probegen.BTFOrigin) error {
	if k.Module != nil {
		return checkRunningModule(*k.Module)
	}
	if k.Vmlinux == nil {
		return nil
	}
	return checkRunningKernel(*k.Vmlinux)
}

// btfVars is -V from BTF: perf's listing of the parameters at the entry,
// its @<FUNC+0> line marked as from BTF.
func btfVars(o *options, k *probegen.BTFTarget, stdout, stderr io.Writer) error {
	ro := probegen.ResolveOptions{MaxProbes: o.maxProbes}
	for _, raw := range o.vars {
		spec, err := grammar.ParseSpec(raw)
		if err != nil {
			return err
		}
		if len(spec.Args) > 0 {
			return errorWith(grammar.ErrSyntax, "-V %q: --vars takes a probe point, not arguments (column %d)", raw, spec.Args[0].Col)
		}
		lists, err := probegen.BTFVars(k, spec, ro, o.filter)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Available variables at %s\n", listing.PerfPoint(&spec.Point))
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
