package main

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
)

// Exit statuses, so that a script or CI can tell a spec that did not
// resolve from an input it could not read, a usage error or the kernel's
// refusal.
const (
	exitOK         = 0
	exitFailure    = 1
	exitUsage      = 2
	exitUnresolved = 3
	exitInput      = 4
	exitKernel     = 5
	exitChanged    = 6
)

// exitCodes documents the statuses for --help, the man page and README.
var exitCodes = []struct {
	code int
	what string
}{
	{exitOK, "success"},
	{exitFailure, "any other failure"},
	{exitUsage, "usage: an unknown or ambiguous option, options that do not go together"},
	{exitUnresolved, "a probe did not resolve or was refused offline (no such function, line or variable; a syntax error; too many points; a definition the kernel would refuse); --fleet: a spec fails in a build checked"},
	{exitInput, "an input could not be read: the binary, module or vmlinux, its debuginfo, a source file, an --apply file or a spec file (@FILE); no such module; a module of another release; --diff between builds of two machines; --fleet: a build that could not be checked"},
	{exitKernel, "tracefs or the kernel refused: not mounted, not root, no kprobe_events or uprobe_events, a definition rejected, an event name taken, nothing to delete"},
	{exitChanged, "--diff: probes resolve differently in the new build (other points, arguments read differently), but each still at the statement it probed; one that moved or no longer resolves is status 3; --fleet: likewise in a build against its reference"},
}

// usageError is a command line that cannot be run as given.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// classedError is one of cmd's own messages that belongs to a class of
// exitCode through a sentinel it does not show.
type classedError struct {
	msg   string
	class error
}

func (e *classedError) Error() string { return e.msg }
func (e *classedError) Unwrap() error { return e.class }

// errorWith is fmt.Errorf's message, classed as sentinel.
func errorWith(sentinel error, format string, args ...any) error {
	return &classedError{fmt.Sprintf(format, args...), sentinel}
}

// exitCode classifies err, in this order: usage, tracefs and the kernel,
// inputs, resolution. The libraries' errors wrap their sentinels, so the
// classes are told apart by errors.Is and errors.As alone.
func exitCode(err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		return exitUsage
	case errors.Is(err, errProbesChanged):
		return exitChanged
	case isKernelErr(err):
		return exitKernel
	case isInputErr(err):
		return exitInput
	case isUnresolvedErr(err):
		return exitUnresolved
	}
	return exitFailure
}

func isKernelErr(err error) bool {
	return isAny(err, tracefs.ErrNotMounted, tracefs.ErrPermission, tracefs.ErrNotSupported,
		tracefs.ErrRejected, tracefs.ErrEventExists, tracefs.ErrTracepointTaken, tracefs.ErrNoMatch, tracefs.ErrNoEvent,
		tracefs.ErrBadListing)
}

func isInputErr(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) || isAny(err, fs.ErrNotExist, fs.ErrPermission,
		dwarfres.ErrNotELF, dwarfres.ErrNoDebugInfo, dwarfres.ErrMalformed,
		grammar.ErrLineTooLong, errNoSpecs, errOtherMachine,
		dwarfres.ErrCompressed, dwarfres.ErrExpandBound, dwarfres.ErrModuleNotFound, dwarfres.ErrRelease, probegen.ErrFetch, probegen.ErrNoBTF)
}

func isUnresolvedErr(err error) bool {
	var pe *dwarfres.ProbeError
	var pt *probegen.PointError
	return errors.As(err, &pe) || errors.As(err, &pt) || isAny(err, grammar.ErrSyntax, grammar.ErrNotSupported,
		grammar.ErrTooManyEvents, probegen.ErrNeedsDWARF, lazymatch.ErrSyntax, tracefs.ErrBadDefinition,
		tracefs.ErrBadEventName, tracefs.ErrBadGroupName, tracefs.ErrBadArgName,
		dwarfres.ErrNotFound, dwarfres.ErrNoCode, dwarfres.ErrOutOfRange,
		dwarfres.ErrInlineReturn, dwarfres.ErrAmbiguous, dwarfres.ErrTooMany,
		dwarfres.ErrSharedLine)
}

func isAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}
