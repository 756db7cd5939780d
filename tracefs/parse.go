package tracefs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ParseDefinition reads def, one probe command of kind, as the kernel
// would split it, and checks it with Validate (Raw is def):
//
//	p:GROUP/EVENT TARGET [ARG…]
//	r[MAXACTIVE]:GROUP/EVENT TARGET [ARG…]     (MAXACTIVE: kprobes only, 1..4096)
//	f[MAXACTIVE]:GROUP/EVENT SYM[%return] [ARG…]  (kind FProbe; MAXACTIVE on %return only)
//	t:GROUP/EVENT TRACEPOINT [ARG…]               (kind TProbe)
//
// An explicit GROUP/EVENT is required (Add must be able to undo what it
// wrote), and no byte may end, split or cut the command: newline, NUL,
// other control characters, '#' or 0xa0. Fields may be separated by
// several spaces; the kernel joins them with one. Errors wrap
// ErrBadDefinition and hold a *DefError whose Pos is the byte of def it
// blames.
func ParseDefinition(kind Kind, def string) (Event, error) {
	if _, err := kind.file(); err != nil {
		return Event{}, err
	}
	ev, err := parseDef(kind, def)
	if err == nil {
		err = ev.Validate()
	}
	if err != nil {
		var de *DefError
		if errors.As(err, &de) && de.Pos < 0 {
			de.Pos = fieldPos(def, de.Field, de.Off)
		}
		return Event{}, fmt.Errorf("%w %q: %w", ErrBadDefinition, def, err)
	}
	return ev, nil
}

// fieldPos is the byte offset in def of byte off of field n (the end of
// the line past the last field).
func fieldPos(def string, n, off int) int {
	_, offs := fields(def)
	if n >= len(offs) {
		return len(def)
	}
	return offs[n] + off
}

// parseDef splits def into an Event; Validate checks the rest.
func parseDef(kind Kind, def string) (Event, error) {
	if msg, at := byteProblem(def); msg != "" {
		return Event{}, &DefError{Pos: at, Msg: msg}
	}
	f, _ := fields(def)
	if len(f) == 0 {
		return Event{}, &DefError{Pos: 0, Msg: "empty"}
	}
	head := f[0]
	ev := Event{Kind: kind, Type: head[0], Raw: def}
	bad := func(off int, msg string) error { return &DefError{Off: off, Pos: -1, Msg: msg} }
	if ev.Type == '-' {
		return Event{}, bad(0, "a delete command (-:), not a probe")
	}
	if msg := ev.headProblem(); msg != "" {
		return Event{}, bad(0, msg)
	}
	rest := head[1:]
	if digits := len(rest) - len(strings.TrimLeft(rest, "0123456789")); digits > 0 {
		// The kernel reads MAXACTIVE with base 0: "010" would be 8.
		n, err := strconv.Atoi(rest[:digits])
		if err != nil || rest[0] == '0' || n > maxMaxActive {
			return Event{}, bad(1, "MAXACTIVE must be a decimal number from 1 to 4096")
		}
		ev.MaxActive, rest = n, rest[digits:]
	}
	name, ok := strings.CutPrefix(rest, ":")
	if !ok || name == "" {
		return Event{}, bad(len(head)-len(rest), "needs an explicit GROUP/EVENT after "+string(ev.Type)+":")
	}
	if ev.Group, ev.Name, ok = strings.Cut(name, "/"); !ok {
		return Event{}, bad(len(head)-len(name), "needs an explicit GROUP/EVENT, not just "+strconv.Quote(name))
	}
	if len(f) > 1 {
		ev.Target = f[1]
	}
	if len(f)-2 > MaxArgs {
		return Event{}, &DefError{Field: 2 + MaxArgs, Pos: -1, Msg: fmt.Sprintf("%d arguments, at most %d", len(f)-2, MaxArgs)}
	}
	for _, field := range f[min(2, len(f)):] {
		ev.Args = append(ev.Args, splitArg(field))
	}
	return ev, nil
}

// splitArg splits one argument field into NAME, FETCH and TYPE. The type
// is taken from after the last ':' only if it is a type some kernel
// knows, so a fetch that contains ':' itself (an immediate string) stays
// whole.
func splitArg(field string) Arg {
	a := Arg{Fetch: field}
	if name, body, ok := strings.Cut(field, "="); ok {
		a.Name, a.Fetch = name, body
		if name == "" {
			a.Name = "=" // keep it refused: "=%di" names nothing
			a.Fetch = field[1:]
		}
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

// parseListing parses kprobe_events or uprobe_events as the kernel prints
// them (trace_kprobe_show, trace_uprobe_show):
//
//	p:probe_app/work /tmp/app:0x0000000000001139 x=%di:s32
//	r16:probe/foo__return foo arg1=$retval:s64
//
// Group names may hold '-' here: the kernel accepts them from others.
// For fprobes and tracepoint probes text is dynamic_events, which lists
// every dynamic event: only the lines of kind count (trace_fprobe_show:
// "f:fprobes/vfs_read__entry vfs_read count=count").
func parseListing(kind Kind, text string) ([]Event, error) {
	var evs []Event
	for n, line := range strings.Split(text, "\n") {
		if line == "" || ListingComment(line) || kind.letter() != 0 && line[0] != kind.letter() {
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
	if len(f) < 2 || len(f[0]) < 2 {
		return Event{}, false
	}
	ev := Event{Kind: kind, Type: f[0][0], Target: f[1], Raw: line}
	if ev.headProblem() != "" {
		return Event{}, false
	}
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
	for _, field := range f[2:] {
		ev.Args = append(ev.Args, splitArg(field))
	}
	return ev, true
}

// ParseDynamic is ParseDefinition for a line of any kind, told apart as
// the kernel's dynamic_events does: f: and t: lines are fprobes and
// tracepoint probes, and trace_kprobe_create leaves a target holding both
// '/' and ':' (PATH:OFFSET) to the uprobes.
func ParseDynamic(def string) (Event, error) {
	kind := KProbe
	f, _ := fields(def)
	switch {
	case len(f) > 0 && f[0][0] == 'f':
		kind = FProbe
	case len(f) > 0 && f[0][0] == 't':
		kind = TProbe
	case len(f) > 1 && strings.Contains(f[1], "/") && strings.Contains(f[1], ":"):
		kind = UProbe
	}
	return ParseDefinition(kind, def)
}

// ListingComment reports whether line of kprobe_events, uprobe_events or
// dynamic_events is a comment: from Linux 7.3 the kernel may follow a
// probe's line with '#' lines (a dump of its fetch program), which no
// reader may take for a probe (perf 7.3 skips them too). Blanks before
// the '#' count as none.
func ListingComment(line string) bool {
	return strings.HasPrefix(strings.TrimLeft(line, " \t"), "#")
}
