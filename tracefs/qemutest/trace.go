package qemutest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Record is one line of the ftrace trace file for a probe event:
//
//	cat-90      [000] .....     2.588898: smoke_open: (do_sys_openat2+0x0/0x170) dfd=-100 path="/etc/dwprobe-marker"
//	dd-91       [000] .....     2.593656: smoke_read: (do_syscall_64+0x5d/0x90 <- ksys_read) ret=7
type Record struct {
	Task string
	PID  int
	// Event is group/event when the event was in kprobe_events before or
	// after the workload (the trace itself prints only the event name),
	// else the bare event name.
	Event string
	// Loc is the text between the parentheses: sym+off/size for a kprobe,
	// "retsite <- func" for a kretprobe.
	Loc string
	// Args maps each argument name to its value as printed: numbers in the
	// type's format (-100, 0x4801d), strings with their quotes ("/etc/x").
	Args map[string]string
	Raw  string
}

// eventDef is what the trace needs from a kprobe_events line.
type eventDef struct {
	name string   // group/event
	args []string // argument names, in the order the trace prints them
}

// Events holds the kprobe_events lines a trace is parsed with, by event
// name; a name registered in two groups maps to nil.
type Events map[string]*eventDef

// Add records one kprobe_events line ("p:probe/vfs_read vfs_read+0
// f=%di:x64", "r10:probe/x ksys_read ret=$retval"; the kernel always prints
// the argument names, and fetch args hold no spaces) under its event name.
func (events Events) Add(line string) {
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return
	}
	_, ge, ok1 := strings.Cut(fields[0], ":")
	_, ev, ok2 := strings.Cut(ge, "/")
	if !ok1 || !ok2 {
		return
	}
	d := &eventDef{name: ge}
	for _, f := range fields[2:] {
		name, _, _ := strings.Cut(f, "=")
		d.args = append(d.args, name)
	}
	if old, seen := events[ev]; seen && (old == nil || old.name != ge) {
		d = nil
	}
	events[ev] = d
}

// ParseTrace parses the lines of a trace file: the records of its probe
// events, and how many events the ring buffer overwrote (entries-written
// minus entries-in-buffer in the header).
func ParseTrace(lines []string, events Events) ([]Record, int, error) {
	var recs []Record
	overwritten := 0
	for _, l := range lines {
		var inBuf, written int
		if _, err := fmt.Sscanf(l, "# entries-in-buffer/entries-written: %d/%d", &inBuf, &written); err == nil {
			overwritten = written - inBuf
		}
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		r, err := ParseTraceLine(l, events)
		if err != nil {
			return nil, 0, err
		}
		recs = append(recs, r)
	}
	return recs, overwritten, nil
}

// traceLineRE matches the default trace format: the task name is padded to
// 16 columns and may hold '-' and spaces, so the PID is the first -NUM
// followed by [CPU]; the flags column is optional (it depends on the
// irq-info option).
var traceLineRE = regexp.MustCompile(`^\s*(.*?)-(\d+)\s+\[\d+\]\s+(?:\S+\s+)?\d+\.\d+:\s+([^\s:]+):\s?(.*)$`)

// ParseTraceLine parses one probe event line of the trace file. The kernel
// prints string values between quotes without escaping them, so a string
// can look like several arguments; when events knows the event, its
// argument names, in order, decide where each value ends.
func ParseTraceLine(line string, events Events) (Record, error) {
	m := traceLineRE.FindStringSubmatch(line)
	if m == nil {
		return Record{}, fmt.Errorf("unparsed trace line %q", line)
	}
	pid, _ := strconv.Atoi(m[2])
	r := Record{Task: m[1], PID: pid, Event: m[3], Raw: line, Args: map[string]string{}}
	var names []string
	if d := events[r.Event]; d != nil {
		r.Event, names = d.name, d.args
	}
	rest := m[4]
	if strings.HasPrefix(rest, "(") {
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return Record{}, fmt.Errorf("unclosed location in trace line %q", line)
		}
		r.Loc, rest = rest[1:end], rest[end+1:]
	}
	for i := 0; rest != ""; i++ {
		rest = strings.TrimPrefix(rest, " ")
		name, val, ok := strings.Cut(rest, "=")
		if !ok || name == "" || strings.Contains(name, " ") || names != nil && (i >= len(names) || name != names[i]) {
			return Record{}, fmt.Errorf("unexpected argument at %q in trace line %q", rest, line)
		}
		next := ""
		if names != nil && i+1 < len(names) {
			next = names[i+1]
		}
		n := argValueLen(val, next, names != nil && next == "")
		r.Args[name], rest = val[:n], val[n:]
	}
	if len(r.Args) < len(names) {
		return Record{}, fmt.Errorf("trace line %q lacks arguments of %v", line, names)
	}
	return r, nil
}

// argNameRE matches an argument name.
var argNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// argValueLen returns the length of the value at the start of s, which is
// followed by " next=" (next is "" when unknown) or, if last, by nothing. A
// quoted string or an array ({1,2}, {"a","b"}) ends at its closing quote
// or brace followed by the next argument or the end of the line; anything
// else ends at a space.
func argValueLen(s, next string, last bool) int {
	if last {
		return len(s)
	}
	if s != "" && (s[0] == '"' || s[0] == '{') {
		closer := map[byte]byte{'"': '"', '{': '}'}[s[0]]
		for i := 1; i < len(s); i++ {
			if s[i] != closer {
				continue
			}
			after := s[i+1:]
			if after == "" {
				return i + 1
			}
			if name, _, ok := strings.Cut(after[1:], "="); after[0] == ' ' && ok &&
				(next == "" && argNameRE.MatchString(name) || name == next) {
				return i + 1
			}
		}
	}
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return i
	}
	return len(s)
}

// TraceText returns the raw lines of records, for failure messages.
func TraceText(recs []Record) string {
	var b strings.Builder
	for _, r := range recs {
		b.WriteString(r.Raw)
		b.WriteByte('\n')
	}
	return b.String()
}

// FilterEvent returns the records of event (group/event) in recs.
func FilterEvent(recs []Record, event string) []Record {
	var out []Record
	for _, r := range recs {
		if r.Event == event {
			out = append(out, r)
		}
	}
	return out
}
