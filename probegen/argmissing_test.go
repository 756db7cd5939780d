package probegen

import (
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/tracefs"
)

// TestAlignVars: the $vars expansions of one event's points become one
// argument list, as the kernel requires of every probe of an event: the
// points of fsnotify_access on 6.12 (file, file, mask at most points;
// file, mask, file at iterate_dir; nothing at io_req_io_notify), with a
// spec argument before them, and a second event left alone.
func TestAlignVars(t *testing.T) {
	v := func(name, fetch, typ string) argSlot {
		return argSlot{res: tracefs.Arg{Name: name, Fetch: fetch, Type: typ}, orig: -1}
	}
	count := argSlot{res: tracefs.Arg{Name: "count", Fetch: "%dx", Type: "u64"}, orig: 0}
	defs := []tracefs.Event{{Group: "probe", Name: "a"}, {Group: "probe", Name: "a"}, {Group: "probe", Name: "a"}, {Group: "probe", Name: "b"}}
	points := [][]argSlot{
		{count, v("file", "%bp", "x64"), v("file", "%bp", "x64"), v("mask", `\1`, "x32")},
		{count, v("file", "%r13", "x64"), v("mask", `\1`, "x32"), v("file", "%r13", "x64")},
		{count},
		{v("other", "%si", "u32")},
	}
	want := []string{
		`count=%dx:u64 file=%bp:x64 file_1=%bp:x64 mask=\1:x32`,
		`count=%dx:u64 file=%r13:x64 file_1=%r13:x64 mask=\1:x32`,
		`count=%dx:u64 file=\0xdeade12d:x64 file_1=\0xdeade12d:x64 mask=\0xdeade12d:x32`,
		`other=%si:u32`,
	}
	e := &argEnv{spec: "fsnotify_access count $vars"}
	e.alignVars(defs, points, []string{"vfs_read+256", "iterate_dir+175", "io_req_io_notify+90", "x+0"})
	for i, slots := range points {
		var got []string
		for _, a := range renderArgs(slots) {
			got = append(got, a.Name+"="+a.Fetch+":"+a.Type)
		}
		if g := strings.Join(got, " "); g != want[i] {
			t.Errorf("point %d: %s, want %s", i, g, want[i])
		}
	}
	if len(e.notes) != 1 || e.notes[0].Kind != answer.NoteArgFilled || !strings.Contains(e.notes[0].Text, "at io_req_io_notify+90, $vars/$params finds no file, file_1, mask") {
		t.Errorf("notes %q", e.notes)
	}
}

// TestAlignVarsTypes: a name with another type at another point is
// another argument (the kernel compares types too).
func TestAlignVarsTypes(t *testing.T) {
	defs := []tracefs.Event{{Group: "probe", Name: "a"}, {Group: "probe", Name: "a"}}
	points := [][]argSlot{
		{{res: tracefs.Arg{Name: "i", Fetch: "%ax", Type: "s32"}, orig: -1}},
		{{res: tracefs.Arg{Name: "i", Fetch: "%bx", Type: "s64"}, orig: -1}},
	}
	e := &argEnv{spec: "f $vars"}
	e.alignVars(defs, points, []string{"f+1", "f+2"})
	for i, want := range []string{`i=%ax:s32 i_1=\0xdeade12d:s64`, `i=\0xdeade12d:s32 i_1=%bx:s64`} {
		var got []string
		for _, a := range renderArgs(points[i]) {
			got = append(got, a.Name+"="+a.Fetch+":"+a.Type)
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("point %d: %s, want %s", i, g, want)
		}
	}
}
