package tracefs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Kind is the type of dynamic event: which tracefs file holds it.
type Kind int

// The kinds of probe this package manages.
const (
	KProbe Kind = iota + 1 // kprobe_events: kernel probes
	UProbe                 // uprobe_events: user-space probes
)

// String returns "kprobe" or "uprobe".
func (k Kind) String() string {
	switch k {
	case KProbe:
		return "kprobe"
	case UProbe:
		return "uprobe"
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
	}
	return "", fmt.Errorf("%w: %v", ErrNotSupported, k)
}

// Kernel limits on a definition (Linux 6.1, kernel/trace/).
const (
	// maxNameLen is MAX_EVENT_NAME_LEN: group and event names must be
	// strictly shorter.
	maxNameLen = 64
	// maxArgNameLen is MAX_ARG_NAME_LEN: longer NAME= are ARG_NAME_TOO_LONG.
	maxArgNameLen = 32
	// maxArgs is MAX_TRACE_ARGS.
	maxArgs = 128
	// maxMaxActive is KRETPROBE_MAXACTIVE_MAX.
	maxMaxActive = 4096
	// maxDefLen is the longest line one write can carry:
	// trace_parse_run_command reads WRITE_BUFSIZE (4096) bytes at a time and
	// needs room for the '\n' and the '\0'.
	maxDefLen = 4094
)

// Event is one probe: a line of kprobe_events or uprobe_events.
type Event struct {
	Kind      Kind
	Type      byte // 'p' (probe) or 'r' (return probe)
	MaxActive int  // the N of "rN:" (kretprobes only), 0 if not given
	Group     string
	Name      string
	// Target is where the probe sits, as written or as the kernel prints
	// it: "vfs_read+114", "vfs_read", "_text+3421344", "0x…" or
	// "module:sym" for kprobes; "PATH:0x0000000000001139" (optionally
	// followed by "(0xREFCTR)") for uprobes.
	Target string
	Args   []Arg
	Raw    string // the whole line
}

// Arg is one fetch argument, NAME=FETCH[:TYPE].
type Arg struct {
	Name  string // "x"; the kernel names unnamed arguments arg1, arg2, …
	Fetch string // "%di", "+0(%si)", "$retval"
	Type  string // "s32", "string", "u8[4]", or "" if none was given
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

// typeRE matches the probe argument types of the kernel's README:
// s8/16/32/64, u…, x…, char, string, ustring, symbol, symstr, %pd/%pD,
// b<bit-width>@<bit-offset>/<container-size>, and <type>[<array-size>].
var typeRE = regexp.MustCompile(`^(?:[sux](?:8|16|32|64)|char|string|ustring|symbol|symstr|%p[dD]|b[0-9]+@[0-9]+/[0-9]+)(?:\[[0-9]+\])?$`)

// splitArg splits one argument field into NAME, FETCH and TYPE. An
// unnamed argument gets the kernel's name "arg<n>". The type is taken from
// after the last ':' only if it is a type the kernel knows, so a fetch that
// contains ':' itself (an immediate string) stays whole.
func splitArg(field string, n int) Arg {
	a := Arg{Name: "arg" + strconv.Itoa(n), Fetch: field}
	if name, body, ok := strings.Cut(field, "="); ok {
		a.Name, a.Fetch = name, body
	}
	if i := strings.LastIndexByte(a.Fetch, ':'); i > 0 && typeRE.MatchString(a.Fetch[i+1:]) {
		a.Fetch, a.Type = a.Fetch[:i], a.Fetch[i+1:]
	}
	return a
}

// fields splits a line at spaces the way the kernel's argv_split does once
// control characters and byte 0xa0 are excluded, and returns each field's
// byte offset in line as well.
func fields(line string) (fs []string, offs []int) {
	for i := 0; i < len(line); {
		if line[i] == ' ' {
			i++
			continue
		}
		j := i
		for j < len(line) && line[j] != ' ' {
			j++
		}
		fs = append(fs, line[i:j])
		offs = append(offs, i)
		i = j
	}
	return fs, offs
}

// byteProblem says why line can't be written as one command, or "" if it
// can.
func byteProblem(line string) string {
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\n':
			return fmt.Sprintf("newline at byte %d would start a second command", i)
		case c == 0:
			return fmt.Sprintf("NUL at byte %d would end the command", i)
		case c < 0x20 || c == 0x7f:
			return fmt.Sprintf("control character %q at byte %d", rune(c), i)
		case c == '#':
			return fmt.Sprintf("'#' at byte %d would start a comment and drop the rest", i)
		case c == 0xa0:
			// The kernel's ctype table counts Latin-1 NBSP as a space,
			// so argv_split would cut the field there.
			return fmt.Sprintf("byte 0xa0 at byte %d, which the kernel reads as a space", i)
		}
	}
	return ""
}

// isName is the kernel's is_good_name (event and argument names); with
// dash it is is_good_system_name (group names may contain '-' since 6.1).
func isName(s string, dash bool) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		case c == '-' && dash:
		default:
			return false
		}
	}
	return true
}

// nameProblem says why s can't be a group (group true) or event name in
// a definition, or "" if it can. Group names are held to the C identifier
// rule perf uses, stricter than the kernel's.
func nameProblem(s string) string {
	switch {
	case s == "":
		return "empty"
	case len(s) >= maxNameLen:
		return fmt.Sprintf("%d bytes, at most %d", len(s), maxNameLen-1)
	case !isName(s, false):
		return "must be a C identifier ([A-Za-z_][A-Za-z0-9_]*)"
	}
	return ""
}

// ParseDefinition checks that def is one probe command of kind that Add
// may write, and returns it as an Event (Raw is def). The rules:
//
//	p:GROUP/EVENT TARGET [ARG…]
//	r[MAXACTIVE]:GROUP/EVENT TARGET [ARG…]     (MAXACTIVE: kprobes only, 1..4096)
//
// with GROUP and EVENT C identifiers shorter than 64 bytes (an explicit
// name is required: Add must be able to undo what it wrote), a uprobe
// TARGET of the form PATH:OFFSET with a '/' in PATH, named arguments
// with names the kernel accepts, and no byte that would end, split or cut
// the command: newline, NUL, other control characters, '#' or 0xa0.
// Fields may be separated by several spaces; the kernel joins them with
// one. Errors wrap ErrBadDefinition.
func ParseDefinition(kind Kind, def string) (Event, error) {
	if _, err := kind.file(); err != nil {
		return Event{}, err
	}
	ev, err := parseDef(kind, def)
	if err != nil {
		return Event{}, fmt.Errorf("%w %q: %s", ErrBadDefinition, def, err)
	}
	return ev, nil
}

// problem is a reason for refusing a definition, wrapped by the caller.
type problem string

func (p problem) Error() string { return string(p) }

func parseDef(kind Kind, def string) (Event, error) {
	if msg := byteProblem(def); msg != "" {
		return Event{}, problem(msg)
	}
	f, _ := fields(def)
	if len(f) == 0 {
		return Event{}, problem("empty")
	}
	if n := len(strings.Join(f, " ")); n > maxDefLen {
		return Event{}, problem(fmt.Sprintf("%d bytes, at most %d", n, maxDefLen))
	}
	ev := Event{Kind: kind, Raw: def}
	head := f[0]
	switch head[0] {
	case 'p', 'r':
		ev.Type = head[0]
	case '-':
		return Event{}, problem("a delete command (-:), not a probe")
	default:
		return Event{}, problem("must start with p: or r:")
	}
	head = head[1:]
	digits := len(head) - len(strings.TrimLeft(head, "0123456789"))
	if digits > 0 {
		switch {
		case ev.Type == 'p':
			return Event{}, problem("MAXACTIVE is only for return probes (rN:)")
		case kind == UProbe:
			return Event{}, problem("uprobes take no MAXACTIVE")
		case head[0] == '0':
			// The kernel reads MAXACTIVE with base 0: "010" would be 8.
			return Event{}, problem("MAXACTIVE must be a decimal number from 1 to 4096")
		}
		n, err := strconv.Atoi(head[:digits])
		if err != nil || n > maxMaxActive {
			return Event{}, problem("MAXACTIVE must be a decimal number from 1 to 4096")
		}
		ev.MaxActive = n
		head = head[digits:]
	}
	name, ok := strings.CutPrefix(head, ":")
	if !ok || name == "" {
		return Event{}, problem("needs an explicit GROUP/EVENT after " + string(ev.Type) + ":")
	}
	group, event, ok := strings.Cut(name, "/")
	if !ok {
		return Event{}, problem("needs an explicit GROUP/EVENT, not just " + strconv.Quote(name))
	}
	if msg := nameProblem(group); msg != "" {
		return Event{}, problem(fmt.Sprintf("group %q: %s", group, msg))
	}
	if msg := nameProblem(event); msg != "" {
		return Event{}, problem(fmt.Sprintf("event %q: %s", event, msg))
	}
	ev.Group, ev.Name = group, event
	if len(f) < 2 {
		return Event{}, problem("no probe point")
	}
	ev.Target = f[1]
	if kind == UProbe {
		// trace_uprobe_create ignores (ECANCELED) a target without '/' and
		// takes the offset after the last ':'.
		i := strings.LastIndexByte(ev.Target, ':')
		if !strings.Contains(ev.Target, "/") || i < 0 || i+1 == len(ev.Target) || ev.Target[i+1] < '0' || ev.Target[i+1] > '9' {
			return Event{}, problem(fmt.Sprintf("uprobe target %q is not PATH:OFFSET with a '/' in PATH", ev.Target))
		}
	}
	if len(f)-2 > maxArgs {
		return Event{}, problem(fmt.Sprintf("%d arguments, at most %d", len(f)-2, maxArgs))
	}
	for i, field := range f[2:] {
		a := splitArg(field, i+1)
		if strings.Contains(field, "=") {
			switch {
			case len(a.Name) > maxArgNameLen:
				return Event{}, problem(fmt.Sprintf("argument name %q longer than %d bytes", a.Name, maxArgNameLen))
			case !isName(a.Name, false):
				return Event{}, problem(fmt.Sprintf("argument name %q must be a C identifier", a.Name))
			}
		}
		if a.Fetch == "" {
			return Event{}, problem(fmt.Sprintf("argument %q has no fetch expression", field))
		}
		ev.Args = append(ev.Args, a)
	}
	return ev, nil
}

// parseListing parses kprobe_events or uprobe_events as the kernel prints
// them (trace_kprobe_show, trace_uprobe_show):
//
//	p:probe_app/work /tmp/app:0x0000000000001139 x=%di:s32
//	r16:probe/foo__return foo arg1=$retval:s64
//
// Group names may hold '-' here: the kernel accepts them from others.
func parseListing(kind Kind, text string) ([]Event, error) {
	var evs []Event
	for n, line := range strings.Split(text, "\n") {
		if line == "" {
			continue
		}
		ev, ok := parseLine(kind, line)
		if !ok {
			return nil, fmt.Errorf("%v line %d %q: %w", kind, n+1, line, ErrBadListing)
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

func parseLine(kind Kind, line string) (Event, bool) {
	f, _ := fields(line)
	if len(f) < 2 || len(f[0]) < 2 || (f[0][0] != 'p' && f[0][0] != 'r') {
		return Event{}, false
	}
	ev := Event{Kind: kind, Type: f[0][0], Target: f[1], Raw: line}
	head := f[0][1:]
	if digits := len(head) - len(strings.TrimLeft(head, "0123456789")); digits > 0 {
		n, err := strconv.Atoi(head[:digits])
		if err != nil {
			return Event{}, false
		}
		ev.MaxActive, head = n, head[digits:]
	}
	name, ok := strings.CutPrefix(head, ":")
	if !ok {
		return Event{}, false
	}
	if ev.Group, ev.Name, ok = strings.Cut(name, "/"); !ok || !isName(ev.Group, true) || !isName(ev.Name, false) {
		return Event{}, false
	}
	for i, field := range f[2:] {
		ev.Args = append(ev.Args, splitArg(field, i+1))
	}
	return ev, true
}
