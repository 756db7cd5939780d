package probegen

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestBootconfig(t *testing.T) {
	vfsRead := Def{Group: "probe", Event: "vfs_read", Target: "vfs_read+0"}
	vfsReadL12 := Def{Group: "probe", Event: "vfs_read_L12", Target: "vfs_read+114", Args: []string{"f_mode=+68(%bp):x32", "buf=%r12:x64"}}
	ret := Def{Return: true, Group: "probe", Event: "vfs_read__return", Target: "vfs_read+0", Args: []string{"$retval"}}
	gn := func(target string) Def { return Def{Group: "probe", Event: "getname_flags", Target: target} }
	for _, c := range []struct {
		name  string
		defs  []Def
		want  string
		notes []string
	}{
		// perf 6.1 -k vmlinux --bootconfig -D vfs_read -D 'vfs_read:12 file->f_mode buf'
		// prints the same with ".probe = ".
		{"entry and line", []Def{vfsRead, vfsReadL12},
			"ftrace.event.kprobes.vfs_read.probes = 'vfs_read+0'\n" +
				"ftrace.event.kprobes.vfs_read_L12.probes = 'vfs_read+114 f_mode=+68(%bp):x32 buf=%r12:x64'\n", nil},
		// perf writes 'vfs_read+0 $retval', an entry probe.
		{"return", []Def{ret}, "ftrace.event.kprobes.vfs_read__return.probes = 'vfs_read+0%return $retval'\n", nil},
		// perf -D getname_flags: one event, several probes.
		{"multi-probe", []Def{gn("__ia32_sys_unlink+9"), gn("getname_flags.part.0+0"), gn("getname+5")},
			"ftrace.event.kprobes.getname_flags.probes = '__ia32_sys_unlink+9', 'getname_flags.part.0+0', 'getname+5'\n", nil},
		// perf prints the key twice, which a bootconfig refuses.
		{"same event apart", []Def{gn("getname+5"), vfsRead, gn("getname_uflags+12")},
			"ftrace.event.kprobes.getname_flags.probes = 'getname+5', 'getname_uflags+12'\n" +
				"ftrace.event.kprobes.vfs_read.probes = 'vfs_read+0'\n", nil},
		{"group", []Def{{Group: "mine", Event: "e", Target: "_text+3421344"}, {Group: "mine", Event: "f", Target: "0xffffffff81000010"}},
			"ftrace.event.kprobes.e.probes = '_text+3421344'\nftrace.event.kprobes.f.probes = '0xffffffff81000010'\n",
			[]string{"group mine is ignored: boot-time kprobe events are all in group kprobes"}},
		{"quote", []Def{{Group: "probe", Event: "e", Target: "f+0", Args: []string{`s='x'`}}},
			"ftrace.event.kprobes.e.probes = \"f+0 s='x'\"\n", nil},
		{"none", nil, "", nil},
	} {
		got, notes, err := Bootconfig(c.defs)
		if err != nil || got != c.want || !reflect.DeepEqual(notes, c.notes) {
			t.Errorf("%s: Bootconfig =\n%s%q, %v\nwant\n%s%q", c.name, got, notes, err, c.want, c.notes)
		}
	}

	long := strings.Repeat("e", bootEventNameMax)
	for _, c := range []struct {
		name string
		defs []Def
		msg  string
	}{
		{"uprobe", []Def{{Group: "probe_app", Event: "work", Target: "/tmp/app:0x1139"}}, "not uprobes"},
		{"maxactive", []Def{{Return: true, MaxActive: 16, Group: "probe", Event: "e", Target: "f+0"}}, "MAXACTIVE"},
		{"name cut", []Def{{Group: "probe", Event: long + "x", Target: "f+0"}}, "cuts it to 53"},
		{"too long", []Def{{Group: "probe", Event: long, Target: "f+0", Args: []string{
			"a=" + strings.Repeat("+8(", 10) + "%di" + strings.Repeat(")", 10),
			"b=" + strings.Repeat("+8(", 10) + "%si" + strings.Repeat(")", 10),
			"c=" + strings.Repeat("+8(", 10) + "%dx" + strings.Repeat(")", 10),
			"d=" + strings.Repeat("+8(", 10) + "%cx" + strings.Repeat(")", 10),
			"e=%r8",
		}}}, "at most 254"},
		{"both quotes", []Def{{Group: "probe", Event: "e", Target: "f+0", Args: []string{`s='"`}}}, "both"},
		{"invalid", []Def{{Group: "probe", Event: "e", Target: "f+0", Args: []string{"a\nb"}}}, "control character"},
	} {
		_, _, err := Bootconfig(c.defs)
		if !errors.Is(err, ErrBadDefinition) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: Bootconfig error %v, want ErrBadDefinition mentioning %q", c.name, err, c.msg)
		}
	}
	// The limits themselves: a name of 53 bytes fits, as does a command
	// of 254 bytes.
	fit := Def{Group: "probe", Event: long, Target: strings.Repeat("f", bootCmdMax-len("p:kprobes/")-len(long)-1)}
	if _, _, err := Bootconfig([]Def{fit}); err != nil {
		t.Errorf("254-byte command: %v", err)
	}
	fit.Target += "f"
	if _, _, err := Bootconfig([]Def{fit}); err == nil {
		t.Error("255-byte command accepted")
	}
}
