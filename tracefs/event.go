package tracefs

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is the type of dynamic event: which tracefs file holds it.
type Kind int

// The kinds of probe this package manages.
const (
	KProbe Kind = iota + 1 // kprobe_events: kernel probes
	UProbe                 // uprobe_events: user-space probes
	FProbe                 // dynamic_events "f:": function entry and exit probes (fprobes)
	TProbe                 // dynamic_events "t:": tracepoint probes
)

// Kinds are the kinds of probe, in the order listings show them.
var Kinds = []Kind{KProbe, UProbe, FProbe, TProbe}

// String returns "kprobe", "uprobe", "fprobe" or "tprobe".
func (k Kind) String() string {
	switch k {
	case KProbe:
		return "kprobe"
	case UProbe:
		return "uprobe"
	case FProbe:
		return "fprobe"
	case TProbe:
		return "tprobe"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// file is the tracefs file that lists and takes definitions of kind k.
func (k Kind) file() (string, error) {
	switch k {
	case KProbe:
		return "kprobe_events", nil
	case UProbe:
		return "uprobe_events", nil
	case FProbe, TProbe:
		// They have no file of their own; dynamic_events lists every
		// dynamic event, each kind under its letter.
		return "dynamic_events", nil
	}
	return "", fmt.Errorf("%w: %v", ErrNotSupported, k)
}

// Kernel limits on a definition (Linux 6.1, kernel/trace/).
const (
	// MaxArgs is MAX_TRACE_ARGS (and perf's MAX_PROBE_ARGS).
	MaxArgs = 128
	// maxMaxActive is KRETPROBE_MAXACTIVE_MAX.
	maxMaxActive = 4096
	// maxFetchArgLen is MAX_ARGSTR_LEN: a fetcharg body (after NAME=, with
	// its :TYPE) longer than this is refused with ARG_TOO_LONG.
	maxFetchArgLen = 63
	// maxDefLen is the longest line one write can carry:
	// trace_parse_run_command reads WRITE_BUFSIZE (4096) bytes at a time and
	// needs room for the '\n' and the '\0'; perf's MAX_CMDLEN.
	maxDefLen = 4094
)

// letter is the first letter of k's lines in dynamic_events, 0 for the
// kinds that have a file of their own.
func (k Kind) letter() byte {
	switch k {
	case FProbe:
		return 'f'
	case TProbe:
		return 't'
	}
	return 0
}

// Event is one probe: a line of kprobe_events or uprobe_events, built by
// a caller, parsed from a definition (ParseDefinition) or read from the
// kernel's listing (FS.List).
type Event struct {
	Kind      Kind
	Type      byte // 'p' (probe), 'r' (return probe), 'f' (fprobe) or 't' (tracepoint probe)
	MaxActive int  // the N of "rN:" and "fN:" (return probes only), 0 if not given
	Group     string
	Name      string
	// Target is where the probe sits, as written or as the kernel prints
	// it: "vfs_read+114", "vfs_read", "_text+3421344", "0x…" or
	// "module:sym" for kprobes; "PATH:0x0000000000001139" (optionally
	// followed by "(0xREFCTR)") for uprobes; "SYM" or "SYM%return" for
	// fprobes; the tracepoint ("sched_switch") for tracepoint probes.
	Target string
	Args   []Arg
	// Raw is the text the event was parsed from, "" for one built by a
	// caller: what errors quote and carets point into.
	Raw string
}

// Arg is one fetch argument, [NAME=]FETCH[:TYPE].
type Arg struct {
	Name  string // "x"; "" for an unnamed argument, which the kernel names arg<N>
	Fetch string // "%di", "+0(%si)", "$retval"
	Type  string // "s32", "string", "u8[4]", or "" if none was given
	// Read is Fetch as a structure, where its maker had one: NewArg
	// writes Fetch from it; a spec's raw fetcharg is Fetch as the user
	// wrote it and Read its reading (ReadFetch). Base 0 for an Arg
	// parsed from a definition or a listing, whose reader parses Fetch
	// itself when it needs to.
	Read Fetch
}

// NewArg is the argument NAME=f:TYPE, its fetcharg written from f.
func NewArg(name string, f Fetch, typ string) Arg {
	return Arg{Name: name, Fetch: f.String(), Type: typ, Read: f}
}

// String prints a as the kernel reads it: "x=+0(%si):string", "%ax".
func (a Arg) String() string {
	s := a.Fetch
	if a.Name != "" {
		s = a.Name + "=" + s
	}
	if a.Type != "" {
		s += ":" + a.Type
	}
	return s
}

// Return reports a return probe: r:, or f: on SYM%return.
func (e Event) Return() bool {
	return e.Type == 'r' || e.Type == 'f' && strings.HasSuffix(e.Target, "%return")
}

// String prints e as one command for kind's events file, the way perf's
// synthesize_probe_trace_command does:
//
//	p:probe/vfs_read_L12 vfs_read+114 f_mode=+68(%di):x32
//	r16:probe/foo__return foo+0 $retval:s64
//
// It does not check e (Validate does); fields are joined by one space, as
// the kernel's argv_split joins them.
func (e Event) String() string {
	var b strings.Builder
	b.WriteByte(e.Type)
	if e.MaxActive != 0 {
		b.WriteString(strconv.Itoa(e.MaxActive))
	}
	b.WriteString(":" + e.Group + "/" + e.Name + " " + e.Target)
	for _, a := range e.Args {
		b.WriteString(" " + a.String())
	}
	return b.String()
}

// text is what errors quote for e: Raw if e was parsed.
func (e Event) text() string {
	if e.Raw != "" {
		return e.Raw
	}
	return e.String()
}

// PerfName returns "GROUP:EVENT", the way perf probe names an event.
func (e Event) PerfName() string { return e.Group + ":" + e.Name }

// Matches applies a name pattern to e the way perf probe -d and -l do
// (probe_file__get_events): it reports whether match accepts the bare
// event name or "GROUP:EVENT". So "vfs_read" matches vfs_read in any
// group and "probe:*" every event of group probe.
func (e Event) Matches(match func(string) bool) bool {
	return match(e.Name) || match(e.PerfName())
}
