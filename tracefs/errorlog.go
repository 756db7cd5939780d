package tracefs

import (
	"strings"
)

// cmdPrefix is the kernel's CMD_PREFIX: it starts the second line of an
// error_log entry, and the caret on the third line is indented by its
// length plus the error position (tracing_err_log_show_pos).
const cmdPrefix = "  Command: "

// parseErrorLog parses the text of error_log (tracing_err_log_seq_show):
// entries of three lines,
//
//	[%5llu.%06u] LOCATION: error: REASON
//	  Command: COMMAND
//	           <Pos spaces>^
//
// oldest first. Lines that don't fit are skipped: the log is diagnostics
// shared with every tracing user, not something to fail on.
func parseErrorLog(text string) []LogEntry {
	lines := strings.Split(text, "\n")
	var out []LogEntry
	for i := 0; i+2 < len(lines); i++ {
		e, ok := parseLogEntry(lines[i], lines[i+1], lines[i+2])
		if ok {
			out = append(out, e)
			i += 2
		}
	}
	return out
}

func parseLogEntry(head, cmd, caret string) (LogEntry, bool) {
	rest, ok := strings.CutPrefix(head, "[")
	if !ok {
		return LogEntry{}, false
	}
	ts, rest, ok := strings.Cut(rest, "] ")
	if !ok {
		return LogEntry{}, false
	}
	loc, reason, ok := strings.Cut(rest, ": error: ")
	if !ok {
		return LogEntry{}, false
	}
	command, ok := strings.CutPrefix(cmd, cmdPrefix)
	if !ok {
		return LogEntry{}, false
	}
	col := strings.IndexByte(caret, '^')
	if col < len(cmdPrefix) || strings.Trim(caret[:col], " ") != "" || caret[col+1:] != "" {
		return LogEntry{}, false
	}
	return LogEntry{
		Time:     strings.TrimSpace(ts),
		Location: loc,
		Reason:   reason,
		Command:  command,
		Pos:      col - len(cmdPrefix),
	}, true
}

// findLogEntry returns the newest entry of after that is not in before and
// is about def: its command is def as the kernel splits it or, failing
// that, starts with def's first field (the kernel may rewrite arguments
// before logging). It returns nil if there is none: error_log is shared,
// and an old entry or somebody else's must not be reported as ours.
func findLogEntry(before, after []LogEntry, def string) *LogEntry {
	old := make(map[LogEntry]bool, len(before))
	for _, e := range before {
		old[e] = true
	}
	f, _ := fields(def)
	if len(f) == 0 {
		return nil
	}
	canon := strings.Join(f, " ")
	var loose *LogEntry
	for i := len(after) - 1; i >= 0; i-- {
		e := after[i]
		if old[e] {
			continue
		}
		if e.Command == canon {
			return &e
		}
		if loose == nil && (e.Command == f[0] || strings.HasPrefix(e.Command, f[0]+" ")) {
			loose = &e
		}
	}
	return loose
}

// mapPos maps a byte offset in the kernel's copy of def (fields joined by
// one space) to the same place in def; -1 stays -1.
func mapPos(def string, pos int) int {
	f, offs := fields(def)
	if pos < 0 || len(f) == 0 {
		return pos
	}
	c := 0 // start of field k in the kernel's copy
	for k := range f {
		if pos <= c+len(f[k]) || k == len(f)-1 {
			return offs[k] + pos - c
		}
		c += len(f[k]) + 1
	}
	return pos // not reached
}
