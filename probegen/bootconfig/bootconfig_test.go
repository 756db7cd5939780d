package bootconfig

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/tracefs"
)

// def parses a definition line of kind.
func def(t *testing.T, kind tracefs.Kind, line string) tracefs.Event {
	t.Helper()
	d, err := tracefs.ParseDefinition(kind, line)
	if err != nil {
		t.Fatal(err)
	}
	d.Raw = ""
	return d
}

func TestBootconfig(t *testing.T) {
	k := func(line string) tracefs.Event { return def(t, tracefs.KProbe, line) }
	vfsRead := k("p:probe/vfs_read vfs_read+0")
	vfsReadL12 := k("p:probe/vfs_read_L12 vfs_read+114 f_mode=+68(%bp):x32 buf=%r12:x64")
	ret := k("r:probe/vfs_read__return vfs_read+0 $retval")
	gn := func(target string) tracefs.Event { return k("p:probe/getname_flags " + target) }
	for _, c := range []struct {
		name  string
		defs  []tracefs.Event
		want  string
		notes []string
	}{
		// perf 6.1 -k vmlinux --bootconfig -D vfs_read -D 'vfs_read:12 file->f_mode buf'
		// prints the same with ".probe = ".
		{"entry and line", []tracefs.Event{vfsRead, vfsReadL12},
			"ftrace.event.kprobes.vfs_read.probes = 'vfs_read+0'\n" +
				"ftrace.event.kprobes.vfs_read_L12.probes = 'vfs_read+114 f_mode=+68(%bp):x32 buf=%r12:x64'\n", nil},
		// perf writes 'vfs_read+0 $retval', an entry probe.
		{"return", []tracefs.Event{ret}, "ftrace.event.kprobes.vfs_read__return.probes = 'vfs_read+0%return $retval'\n", nil},
		// perf -D getname_flags: one event, several probes.
		{"multi-probe", []tracefs.Event{gn("__ia32_sys_unlink+9"), gn("getname_flags.part.0+0"), gn("getname+5")},
			"ftrace.event.kprobes.getname_flags.probes = '__ia32_sys_unlink+9', 'getname_flags.part.0+0', 'getname+5'\n", nil},
		// perf prints the key twice, which a bootconfig refuses.
		{"same event apart", []tracefs.Event{gn("getname+5"), vfsRead, gn("getname_uflags+12")},
			"ftrace.event.kprobes.getname_flags.probes = 'getname+5', 'getname_uflags+12'\n" +
				"ftrace.event.kprobes.vfs_read.probes = 'vfs_read+0'\n", nil},
		{"group", []tracefs.Event{k("p:mine/e _text+3421344"), k("p:mine/f 0xffffffff81000010")},
			"ftrace.event.kprobes.e.probes = '_text+3421344'\nftrace.event.kprobes.f.probes = '0xffffffff81000010'\n",
			[]string{"group mine is ignored: boot-time kprobe events are all in group kprobes"}},
		{"quote", []tracefs.Event{k("p:probe/e f+0 s=@x'y")},
			"ftrace.event.kprobes.e.probes = \"f+0 s=@x'y\"\n", nil},
		{"none", nil, "", nil},
	} {
		got, notes, err := Render(c.defs)
		if err != nil || got != c.want || !reflect.DeepEqual(notes, c.notes) {
			t.Errorf("%s: Render =\n%s%q, %v\nwant\n%s%q", c.name, got, notes, err, c.want, c.notes)
		}
	}

	long := strings.Repeat("e", bootEventNameMax)
	for _, c := range []struct {
		name string
		defs []tracefs.Event
		msg  string
	}{
		{"uprobe", []tracefs.Event{def(t, tracefs.UProbe, "p:probe_app/work /tmp/app:0x1139")}, "not uprobes"},
		{"maxactive", []tracefs.Event{k("r16:probe/e f+0")}, "MAXACTIVE"},
		{"name cut", []tracefs.Event{k("p:probe/" + long + "x f+0")}, "cuts it to 53"},
		{"too long", []tracefs.Event{k("p:probe/" + long + " f+0" +
			" a=" + strings.Repeat("+8(", 10) + "%di" + strings.Repeat(")", 10) +
			" b=" + strings.Repeat("+8(", 10) + "%si" + strings.Repeat(")", 10) +
			" c=" + strings.Repeat("+8(", 10) + "%dx" + strings.Repeat(")", 10) +
			" d=" + strings.Repeat("+8(", 10) + "%cx" + strings.Repeat(")", 10) +
			" e=%r8")}, "at most 254"},
		{"both quotes", []tracefs.Event{k(`p:probe/e f+0 s=\"'"`)}, "both"},
		{"invalid", []tracefs.Event{{Kind: tracefs.KProbe, Type: 'p', Group: "probe", Name: "e", Target: "f+0",
			Args: []tracefs.Arg{{Name: "a", Fetch: "%ax\nb"}}}}, "control character"},
	} {
		_, _, err := Render(c.defs)
		if !errors.Is(err, tracefs.ErrBadDefinition) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: Render error %v, want ErrBadDefinition mentioning %q", c.name, err, c.msg)
		}
	}
	// The limits themselves: a name of 53 bytes fits, as does a command
	// of 254 bytes.
	fit := k("p:probe/" + long + " " + strings.Repeat("f", bootCmdMax-len("p:kprobes/")-len(long)-1))
	if _, _, err := Render([]tracefs.Event{fit}); err != nil {
		t.Errorf("254-byte command: %v", err)
	}
	fit.Target += "f"
	if _, _, err := Render([]tracefs.Event{fit}); err == nil {
		t.Error("255-byte command accepted")
	}
}
