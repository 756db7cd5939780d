package tracefs_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/tracefstest"
)

// fprobeBatch is a batch of every kind a 6.12 kernel takes: a kprobe, an
// fprobe at entry and at exit, a tracepoint probe.
var fprobeBatch = []string{
	"r:dwk/read_ret vfs_read+0 $arg1 $arg3",
	"f:dwf/read_entry vfs_read count file->f_mode",
	"f:dwf/read_exit vfs_read%return $arg1 ret=$retval",
	"t:dwt/switch sched_switch next_pid=next->pid prev",
}

func parseAll(t *testing.T, defs []string) []tracefs.Event {
	t.Helper()
	var evs []tracefs.Event
	for _, d := range defs {
		ev, err := tracefs.ParseDynamic(d)
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// TestFProbeAddListDelete: f: and t: definitions go to dynamic_events,
// are listed from there as the kernel names their arguments, and are
// deleted there; the 6.12 README's dialect accepts them.
func TestFProbeAddListDelete(t *testing.T) {
	fsys, k := tracefstest.New(t)
	if err := os.WriteFile(filepath.Join(k.Root, "README"), []byte(tracefstest.README612), 0o644); err != nil {
		t.Fatal(err)
	}
	evs := parseAll(t, fprobeBatch)
	d := fsys.Dialect()
	for _, e := range evs {
		if err := d.Check(e); err != nil {
			t.Errorf("6.12 README dialect: %v", err)
		}
	}
	if _, err := fsys.Add(evs); err != nil {
		t.Fatal(err)
	}
	wantDyn := "f:dwf/read_entry vfs_read count=count arg2=file->f_mode\n" +
		"f:dwf/read_exit vfs_read%return arg1=$arg1 ret=$retval\n" +
		"t:dwt/switch sched_switch next_pid=next->pid prev=prev\n"
	if got := k.File("dynamic_events"); got != wantDyn {
		t.Errorf("dynamic_events:\n%s\nwant:\n%s", got, wantDyn)
	}
	if got := k.File("kprobe_events"); got != "r:dwk/read_ret vfs_read arg1=$arg1 arg2=$arg3\n" {
		t.Errorf("kprobe_events: %q", got)
	}
	for kind, want := range map[tracefs.Kind][]string{tracefs.FProbe: {"dwf:read_entry", "dwf:read_exit"}, tracefs.TProbe: {"dwt:switch"}} {
		listed, err := fsys.List(kind)
		var names []string
		for _, e := range listed {
			names = append(names, e.PerfName())
		}
		if err != nil || !reflect.DeepEqual(names, want) {
			t.Errorf("List(%v) = %q, %v; want %q", kind, names, err, want)
		}
	}
	if exit, _ := fsys.List(tracefs.FProbe); len(exit) != 2 || !exit[1].Return() || exit[0].Return() {
		t.Errorf("fprobes listed: %+v", exit)
	}
	deleted, err := fsys.Delete(tracefs.FProbe, []string{"dwf:*"})
	if err != nil || !reflect.DeepEqual(deleted, []string{"dwf:read_entry", "dwf:read_exit"}) {
		t.Errorf("Delete(fprobes) = %q, %v", deleted, err)
	}
	if _, err := fsys.Delete(tracefs.TProbe, []string{"switch"}); err != nil {
		t.Error(err)
	}
	if got := k.File("dynamic_events"); got != "" {
		t.Errorf("dynamic_events after -d: %q", got)
	}
}

// TestFProbeBatchRollback: a batch the kernel refuses the last line of is
// undone whole, fprobes in dynamic_events and kprobes in kprobe_events.
func TestFProbeBatchRollback(t *testing.T) {
	fsys, k := tracefstest.New(t)
	k.Reject = func(kind tracefs.Kind, cmd string) (string, int) {
		if kind == tracefs.TProbe {
			return "No such tracepoint", strings.Index(cmd, "sched")
		}
		return "", 0
	}
	_, err := fsys.Add(parseAll(t, fprobeBatch))
	var we *tracefs.WriteError
	if !errors.As(err, &we) || we.Index != 3 || we.Rollback != nil {
		t.Fatalf("Add = %v, want the kernel's refusal of definition 3, rolled back", err)
	}
	for _, f := range []string{"dynamic_events", "kprobe_events"} {
		if got := k.File(f); got != "" {
			t.Errorf("%s after the rollback: %q", f, got)
		}
	}
	writes := k.Writes()
	want := []string{"dynamic_events: -:dwf/read_exit", "dynamic_events: -:dwf/read_entry", "kprobe_events: -:dwk/read_ret"}
	if len(writes) < 3 || !reflect.DeepEqual(writes[len(writes)-3:], want) {
		t.Errorf("writes %q, want them to end with %q", writes, want)
	}
}

// TestTProbeOnePerTracepoint: 6.12 takes one t: event per tracepoint and
// refuses a second with EEXIST and no error_log entry, so the batch is
// refused before anything is written, whether the first is listed or in
// the batch; from 6.15 on both are written.
func TestTProbeOnePerTracepoint(t *testing.T) {
	for _, c := range []struct {
		name   string
		before []string // added first
		batch  []string
		minor  int
		want   string // the error's By; "" for none
	}{
		{"listed", []string{"t:dwt/switch sched_switch prev"}, []string{"p:dwk/r vfs_read", "t:dwt/switch2 sched_switch next"}, 12, "dwt/switch"},
		{"in the batch", nil, []string{"t:dwt/a sched_switch prev", "t:dwt/b sched_switch next"}, 12, "dwt/a"},
		{"other tracepoints", []string{"t:dwt/switch sched_switch prev"}, []string{"t:dwt/wake sched_wakeup p"}, 12, ""},
		{"6.15", []string{"t:dwt/switch sched_switch prev"}, []string{"t:dwt/switch2 sched_switch next"}, 15, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			fsys, k := tracefstest.New(t)
			if err := os.WriteFile(filepath.Join(k.Root, "README"), []byte(tracefstest.README612), 0o644); err != nil {
				t.Fatal(err)
			}
			fsys.SetKernelVersion(6, c.minor)
			if c.minor >= 15 {
				k.SharedTracepoints = true
			}
			if _, err := fsys.Add(parseAll(t, c.before)); err != nil && c.before != nil {
				t.Fatal(err)
			}
			k.Writes()
			_, err := fsys.Add(parseAll(t, c.batch))
			var taken *tracefs.TracepointTakenError
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want == "":
				return
			case !errors.As(err, &taken) || taken.By != c.want || !errors.Is(err, tracefs.ErrTracepointTaken):
				t.Fatalf("err = %v; want a TracepointTakenError by %s", err, c.want)
			}
			if w := k.Writes(); len(w) != 0 {
				t.Errorf("wrote %q before refusing", w)
			}
		})
	}
}
