package probegen

import (
	"errors"

	"github.com/dwprobe/dwprobe/dwarfres"
	kbtf "github.com/dwprobe/dwprobe/dwarfres/btf"
	"github.com/dwprobe/dwprobe/dwarfres/debuginfod"
	"github.com/dwprobe/dwprobe/probegen/sources"
)

// The choice of what answers for a target, as dwprobe makes it: its
// DWARF; a kernel's (or module's) BTF when no debuginfo is found for it,
// or a vmlinux has only symbols and .BTF; a user binary's SDT notes when
// it has no debuginfo and the request may go on without it; else the
// symbol table, as perf does (-D and -a of functions, -F).

// Source is what answers for a target.
type Source int

const (
	// SourceDWARF: the target's DWARF debuginfo.
	SourceDWARF Source = iota
	// SourceSymbols: the target's symbol table alone; it has no DWARF
	// (Target.Why, the file's MissingDebug). Functions answer; lines and
	// variables are refused (NeedsDebuginfo).
	SourceSymbols
	// SourceSDT: a user binary without debuginfo opened for its SDT
	// notes; every other spec fails with Target.Why.
	SourceSDT
	// SourceBTF: the kernel's BTF (dwarfres/btf's Open), with Target.Why
	// the DWARF path's failure, nil when BTF was asked for.
	SourceBTF
)

var sourceNames = [...]string{SourceDWARF: "DWARF", SourceSymbols: "symbol table", SourceSDT: "SDT notes", SourceBTF: "BTF"}

func (s Source) String() string {
	if int(s) < len(sourceNames) {
		return sourceNames[s]
	}
	return "Source(?)"
}

// TargetOptions says what a target is and how to open it; where its
// debuginfo is found is the opener's business (a dwarfres.Locator).
type TargetOptions struct {
	// User is set for a user binary; unset for a kernel or kernel
	// module, for which BTF may answer without DWARF.
	User bool
	// Module is set for a kernel module: a vmlinux's .BTF does not
	// answer for it.
	Module bool
	// BTF asks for BTF (a file of it was given): no DWARF is looked for.
	BTF bool
	// NoBTF says BTF never answers: a kernel or module without DWARF
	// answers from its symbol table, or fails as a user binary does.
	NoBTF bool
	// WithoutDebug is set when the request may go on without a user
	// binary's debuginfo: probe definitions (its SDT markers answer) or
	// the listing of its markers.
	WithoutDebug bool
	// Open opens the target with its debuginfo, or for its symbols alone
	// (dwarfres.File.MissingDebug) when none is found; errors wrap
	// dwarfres.ErrNoDebugInfo when it finds neither.
	Open func() (*dwarfres.File, error)
	// OpenBinary opens a user binary whose debuginfo Open did not find,
	// for its notes (SourceSDT).
	OpenBinary func() (*dwarfres.File, error)
}

// Target is a target opened, with what answers for it and why.
type Target struct {
	Source Source
	// File is the target; the caller closes it. It is nil for SourceBTF
	// when the DWARF path opened nothing (or was not taken).
	File *dwarfres.File
	// Why is why DWARF does not answer; nil for SourceDWARF.
	Why error

	exe     string             // a user binary's path as uprobes name it (Open)
	btf     *kbtf.Kernel       // the kernel's BTF for SourceBTF (Open)
	dfd     *debuginfod.Client // debuginfod, when a server is named (Open)
	sources *sources.Sources   // where the target's sources are found (Open)
}

// OpenTarget opens the target o describes and chooses what answers for
// it. The error is Open's when nothing answers: a user binary without
// debuginfo for a request that needs it (OpenBinary's error is dropped
// for Open's, the reason), any other failure to open.
func OpenTarget(o TargetOptions) (*Target, error) {
	if o.BTF {
		return &Target{Source: SourceBTF}, nil
	}
	f, err := o.Open()
	if err != nil {
		return withoutFile(o, err)
	}
	if !o.User && !o.Module && !o.NoBTF {
		if why := stripped(f); why != nil {
			return &Target{Source: SourceBTF, File: f, Why: why}, nil
		}
	}
	if why := f.MissingDebug(); why != nil {
		return &Target{Source: SourceSymbols, File: f, Why: why}, nil
	}
	return &Target{Source: SourceDWARF, File: f}, nil
}

// withoutFile is OpenTarget when Open failed with err: BTF for a kernel
// or module without debuginfo, a user binary's notes when the request
// allows, else err.
func withoutFile(o TargetOptions, err error) (*Target, error) {
	if !o.User {
		if !o.NoBTF && btfAnswers(err) {
			return &Target{Source: SourceBTF, Why: err}, nil
		}
		return nil, err
	}
	if !errors.Is(err, dwarfres.ErrNoDebugInfo) || !o.WithoutDebug || o.OpenBinary == nil {
		return nil, err
	}
	f, berr := o.OpenBinary()
	if berr != nil {
		return nil, err
	}
	return &Target{Source: SourceSDT, File: f, Why: err}, nil
}

// btfAnswers reports whether err, the DWARF path's for a kernel or a
// kernel module, is one BTF may answer for: no debuginfo was found.
func btfAnswers(err error) bool { return errors.Is(err, dwarfres.ErrNoDebugInfo) }

// stripped is why f, a file opened for its symbols alone (no DWARF
// found), is better answered from its .BTF: nil when it has DWARF, is
// not a vmlinux or has no .BTF (its symbol table answers then).
func stripped(f *dwarfres.File) error {
	if f.MissingDebug() == nil || !f.IsKernel() || f.ELF.Section(".BTF") == nil {
		return nil
	}
	return f.MissingDebug()
}
