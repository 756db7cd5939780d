// Package tracefs owns the kernel's dynamic-event language and is the only
// package of dwprobe that touches the running kernel.
//
// The language: an Event is one line of kprobe_events or uprobe_events
// (Documentation/trace/kprobetrace.rst, uprobetracer.rst),
//
//	p:GROUP/EVENT TARGET [NAME=FETCHARG[:TYPE] ...]
//	r[MAXACTIVE]:GROUP/EVENT TARGET [NAME=FETCHARG[:TYPE] ...]
//	-:GROUP/EVENT
//
// printed by Event.String, read by ParseDefinition and checked by
// Event.Validate against Linux 6.1's kernel/trace/ parser: its limits, its
// name rules (ValidateName, SanitizeName), the bytes a line may hold
// (LineByte, linebytes.go, which probegen asks too), the fetcharg grammar of
// trace_probe.c. What differs between kernels (fetch types, register
// names) is a Dialect: of a kernel version offline, of the running
// kernel's README live.
//
// The kernel: FS adds, lists, enables and deletes events. Every
// definition is checked before anything is written, a batch is added
// under an exclusive lock with one write(2) per definition, and a batch
// the kernel refuses part of is rolled back (kprobes and uprobes of one
// batch alike), so a failed Add leaves nothing behind. So is a batch whose
// context ends (a signal), or that another tracer taking no lock (perf)
// races; a journal next to the lock (journal.go) lets the next process roll
// back the batch of one that was killed, only what that process recorded
// writing (by the kernel's event id), and a record there (added.go:
// RecordAdded, ChangeCheck) keeps the size and build-id of the binary
// under each uprobe added, so a listing can tell it has changed since.
// The lock lives where only its user can create it and is never followed
// through a link or waited on when it is not that user's. The root is a
// parameter (Open), so the package is tested on a plain directory
// standing in for tracefs.
package tracefs
