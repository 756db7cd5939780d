package probegen

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestDefString(t *testing.T) {
	tests := []struct {
		def  Def
		want string
	}{
		// perf -D 'vfs_read:12'
		{Def{Group: "probe", Event: "vfs_read_L12", Target: "vfs_read+114"}, "p:probe/vfs_read_L12 vfs_read+114"},
		// perf -D 'vfs_read%return'
		{Def{Return: true, Group: "probe", Event: "vfs_read__return", Target: "vfs_read+0"}, "r:probe/vfs_read__return vfs_read+0"},
		// perf -D 'vfs_read:12 count'
		{Def{Group: "probe", Event: "vfs_read_L12", Target: "vfs_read+114", Args: []string{"count=%r14:x64"}},
			"p:probe/vfs_read_L12 vfs_read+114 count=%r14:x64"},
		// perf -D '0xffffffff8134cc50 ax=%ax'
		{Def{Group: "probe", Event: "abs_ffffffff8134cc50", Target: "0xffffffff8134cc50", Args: []string{"ax=%ax"}},
			"p:probe/abs_ffffffff8134cc50 0xffffffff8134cc50 ax=%ax"},
		// perf -x /tmp/my-app.v2 -D 0x1234
		{Def{Group: "probe_my", Event: "abs_1234", Target: "/tmp/my-app.v2:0x1234"}, "p:probe_my/abs_1234 /tmp/my-app.v2:0x1234"},
		{Def{Return: true, MaxActive: 10, Group: "probe", Event: "f__return", Target: "f+0", Args: []string{"$retval", "%ax"}},
			"r10:probe/f__return f+0 $retval %ax"},
		{Def{Event: "myprobe", Target: "do_sys_open", Args: []string{"dfd=%ax"}}, "p:myprobe do_sys_open dfd=%ax"},
		{Def{Target: "do_sys_open"}, "p do_sys_open"},
	}
	for _, tt := range tests {
		if got := tt.def.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.def, got, tt.want)
		}
	}
}

func TestDefValidate(t *testing.T) {
	ok := Def{Group: "probe", Event: "vfs_read_L12", Target: "vfs_read+114", Args: []string{"a=%di:u64", "%si"}}
	tests := []struct {
		name string
		mod  func(*Def)
		err  error // nil means valid
		msg  string
	}{
		{"valid", func(d *Def) {}, nil, ""},
		{"no group", func(d *Def) { d.Group = "" }, nil, ""},
		{"uprobe", func(d *Def) { d.Target = "/usr/lib/libc.so.6:0x1234" }, nil, ""},
		{"maxactive", func(d *Def) { d.Return, d.MaxActive = true, 4096 }, nil, ""},
		{"128 args", func(d *Def) { d.Args = make([]string, MaxProbeArgs); fill(d.Args, "%ax") }, nil, ""},
		{"fetcharg 63", func(d *Def) { d.Args = []string{"n=" + strings.Repeat("x", 63)} }, nil, ""},
		{"unnamed then other name", func(d *Def) { d.Args = []string{"%ax", "arg1x=%bx"} }, nil, ""},

		{"no event", func(d *Def) { d.Event = "" }, ErrBadEventName, "empty"},
		{"bad event", func(d *Def) { d.Event = "a-b" }, ErrBadEventName, `"a-b"`},
		{"event newline", func(d *Def) { d.Event = "a\nb" }, ErrBadEventName, ""},
		{"bad group", func(d *Def) { d.Group = "probe/x" }, ErrBadGroupName, ""},
		{"maxactive on p", func(d *Def) { d.MaxActive = 2 }, ErrBadDefinition, "only for return probes"},
		{"maxactive big", func(d *Def) { d.Return, d.MaxActive = true, 4097 }, ErrBadDefinition, "out of range"},
		{"maxactive negative", func(d *Def) { d.Return, d.MaxActive = true, -1 }, ErrBadDefinition, "out of range"},
		{"empty target", func(d *Def) { d.Target = "" }, ErrBadDefinition, "empty target"},
		{"space in target", func(d *Def) { d.Target = "/tmp/my app:0x10" }, ErrBadDefinition, "contains a space"},
		{"tab in target", func(d *Def) { d.Target = "a\tb" }, ErrBadDefinition, `'\t'`},
		{"newline in target", func(d *Def) { d.Target = "vfs_read\n-:probe/x" }, ErrBadDefinition, `'\n'`},
		{"hash in target", func(d *Def) { d.Target = "/tmp/a#b:0x10" }, ErrBadDefinition, "comment"},
		{"nbsp byte in target", func(d *Def) { d.Target = "/tmp/\u00e0:0x10" }, ErrBadDefinition, "0xa0"},
		{"newline in arg", func(d *Def) { d.Args = []string{"a=%ax\nb=%bx"} }, ErrBadDefinition, `'\n'`},
		{"space in arg", func(d *Def) { d.Args = []string{"a=%ax b=%bx"} }, ErrBadDefinition, "space"},
		{"empty arg", func(d *Def) { d.Args = []string{""} }, ErrBadDefinition, "empty"},
		{"empty fetcharg", func(d *Def) { d.Args = []string{"a="} }, ErrBadDefinition, "empty fetcharg"},
		{"long fetcharg", func(d *Def) { d.Args = []string{"n=" + strings.Repeat("x", 64)} }, ErrBadDefinition, "longer than 63"},
		{"bad arg name", func(d *Def) { d.Args = []string{"1a=%ax"} }, ErrBadArgName, `"1a"`},
		{"empty arg name", func(d *Def) { d.Args = []string{"=%ax"} }, ErrBadArgName, "empty"},
		{"long arg name", func(d *Def) { d.Args = []string{strings.Repeat("n", 33) + "=%ax"} }, ErrBadArgName, "longer than 32"},
		{"reserved arg name", func(d *Def) { d.Args = []string{"__probe_ip=%ax"} }, ErrBadArgName, "reserved"},
		{"duplicate arg name", func(d *Def) { d.Args = []string{"a=%ax", "a=%bx"} }, ErrBadArgName, "used twice"},
		// The kernel calls the second argument arg2 when it has no name.
		{"implicit name clash", func(d *Def) { d.Args = []string{"arg2=%ax", "%bx"} }, ErrBadArgName, `"arg2": used twice`},
		{"129 args", func(d *Def) { d.Args = make([]string, MaxProbeArgs+1); fill(d.Args, "%ax") }, ErrBadDefinition, "129 arguments"},
		{"too long", func(d *Def) {
			d.Args = make([]string, MaxProbeArgs)
			for i := range d.Args {
				d.Args[i] = fmt.Sprintf("a%03d=%s", i, strings.Repeat("x", 30))
			}
		}, ErrBadDefinition, "line is"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := ok
			d.Args = append([]string(nil), ok.Args...)
			tt.mod(&d)
			err := d.Validate()
			if tt.err == nil {
				if err != nil {
					t.Errorf("Validate(%q): %v", d.String(), err)
				}
				return
			}
			if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Validate(%q) = %v, want %v containing %q", d.String(), err, tt.err, tt.msg)
			}
		})
	}
}

func fill(s []string, v string) {
	for i := range s {
		s[i] = v
	}
}
