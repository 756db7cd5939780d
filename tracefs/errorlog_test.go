package tracefs

import (
	"reflect"
	"strings"
	"testing"
)

// realErrorLog is error_log as Linux 6.18 printed it on the test host after
// two refused uprobe definitions (the first written with extra spaces,
// which the kernel's copy has lost).
const realErrorLog = `[ 7112.878089] trace_uprobe: error: Invalid register name
  Command: p:probe_app/work2 /tmp/tfx/app:0x1139 x=%di:s32 y=%nosuchreg
                                                             ^
[ 7112.878140] trace_uprobe: error: Argument type or name is different from existing probe
  Command: p:probe_app/work /tmp/tfx/app:0x1139
                                                ^
`

func TestParseErrorLog(t *testing.T) {
	got := parseErrorLog(realErrorLog)
	want := []LogEntry{
		{Time: "7112.878089", Location: "trace_uprobe", Reason: "Invalid register name",
			Command: "p:probe_app/work2 /tmp/tfx/app:0x1139 x=%di:s32 y=%nosuchreg", Pos: 50},
		{Time: "7112.878140", Location: "trace_uprobe", Reason: "Argument type or name is different from existing probe",
			Command: "p:probe_app/work /tmp/tfx/app:0x1139", Pos: 37},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if c := got[0].Command; c[got[0].Pos:] != "%nosuchreg" {
		t.Errorf("caret at %q, want at %%nosuchreg", c[got[0].Pos:])
	}

	// Junk before, between and after entries is skipped; an entry whose
	// caret line is broken is not taken.
	mixed := "garbage\n" + realErrorLog[:strings.Index(realErrorLog, "[ 7112.878140]")] +
		"[ 1.0] hist: error: Bad\n  Command: x\n   X^\n" +
		"[    5.000001] trace_kprobe: error: Invalid fetch argument\n  Command: p:probe/x vfs_read arg=%foo\n" +
		strings.Repeat(" ", len(cmdPrefix)+len("p:probe/x vfs_read arg=")) + "^\n\n"
	got = parseErrorLog(mixed)
	if len(got) != 2 || got[0] != want[0] || got[1].Reason != "Invalid fetch argument" || got[1].Pos != len("p:probe/x vfs_read arg=") {
		t.Errorf("mixed log: %+v", got)
	}
	if got := parseErrorLog(""); got != nil {
		t.Errorf("empty log: %+v", got)
	}
}

func TestFindLogEntry(t *testing.T) {
	def := "p:probe_app/work2   /tmp/tfx/app:0x1139 x=%di:s32  y=%nosuchreg"
	all := parseErrorLog(realErrorLog)
	if e := findLogEntry(nil, all, def); e == nil || e.Reason != "Invalid register name" {
		t.Errorf("exact command: %+v", e)
	}
	// An entry that was there before the batch is somebody else's (or an
	// earlier run's), even if the command is the same.
	if e := findLogEntry(all[:1], all, def); e != nil {
		t.Errorf("stale entry reported: %+v", e)
	}
	// The kernel may log a rewritten command; the probe name still ties
	// the entry to the definition.
	rewritten := []LogEntry{{Reason: "r1", Command: "p:probe_app/work2 /tmp/tfx/app:0x1139 x=%di:s32 y=%nosuchreg:u64"}, {Reason: "r2", Command: "p:other/e f"}}
	if e := findLogEntry(nil, rewritten, def); e == nil || e.Reason != "r1" {
		t.Errorf("loose match: %+v", e)
	}
	if e := findLogEntry(nil, rewritten[1:], def); e != nil {
		t.Errorf("other command matched: %+v", e)
	}
	// The newest matching entry wins.
	twice := []LogEntry{{Time: "1", Reason: "old", Command: "p:g/e f"}, {Time: "2", Reason: "new", Command: "p:g/e f"}}
	if e := findLogEntry(nil, twice, "p:g/e f"); e == nil || e.Reason != "new" {
		t.Errorf("newest: %+v", e)
	}
}

func TestMapPos(t *testing.T) {
	def := "  p:g/e   /bin/x:0x10 a=%nosuchreg  "
	kernel := "p:g/e /bin/x:0x10 a=%nosuchreg"
	for _, c := range []struct{ pos, want int }{
		{-1, -1},
		{0, 2},                                        // "p:g/e"
		{strings.Index(kernel, "/bin"), 10},           // second field
		{strings.Index(kernel, "%"), 24},              // inside the third
		{strings.Index(kernel, " a="), 21},            // the space before it
		{len(kernel) + 1, len(def) - 2 + 1},           // past the end stays past the end
		{strings.Index(kernel, "x:0x10") + 2, 10 + 7}, // ':' of the offset
	} {
		if got := mapPos(def, c.pos); got != c.want {
			t.Errorf("mapPos(%d) = %d, want %d", c.pos, got, c.want)
		}
		if c.pos >= 0 && c.pos < len(kernel) && def[c.want] != kernel[c.pos] {
			t.Errorf("mapPos(%d): def[%d] = %q, kernel[%d] = %q", c.pos, c.want, def[c.want], c.pos, kernel[c.pos])
		}
	}
	if got := mapPos("", 3); got != 3 {
		t.Errorf("mapPos on empty def = %d", got)
	}
}
