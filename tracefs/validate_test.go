package tracefs

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestEventString(t *testing.T) {
	for _, c := range []struct {
		ev   Event
		want string
	}{
		// perf -D 'vfs_read:12'
		{Event{Type: 'p', Group: "probe", Name: "vfs_read_L12", Target: "vfs_read+114"}, "p:probe/vfs_read_L12 vfs_read+114"},
		// perf -D 'vfs_read%return'
		{Event{Type: 'r', Group: "probe", Name: "vfs_read__return", Target: "vfs_read+0"}, "r:probe/vfs_read__return vfs_read+0"},
		// perf -D 'vfs_read:12 count'
		{Event{Type: 'p', Group: "probe", Name: "vfs_read_L12", Target: "vfs_read+114", Args: []Arg{{Name: "count", Fetch: "%r14", Type: "x64"}}},
			"p:probe/vfs_read_L12 vfs_read+114 count=%r14:x64"},
		// perf -x /tmp/my-app.v2 -D 0x1234
		{Event{Kind: UProbe, Type: 'p', Group: "probe_my", Name: "abs_1234", Target: "/tmp/my-app.v2:0x1234"}, "p:probe_my/abs_1234 /tmp/my-app.v2:0x1234"},
		{Event{Type: 'r', MaxActive: 10, Group: "probe", Name: "f__return", Target: "f+0", Args: []Arg{{Name: "", Fetch: "$retval", Type: ""}, {Name: "", Fetch: "%ax", Type: ""}}},
			"r10:probe/f__return f+0 $retval %ax"},
	} {
		if got := c.ev.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.ev, got, c.want)
		}
	}
}

// args splits argument fields as ParseDefinition does.
func args(fields ...string) []Arg {
	var out []Arg
	for _, f := range fields {
		out = append(out, splitArg(f))
	}
	return out
}

func repeat(n int, field string) []Arg {
	var out []Arg
	for i := 0; i < n; i++ {
		out = append(out, splitArg(field))
	}
	return out
}

func TestEventValidate(t *testing.T) {
	ok := Event{Kind: KProbe, Type: 'p', Group: "probe", Name: "vfs_read_L12", Target: "vfs_read+114", Args: args("a=%di:u64", "%si")}
	long := make([]Arg, MaxArgs)
	for i := range long {
		long[i] = splitArg(fmt.Sprintf("a%03d=+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(%%di))))))))))", i))
	}
	for _, c := range []struct {
		name string
		mod  func(*Event)
		err  error // nil means valid
		msg  string
	}{
		{"valid", func(e *Event) {}, nil, ""},
		{"uprobe", func(e *Event) { e.Kind, e.Target = UProbe, "/usr/lib/libc.so.6:0x1234" }, nil, ""},
		{"maxactive", func(e *Event) { e.Type, e.MaxActive = 'r', 4096 }, nil, ""},
		{"128 args", func(e *Event) { e.Args = repeat(MaxArgs, "%ax") }, nil, ""},
		{"fetcharg 63", func(e *Event) { e.Args = args("n=@" + strings.Repeat("x", 62)) }, nil, ""},
		{"unnamed then other name", func(e *Event) { e.Args = args("%ax", "arg1x=%bx") }, nil, ""},
		{"placeholder", func(e *Event) { e.Args = args(`flags=\0xdeade12d:s32`, `\-100`, `\+7`, `\017`) }, nil, ""},
		{"immediate string", func(e *Event) { e.Args = args(`s=\"a:b"`, `t=\""`) }, nil, ""},
		{"derefs", func(e *Event) {
			e.Args = args("a=+u8(-16(%sp)):s8[2]", "b=@jiffies", "c=@0x1000", "d=+0(@init_task+8)")
		}, nil, ""},
		{"vars", func(e *Event) { e.Args = args("$stack", "$stack3", "$comm", "c=$COMM:string") }, nil, ""},
		{"$arg at entry", func(e *Event) { e.Target, e.Args = "vfs_read+0", args("$arg1", "x=$arg12:u32") }, nil, ""},
		{"$arg at bare symbol", func(e *Event) { e.Target, e.Args = "vfs_read", args("$arg1") }, nil, ""},
		// perf's target for a function whose name is not unique: only
		// kallsyms knows whether it is an entry.
		{"$arg at _text+N", func(e *Event) { e.Target, e.Args = "_text+1711552", args("$arg1") }, nil, ""},
		{"$retval", func(e *Event) { e.Type, e.Args = 'r', args("$retval") }, nil, ""},
		{"strings", func(e *Event) {
			e.Args = args("a=+0(%di):string", "b=@sym:string", `c=\"x":string`, "d=$comm:string", "e=%di:symstr", `f=\7:string`, "g=+0(%si):string[2]")
		}, nil, ""},
		{"uprobe file offset", func(e *Event) { e.Kind, e.Target, e.Args = UProbe, "/bin/x:0x10", args("a=@+4096:u32") }, nil, ""},

		{"no event", func(e *Event) { e.Name = "" }, ErrBadEventName, "empty"},
		{"bad event", func(e *Event) { e.Name = "a-b" }, ErrBadEventName, `"a-b"`},
		{"event newline", func(e *Event) { e.Name = "a\nb" }, ErrBadEventName, ""},
		{"no group", func(e *Event) { e.Group = "" }, ErrBadGroupName, "empty"},
		{"bad group", func(e *Event) { e.Group = "probe/x" }, ErrBadGroupName, ""},
		{"bad type", func(e *Event) { e.Type = 'e' }, ErrBadDefinition, "p: or r:"},
		{"maxactive on p", func(e *Event) { e.MaxActive = 2 }, ErrBadDefinition, "only for return probes"},
		{"maxactive on uprobe", func(e *Event) { e.Kind, e.Type, e.MaxActive, e.Target = UProbe, 'r', 2, "/b:0x1" }, ErrBadDefinition, "uprobes take no"},
		{"maxactive big", func(e *Event) { e.Type, e.MaxActive = 'r', 4097 }, ErrBadDefinition, "1 to 4096"},
		{"maxactive negative", func(e *Event) { e.Type, e.MaxActive = 'r', -1 }, ErrBadDefinition, "1 to 4096"},
		{"empty target", func(e *Event) { e.Target = "" }, ErrBadDefinition, "no probe point"},
		{"space in target", func(e *Event) { e.Target = "/tmp/my app:0x10" }, ErrBadDefinition, "contains a space"},
		{"tab in target", func(e *Event) { e.Target = "a\tb" }, ErrBadDefinition, `'\t'`},
		{"newline in target", func(e *Event) { e.Target = "vfs_read\n-:probe/x" }, ErrBadDefinition, `'\n'`},
		{"hash in target", func(e *Event) { e.Target = "/tmp/a#b:0x10" }, ErrBadDefinition, "comment"},
		{"nbsp byte in target", func(e *Event) { e.Target = "/tmp/\u00e0:0x10" }, ErrBadDefinition, "0xa0"},
		{"uprobe target", func(e *Event) { e.Kind = UProbe }, ErrBadDefinition, "PATH:OFFSET"},
		{"newline in arg", func(e *Event) { e.Args = args("a=%ax\nb=%bx") }, ErrBadDefinition, `'\n'`},
		{"space in arg", func(e *Event) { e.Args = []Arg{{Name: "a", Fetch: "%ax b=%bx", Type: ""}} }, ErrBadDefinition, "space"},
		{"empty arg", func(e *Event) { e.Args = args("") }, ErrBadDefinition, "no fetch expression"},
		{"empty fetcharg", func(e *Event) { e.Args = args("a=") }, ErrBadDefinition, "no fetch expression"},
		{"long fetcharg", func(e *Event) { e.Args = args("n=@" + strings.Repeat("x", 63)) }, ErrBadDefinition, "at most 63"},
		{"bad arg name", func(e *Event) { e.Args = args("1a=%ax") }, ErrBadArgName, `C identifier`},
		{"empty arg name", func(e *Event) { e.Args = args("=%ax") }, ErrBadArgName, "C identifier"},
		{"long arg name", func(e *Event) { e.Args = args(strings.Repeat("n", 33) + "=%ax") }, ErrBadArgName, "longer than 32"},
		{"reserved arg name", func(e *Event) { e.Args = args("__probe_ip=%ax") }, ErrBadArgName, "reserved"},
		{"duplicate arg name", func(e *Event) { e.Args = args("a=%ax", "a=%bx") }, ErrBadArgName, "used twice"},
		// The kernel calls the second argument arg2 when it has no name.
		{"implicit name clash", func(e *Event) { e.Args = args("arg2=%ax", "%bx") }, ErrBadArgName, `"arg2" used twice`},
		{"129 args", func(e *Event) { e.Args = repeat(MaxArgs+1, "%ax") }, ErrBadDefinition, "129 arguments"},
		{"too long", func(e *Event) { e.Args = long }, ErrBadDefinition, "at most 4094"},
		{"bad type", func(e *Event) { e.Args = []Arg{{Name: "a", Fetch: "%ax", Type: "u7"}} }, ErrBadDefinition, `unknown type "u7"`},
		{"bad bitfield", func(e *Event) { e.Args = args("a=+0(%ax):b4@30/32") }, ErrBadDefinition, "unknown type"},

		// The fetcharg grammar of trace_probe.c's parse_probe_arg.
		{"perf's placeholder", func(e *Event) { e.Args = args(`flags=\deade12d:s32`) }, ErrBadDefinition, `bad immediate "\\deade12d"`},
		{"immediate with junk", func(e *Event) { e.Args = args(`\12x`) }, ErrBadDefinition, "bad immediate"},
		{"immediate underscore", func(e *Event) { e.Args = args(`\1_000`) }, ErrBadDefinition, "bad immediate"},
		{"open string", func(e *Event) { e.Args = args(`s=\"abc`) }, ErrBadDefinition, "closing"},
		{"$arg off entry", func(e *Event) { e.Args = args("$arg1") }, ErrBadDefinition, "entry only (SYMBOL or SYMBOL+0), not at vfs_read+114"},
		{"$arg at address", func(e *Event) { e.Target, e.Args = "0xffffffff81000000", args("$arg1") }, ErrBadDefinition, "entry only"},
		{"$arg in a module function", func(e *Event) { e.Target, e.Args = "ext4:ext4_sync_fs+8", args("$arg1") }, ErrBadDefinition, "entry only"},
		// Which kernels read $argN on a return probe is the Dialect's business.
		{"$arg on return", func(e *Event) { e.Type, e.Target, e.Args = 'r', "vfs_read+0", args("$arg1") }, nil, ""},
		{"$arg on uprobe", func(e *Event) { e.Kind, e.Target, e.Args = UProbe, "/bin/x:0x10", args("$arg1") }, ErrBadDefinition, "kernel probes only"},
		{"$arg0", func(e *Event) { e.Target, e.Args = "f", args("$arg0") }, ErrBadDefinition, "bad function argument"},
		{"$retval on entry", func(e *Event) { e.Args = args("$retval") }, ErrBadDefinition, "only for return probes"},
		{"unknown var", func(e *Event) { e.Args = args("$vars") }, ErrBadDefinition, "unknown variable"},
		{"bad register", func(e *Event) { e.Args = args("%") }, ErrBadDefinition, "bad register name"},
		{"symbol on uprobe", func(e *Event) { e.Kind, e.Target, e.Args = UProbe, "/bin/x:0x10", args("@jiffies") }, ErrBadDefinition, "uprobes read no symbol"},
		{"file offset on kprobe", func(e *Event) { e.Args = args("@+16") }, ErrBadDefinition, "kprobes read no file offset"},
		{"deref without (", func(e *Event) { e.Args = args("+8%di") }, ErrBadDefinition, "needs (FETCHARG)"},
		{"deref without )", func(e *Event) { e.Args = args("+8(%di") }, ErrBadDefinition, "closing ')'"},
		{"deref of comm", func(e *Event) { e.Args = args("+8($comm)") }, ErrBadDefinition, "can't be dereferenced"},
		{"bad inner", func(e *Event) { e.Args = args(`+8(\x)`) }, ErrBadDefinition, "bad immediate"},
		{"bare word", func(e *Event) { e.Args = args("count") }, ErrBadDefinition, `BTF argument name "count" is read at a function's entry only`},
		{"bad word", func(e *Event) { e.Args = args("co-unt") }, ErrBadDefinition, "bad fetch argument"},
		{"BTF name at entry", func(e *Event) { e.Target, e.Args = "vfs_read", args("count", "file->f_mode", "file->f_path.dentry") }, nil, ""},
		{"BTF name twice", func(e *Event) { e.Target, e.Args = "vfs_read", args("count", "count") }, ErrBadArgName, `"count" used twice`},
		{"BTF string", func(e *Event) { e.Target, e.Args = "do_sys_openat2", args("filename:string") }, nil, ""},
		{"BTF name on uprobe", func(e *Event) { e.Kind, e.Target, e.Args = UProbe, "/bin/x:0x10", args("count") }, ErrBadDefinition, "kernel probes only"},
		{"$arg*", func(e *Event) { e.Target, e.Args = "vfs_read", args("$arg*") }, nil, ""},
		{"$arg* named", func(e *Event) { e.Target, e.Args = "vfs_read", args("a=$arg*") }, ErrBadDefinition, "write it alone"},
		{"$arg* twice", func(e *Event) { e.Target, e.Args = "vfs_read", args("$arg*", "$arg*") }, ErrBadDefinition, "$arg* used twice"},
		{"$retval member", func(e *Event) { e.Type, e.Target, e.Args = 'r', "vfs_read", args("$retval->x") }, nil, ""},
		{"$retval bad member", func(e *Event) { e.Type, e.Target, e.Args = 'r', "vfs_read", args("$retval->") }, ErrBadDefinition, "bad member access"},

		// fprobes and tracepoint probes (trace_fprobe.c).
		{"fprobe", func(e *Event) { e.Kind, e.Type, e.Target, e.Args = FProbe, 'f', "vfs_read", args("count", "$arg1") }, nil, ""},
		{"fprobe exit", func(e *Event) {
			e.Kind, e.Type, e.MaxActive, e.Target, e.Args = FProbe, 'f', 8, "vfs_read%return", args("$retval", "$arg*")
		}, nil, ""},
		{"fprobe MAXACTIVE on entry", func(e *Event) { e.Kind, e.Type, e.MaxActive, e.Target = FProbe, 'f', 8, "vfs_read" }, ErrBadDefinition, "only for return probes"},
		{"fprobe $retval on entry", func(e *Event) { e.Kind, e.Type, e.Target, e.Args = FProbe, 'f', "vfs_read", args("$retval") }, ErrBadDefinition, "only for return probes"},
		{"fprobe register", func(e *Event) { e.Kind, e.Type, e.Target, e.Args = FProbe, 'f', "vfs_read", args("c=+0(%dx):u8") }, ErrBadDefinition, "read no registers"},
		{"fprobe offset", func(e *Event) { e.Kind, e.Type, e.Target = FProbe, 'f', "vfs_read+4" }, ErrBadDefinition, "not a function name"},
		{"fprobe as p:", func(e *Event) { e.Kind, e.Target = FProbe, "vfs_read" }, ErrBadDefinition, "starts with f:"},
		{"tprobe", func(e *Event) {
			e.Kind, e.Type, e.Target, e.Args = TProbe, 't', "sched_switch", args("next_pid=next->pid", "prev")
		}, nil, ""},
		{"tprobe %return", func(e *Event) { e.Kind, e.Type, e.Target = TProbe, 't', "sched_switch%return" }, ErrBadDefinition, "not a tracepoint name"},
		{"tprobe $retval", func(e *Event) { e.Kind, e.Type, e.Target, e.Args = TProbe, 't', "sched_switch", args("$retval") }, ErrBadDefinition, "only for return probes"},
		{"tprobe MAXACTIVE", func(e *Event) { e.Kind, e.Type, e.MaxActive, e.Target = TProbe, 't', 2, "sched_switch" }, ErrBadDefinition, "only for return probes"},

		// Types against what they fetch (traceprobe_parse_probe_arg).
		{"string of a register", func(e *Event) { e.Args = args("s=%di:string") }, ErrBadDefinition, "write +0(%di):string"},
		{"ustring of $arg", func(e *Event) { e.Target, e.Args = "f", args("s=$arg1:ustring") }, ErrBadDefinition, "read from memory"},
		{"$comm as a number", func(e *Event) { e.Args = args("c=$comm:u32") }, ErrBadDefinition, "is a string"},
		{"$comm array", func(e *Event) { e.Args = args("c=$comm:string[2]") }, ErrBadDefinition, "is a string"},
		{"array of a register", func(e *Event) { e.Args = args("a=%di:u8[4]") }, ErrBadDefinition, "an array is read from memory"},
		{"symstr of an immediate", func(e *Event) { e.Args = args(`s=\42:symstr`) }, ErrBadDefinition, "symstr"},
		{"symstr array", func(e *Event) { e.Args = args("s=+0(%di):symstr[2]") }, ErrBadDefinition, "symstr"},
		// PARAM_MAX_STACK and the type checks of traceprobe_parse_probe_arg_body.
		{"$stack past PARAM_MAX_STACK", func(e *Event) { e.Args = args("$stack2049") }, ErrBadDefinition, "kprobes read $stack0 to $stack2048"},
		{"$stack on uprobe", func(e *Event) { e.Kind, e.Target, e.Args = UProbe, "/bin/x:0x10", args("$stack4000") }, nil, ""},
		{"$arg past PARAM_MAX_STACK", func(e *Event) { e.Target, e.Args = "f", args("$arg2049") }, ErrBadDefinition, "$arg1 to $arg2048"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := ok
			c.mod(&e)
			err := e.Validate()
			if c.err == nil {
				if err != nil {
					t.Errorf("Validate(%q): %v", e.String(), err)
				}
				return
			}
			var de *DefError
			if !errors.Is(err, c.err) || !errors.As(err, &de) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("Validate(%q) = %v, want a DefError wrapping %v containing %q", e.String(), err, c.err, c.msg)
			}
		})
	}
}

// TestDefErrorPos: ParseDefinition points at the byte the kernel's
// error_log caret would.
func TestDefErrorPos(t *testing.T) {
	for _, c := range []struct {
		def string
		pos int
	}{
		{`p:g/e  f+4 flags=\deade12d:s32`, 18},
		{"p:g/e vfs_read+114 a=%di $arg1", 25},
		{"p:g/1e f", 4},
		{"p:g/e f a=+8(+0(%di)) b=+8(\\zz)", 28}, // BAD_IMM points past the backslash
		{"p:g/e", 5},
	} {
		_, err := ParseDefinition(KProbe, c.def)
		var de *DefError
		if !errors.As(err, &de) || de.Pos != c.pos {
			t.Errorf("ParseDefinition(%q) = %v, want a DefError at byte %d", c.def, err, c.pos)
		}
	}
}
