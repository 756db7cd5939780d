package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/grammar"
)

// dwprobe opens every target as a Go program does, through probegen.Open:
// this file maps the flags to its options and words its errors.

// targetCache keeps opened targets across runs when set: the conformance
// test runs hundreds of specs against one vmlinux.
var (
	targetMu    sync.Mutex
	targetCache map[string]*probegen.Target
)

// openOptions are o's flags as the library's options.
func openOptions(o *options) probegen.OpenOptions {
	oo := probegen.OpenOptions{
		Binary: o.exec, Kernel: o.vmlinux, Module: o.module, BTF: o.btf, Root: o.symfs,
		Context: o.ctx, Source: o.source, PrefixMaps: o.prefixMaps,
		// SDT markers answer for -D, -a and --sdt without debuginfo;
		// -L needs source lines, and trace (o.points) where the
		// debuginfo puts arguments, which BTF does not have.
		NeedsDebug: len(o.defs) == 0 && len(o.adds) == 0 && !o.sdt,
		NeedsDWARF: o.line != "" || o.points,
		Running: probegen.RunningKernel{Release: runningRelease(), BTF: runningBTFPath,
			Kallsyms: kallsymsPath, Traceable: traceable},
	}
	oo.NoBTF = o.symbolsOnly
	oo.TargetNS, _ = strconv.Atoi(o.targetNS) // a process id (checkTargetNS)
	if o.debuginfod != "" && o.debuginfod != debuginfodSystem {
		oo.Debuginfod = strings.Fields(o.debuginfod)
	}
	if stderrIsTerminal() {
		oo.Progress = os.Stderr
	}
	return oo
}

// openTarget opens o's target (probegen.Open), its errors and Why worded.
func openTarget(o *options) (*probegen.Target, error) {
	tgt, err := probegen.Open(openOptions(o))
	if err != nil {
		return nil, openErr(o, err)
	}
	if !tgt.HasFile() || tgt.Source == probegen.SourceSDT {
		// Why is the failure to open the target, not the MissingDebug
		// of a file opened for its symbols.
		tgt.Why = openErr(o, tgt.Why)
	}
	return tgt, nil
}

// openFor opens o's target and says what answers for it
// (probegen.Open): its DWARF, its symbols, the kernel's BTF (--btf, or no
// debuginfo found), or -x's SDT markers when its debuginfo is missing and
// the run may need none: SDT markers are read from .note.stapsdt, so -D
// and -a of sdt_PROVIDER:NAME specs, and --sdt, work on a stripped
// binary. done closes what was opened.
func openFor(o *options) (tgt *probegen.Target, done func(), err error) {
	targetMu.Lock()
	defer targetMu.Unlock()
	oo := openOptions(o)
	key := fmt.Sprintf("%q", []any{o.exec, o.vmlinux, o.module, o.btf, o.symfs, o.targetNS, o.source, o.prefixMaps, o.debuginfod, oo.NeedsDebug, oo.NeedsDWARF, oo.NoBTF})
	if tgt, ok := targetCache[key]; ok {
		return tgt, func() {}, nil
	}
	tgt, err = openTarget(o)
	if err != nil {
		if o.exec == "" && sdtSpecGiven(o) {
			err = errorWith(grammar.ErrNotSupported, "SDT markers are read from a user binary: give it with -x")
		}
		return nil, nil, err
	}
	if targetCache != nil {
		targetCache[key] = tgt
		return tgt, func() {}, nil
	}
	return tgt, func() { tgt.Close() }, nil
}

// sdtSpecGiven reports whether a spec of -D or -a (not of a spec file)
// names an SDT marker.
func sdtSpecGiven(o *options) bool {
	for _, raw := range append(slices.Clip(o.defs), o.adds...) {
		if s, err := grammar.ParseSpec(raw); err == nil && s.Point.SDT {
			return true
		}
	}
	return false
}

// openErr words an error of probegen.Open for o's flags: where debuginfo
// was looked for, what to give instead.
func openErr(o *options, err error) error {
	if err == nil {
		return nil
	}
	var be *probegen.BTFError
	if errors.As(err, &be) {
		why := be.Why
		if !be.Symbols {
			why = openErr(o, why)
		}
		switch {
		case be.Err == probegen.ErrNeedsDWARF && o.points:
			return fmt.Errorf("dwprobe trace reads arguments where the debuginfo puts them, and there is none (%v): dwprobe -a adds the same probes to kprobe_events", why)
		case be.Err == probegen.ErrNeedsDWARF:
			return btfRefusal(why, "-L lists source lines, which BTF does not have")
		}
		if why != nil {
			return fmt.Errorf("%w; no BTF either (%v)", why, openErr(o, be.Err))
		}
		return openErr(o, be.Err)
	}
	var nfe *probegen.NotFetchedError
	if errors.As(err, &nfe) && len(nfe.URLs) == 0 {
		return fmt.Errorf("%w (set DEBUGINFOD_URLS or give --debuginfod URLS)", err)
	}
	var ns *probegen.NamespaceError
	if errors.As(err, &ns) {
		return fmt.Errorf("--target-ns %s: no such process's mount namespace: %w", o.targetNS, ns.Err)
	}
	if errors.Is(err, probegen.ErrReleaseUnknown) {
		return errorWith(dwarfres.ErrModuleNotFound, "-m %s: the running kernel's release is unknown (no /proc/sys/kernel/osrelease): give the module's path", o.module)
	}
	var mnf *dwarfres.ModuleNotFoundError
	if errors.As(err, &mnf) && !mnf.Builtin {
		return fmt.Errorf("%w (give the module's path, or -k the vmlinux of another release)", err)
	}
	var nf *dwarfres.NotFoundError
	switch {
	case !errors.As(err, &nf):
		return err
	case o.module != "":
		return moduleDebugErr(err)
	case nf.Path == "":
		return errorWith(dwarfres.ErrNoDebugInfo, "no debuginfo for the running kernel %s%s (install the -dbg package or give -k VMLINUX)", nf.Release, debuginfoTried(nf))
	}
	return fmt.Errorf("%s: %w%s", nf.Path, dwarfres.ErrNoDebugInfo, debuginfoTried(nf))
}
