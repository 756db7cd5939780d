// Package tracefs owns the kernel's dynamic-event language and is the only
// package of dwprobe that writes to the running kernel (others read it:
// dwarfres its release, build-id and modules, dwarfres/btf its BTF and
// kallsyms, for probegen.Open).
//
// The language: an Event is one line of kprobe_events, uprobe_events or
// dynamic_events (Documentation/trace/kprobetrace.rst, uprobetracer.rst,
// fprobetrace.rst),
//
//	p:GROUP/EVENT TARGET [NAME=FETCHARG[:TYPE] ...]
//	r[MAXACTIVE]:GROUP/EVENT TARGET [NAME=FETCHARG[:TYPE] ...]
//	f[MAXACTIVE]:GROUP/EVENT SYM[%return] [ARG ...]   (FProbe, dynamic_events)
//	t:GROUP/EVENT TRACEPOINT [ARG ...]                 (TProbe, dynamic_events)
//	-:GROUP/EVENT
//
// (event.go) printed by Event.String, read by ParseDefinition (parse.go)
// and checked by Event.Validate (validate.go, fetch.go) against the
// kernel/trace/ parser: its limits, its name rules (ValidateName,
// SanitizeName), the bytes a line may hold (LineByte, linebytes.go, which
// probegen asks too), the fetcharg grammar of trace_probe.c (6.12's, which
// holds 6.1's); a fetcharg is a Fetch (fetchplan.go), which its builder
// makes and String writes (NewArg; Arg.Read carries it), and ParseFetch
// and ReadFetch read only from outside text (a user's raw fetcharg, a
// listing); ParseType reads a fetch type. What differs between kernels
// is a Dialect (dialect.go): fetch types, register names and the
// features of Table (f: and t: events, BTF argument names, $argN on
// return probes), each with the version that added it; KernelDialect
// picks a version's row offline (from linux_banner), ReadmeDialect and
// FS.Dialect the running kernel's from its README.
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
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 5,
// importing lazymatch and tracefs/arch only, never dwarfres or probegen.
package tracefs
