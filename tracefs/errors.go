package tracefs

import (
	"errors"
	"fmt"
	"syscall"
)

// Sentinel errors. Errors from this package wrap one of these, so callers
// can branch with errors.Is without parsing messages.
var (
	// ErrNotMounted reports that no tracefs was found (or could be mounted);
	// the message says what to run.
	ErrNotMounted = errors.New("tracefs not mounted")

	// ErrPermission reports that tracefs exists but this process may not
	// read or write it (it is root-only by default). A *WriteError whose
	// errno is EACCES or EPERM matches it too.
	ErrPermission = errors.New("permission denied on tracefs")

	// ErrNotSupported reports a kernel without the events file for a kind
	// (kprobe_events needs CONFIG_KPROBE_EVENTS, uprobe_events
	// CONFIG_UPROBE_EVENTS).
	ErrNotSupported = errors.New("probe kind not supported by this kernel")

	// ErrBadDefinition reports a definition that Add refuses before writing
	// anything: not exactly one p/r command with an explicit GROUP/EVENT, a
	// bad name, a fetcharg or type the kernel would refuse, or a byte that
	// would change how the kernel splits the line.
	ErrBadDefinition = errors.New("bad probe definition")

	// ErrBadEventName reports an event name the kernel would refuse:
	// empty, 64 bytes or longer, or not a C identifier.
	ErrBadEventName = errors.New("bad event name")

	// ErrBadGroupName reports a group name perf would refuse: the event
	// name rules (perf does not allow the '-' the kernel does).
	ErrBadGroupName = errors.New("bad group name")

	// ErrBadArgName reports an argument NAME= the kernel would refuse: not
	// a C identifier, longer than 32 bytes, reserved or used twice.
	ErrBadArgName = errors.New("bad argument name")

	// ErrEventExists reports that GROUP/EVENT is already taken (by a probe
	// or by any other trace event), or is named twice in one batch. Nothing
	// was written. Callers pick another name (perf probe -f) and retry.
	ErrEventExists = errors.New("event already exists")

	// ErrTracepointTaken reports a t: event on a tracepoint that another
	// t: event probes, on a kernel that takes one per tracepoint (before
	// 6.15). Nothing was written.
	ErrTracepointTaken = errors.New("tracepoint already probed")

	// ErrNoMatch reports that Delete matched no event.
	ErrNoMatch = errors.New("no event matched")

	// ErrNoEvent reports that Enable was given an event tracefs does not
	// have.
	ErrNoEvent = errors.New("no such event")

	// ErrRejected is wrapped by every *WriteError: the kernel refused a
	// definition that passed this package's checks.
	ErrRejected = errors.New("kernel rejected probe definition")

	// ErrEventTableFull is matched by a *WriteError whose definition the
	// kernel refused with ENODEV: trace_probe_register_event_call's
	// answer when register_trace_event finds no free event type, all
	// 65,535 (TRACE_EVENT_TYPE_MAX) being in use; no other step of
	// creating a probe event gives ENODEV (Linux 6.1, 6.12).
	ErrEventTableFull = errors.New("the kernel's table of trace event types is full")

	// ErrBadListing reports a line of kprobe_events or uprobe_events that
	// does not have the shape the kernel prints.
	ErrBadListing = errors.New("unexpected line in probe listing")
)

// DefError says why Validate or ParseDefinition refuses a definition, and
// where: Field is the index of the space-separated field (0 the p:/r:
// head, 1 the target, 2 and on the arguments), Off a byte offset in it.
type DefError struct {
	Field int
	Off   int
	// Pos is the byte offset in the text given to ParseDefinition, or -1
	// for a definition that was built, not parsed.
	Pos int
	Msg string // lowercase, no trailing period
	// Err is a more specific sentinel (ErrBadEventName, ErrBadGroupName,
	// ErrBadArgName) or nil.
	Err error
}

func (e *DefError) Error() string { return e.Msg }

// Unwrap makes errors.Is match ErrBadDefinition and e.Err.
func (e *DefError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrBadDefinition}
	}
	return []error{ErrBadDefinition, e.Err}
}

// LogEntry is one entry of tracefs's error_log, which the kernel prints as
//
//	[   12.345678] trace_kprobe: error: Invalid fetch argument
//	  Command: p:probe/x vfs_read arg=%foo
//	                                  ^
type LogEntry struct {
	Time     string // seconds since boot as printed, "12.345678"
	Location string // "trace_kprobe", "trace_uprobe"
	Reason   string // "Invalid fetch argument"
	Command  string // the command as the kernel split it: fields joined by one space
	// Pos is the 0-based byte offset of the caret in Command. It is
	// len(Command)+1 when the kernel blames the command as a whole or
	// something missing at its end (an event name already taken, too few
	// fields).
	Pos int
}

// WriteError reports a definition the kernel refused. By the time Add
// returns it, the definitions of the batch written before it have been
// deleted again (unless Rollback says otherwise).
type WriteError struct {
	Kind  Kind
	Index int    // index of the refused definition in the batch
	Def   string // the definition, as given to Add
	Err   error  // what open(2) or write(2) returned; errors.Is(e, syscall.EINVAL) etc. work

	// Errno is the errno in Err (EINVAL, EEXIST, ENOENT, EBUSY, …), or 0 if
	// the failure was no errno (a short write).
	Errno syscall.Errno

	// Log is the kernel's error_log entry for this definition, or nil if
	// the kernel logged none (not every refusal is logged).
	Log *LogEntry

	// Pos is Log.Pos mapped onto Def: the 0-based byte offset in Def the
	// kernel points at (len(Def) or more means "at the end"), or -1
	// without a Log.
	Pos int

	// Rollback is non-nil if deleting the definitions written before this
	// one failed; they are then still in the kernel.
	Rollback error
}

// Error formats as
// `uprobe definition 2 "p:g/e /bin/x:0x10 a=%nosuchreg": invalid argument: Invalid register name (at byte 24)`,
// the byte offset being Pos.
func (e *WriteError) Error() string {
	why := e.Err.Error()
	if e.Errno != 0 {
		why = e.Errno.Error() // without the path of the events file
	}
	msg := fmt.Sprintf("%v definition %d %q: %s", e.Kind, e.Index, e.Def, why)
	if e.Log != nil {
		msg += fmt.Sprintf(": %s (at byte %d)", e.Log.Reason, e.Pos)
	}
	if e.Rollback != nil {
		msg += fmt.Sprintf("; rollback failed, earlier definitions remain: %v", e.Rollback)
	}
	return msg
}

// Unwrap returns ErrRejected, the write's error and the rollback's error.
func (e *WriteError) Unwrap() []error {
	errs := []error{ErrRejected, e.Err}
	if e.Rollback != nil {
		errs = append(errs, e.Rollback)
	}
	return errs
}

// Is matches ErrPermission for EACCES and EPERM, ErrEventExists for
// EEXIST (a name taken between the listing and the write by something that
// does not take dwprobe's lock), and ErrEventTableFull for ENODEV.
func (e *WriteError) Is(target error) bool {
	switch target {
	case ErrPermission:
		return errors.Is(e.Err, syscall.EACCES) || errors.Is(e.Err, syscall.EPERM)
	case ErrEventExists:
		return errors.Is(e.Err, syscall.EEXIST)
	case ErrEventTableFull:
		return errors.Is(e.Err, syscall.ENODEV)
	}
	return false
}

// TracepointTakenError reports that tracepoint probe definition Index of a
// batch is on a tracepoint another t: event (By, GROUP/EVENT) probes, which
// a kernel before 6.15 refuses (SharedTracepoints); nothing of the batch
// was written.
type TracepointTakenError struct {
	Index          int
	Group, Name    string
	Tracepoint, By string
}

func (e *TracepointTakenError) Error() string {
	return fmt.Sprintf("tprobe definition %d: %s/%s: %v: %s by %s", e.Index, e.Group, e.Name, ErrTracepointTaken, e.Tracepoint, e.By)
}

// Unwrap makes errors.Is(err, ErrTracepointTaken) hold.
func (e *TracepointTakenError) Unwrap() error { return ErrTracepointTaken }

// ExistsError reports that definition Index of a batch names an event that
// is already there; nothing of the batch was written.
type ExistsError struct {
	Kind        Kind
	Index       int
	Group, Name string
}

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%v definition %d: %s/%s: %v", e.Kind, e.Index, e.Group, e.Name, ErrEventExists)
}

// Unwrap makes errors.Is(err, ErrEventExists) hold.
func (e *ExistsError) Unwrap() error { return ErrEventExists }

// Errors of the lock and of a batch cut short.
var (
	// ErrLockUnsafe reports a lock file or lock directory that is not a
	// regular file or directory of this user's that nobody else may
	// write: it is refused rather than followed, opened or waited on.
	ErrLockUnsafe = errors.New("unsafe lock file")

	// ErrJournalUnsafe reports a batch journal next to the lock that is
	// not a regular file of this user's with mode 0600 (a link, a
	// directory, a FIFO, another user's file): it is neither read nor
	// removed.
	ErrJournalUnsafe = errors.New("unsafe batch journal")

	// ErrInterrupted reports a wait for the lock or a batch ended by the
	// caller's context (a signal): nothing of the batch remains unless a
	// rollback error says otherwise.
	ErrInterrupted = errors.New("interrupted")

	// ErrContested reports an event of a batch that another tracer, one
	// that takes no lock (perf probe), created or extended while the
	// batch was written; the batch was rolled back.
	ErrContested = errors.New("event contested by another tracer")
)

// LockWaitError reports a wait for the lock that the context ended.
type LockWaitError struct {
	Path   string
	Holder int   // pid of the holder, 0 if unknown
	Err    error // the context's error
}

func (e *LockWaitError) Error() string {
	who := "another process"
	if e.Holder != 0 {
		who = fmt.Sprintf("pid %d", e.Holder)
	}
	return fmt.Sprintf("%v while waiting for the lock %s held by %s: %v", ErrInterrupted, e.Path, who, e.Err)
}

// Unwrap makes errors.Is match ErrInterrupted and the context's error.
func (e *LockWaitError) Unwrap() []error { return []error{ErrInterrupted, e.Err} }

// StoppedError reports a batch that Add stopped after writing part or all
// of it, and rolled back: the context ended (Err wraps ErrInterrupted and
// the context's error) or another tracer took or extended Event meanwhile
// (Err wraps ErrContested and ErrEventExists).
type StoppedError struct {
	Written int    // definitions written before it stopped
	Total   int    // definitions in the batch
	Event   string // "GROUP:EVENT" contested, "" if interrupted
	Err     error

	// Rollback is non-nil if deleting what the batch wrote failed.
	Rollback error
}

func (e *StoppedError) Error() string {
	msg := fmt.Sprintf("batch stopped after %d of %d definitions: %v", e.Written, e.Total, e.Err)
	if e.Rollback != nil {
		msg += fmt.Sprintf("; rollback failed, some remain: %v", e.Rollback)
	}
	return msg
}

// Unwrap returns Err and the rollback's error.
func (e *StoppedError) Unwrap() []error {
	if e.Rollback != nil {
		return []error{e.Err, e.Rollback}
	}
	return []error{e.Err}
}
