package grammar

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/tracefs"
)

func TestParsePoint(t *testing.T) {
	tests := []struct {
		in   string
		want Point
		str  string // want.String(); "" means same as in
	}{
		{"vfs_read", Point{Function: "vfs_read"}, ""},
		{"vfs_read:12", Point{Function: "vfs_read", Line: 12, HasLine: true}, ""},
		// perf reads numbers with strtoul(..., 0): hex and octal too.
		{"vfs_read:0x0c", Point{Function: "vfs_read", Line: 12, HasLine: true}, "vfs_read:12"},
		{"vfs_read:012", Point{Function: "vfs_read", Line: 10, HasLine: true}, "vfs_read:10"},
		// perf treats :0 as "no line"; it parses, and names like vfs_read.
		{"vfs_read:0", Point{Function: "vfs_read", Line: 0, HasLine: true}, ""},
		{"vfs_read+4", Point{Function: "vfs_read", Offset: 4, HasOffset: true}, ""},
		{"vfs_read+0x10", Point{Function: "vfs_read", Offset: 16, HasOffset: true}, "vfs_read+16"},
		{"vfs_read+0", Point{Function: "vfs_read", HasOffset: true}, ""},
		{"vfs_read%return", Point{Function: "vfs_read", Return: true}, ""},
		{"vfs_read+0%return", Point{Function: "vfs_read", HasOffset: true, Return: true}, ""},
		{"vfs_read;ret=*", Point{Function: "vfs_read", Lazy: "ret=*"}, ""},
		// The lazy pattern runs to the end, special characters and all.
		{"vfs_read;x%return", Point{Function: "vfs_read", Lazy: "x%return"}, ""},
		{`vfs_read;a\*b`, Point{Function: "vfs_read", Lazy: `a\*b`}, ""},
		{"vfs_read@fs/read_write.c", Point{Function: "vfs_read", File: "fs/read_write.c"}, ""},
		{"vfs_read:12@fs/read_write.c", Point{Function: "vfs_read", File: "fs/read_write.c", Line: 12, HasLine: true}, ""},
		{"vfs_read@fs/read_write.c:12", Point{Function: "vfs_read", File: "fs/read_write.c", Line: 12, HasLine: true}, "vfs_read:12@fs/read_write.c"},
		// perf drops the @SRC of a return probe; it is kept here.
		{"vfs_read@fs/read_write.c%return", Point{Function: "vfs_read", File: "fs/read_write.c", Return: true}, "vfs_read%return@fs/read_write.c"},
		{"vfs_read@read_write.c;ret=*", Point{Function: "vfs_read", File: "read_write.c", Lazy: "ret=*"}, ""},
		{"vfs_rea*", Point{Function: "vfs_rea*"}, ""},
		// Issue 15: C++, Rust and Go names.
		{"geo::Box::grow", Point{Function: "geo::Box::grow"}, `geo\:\:Box\:\:grow`},
		{"r::inner::scale:2", Point{Function: "r::inner::scale", Line: 2, HasLine: true}, `r\:\:inner\:\:scale:2`},
		{`"geo::Box::operator+"+4`, Point{Function: "geo::Box::operator+", Offset: 4, HasOffset: true}, `geo\:\:Box\:\:operator\++4`},
		{`ev="op=="%return`, Point{Event: "ev", Function: "op==", Return: true}, `ev=op\=\=%return`},
		{"main.positional:3", Point{Function: "main.positional", Line: 3, HasLine: true}, ""},
		{"example.com/gofix/shapes.(*Rect).Scale", Point{Function: "example.com/gofix/shapes.(*Rect).Scale"}, ""},
		{"example.com/gofix/shapes.Area:2", Point{Function: "example.com/gofix/shapes.Area", Line: 2, HasLine: true}, ""},
		{"main.go:12", Point{File: "main.go", Line: 12, HasLine: true}, "@main.go:12"},
		{"src/main.rs:7", Point{File: "src/main.rs", Line: 7, HasLine: true}, "@src/main.rs:7"},
		{"main.positional%ret", Point{Function: "main.positional", RetInsns: true}, ""},
		{"weird.c@*:3", Point{Function: "weird.c", Line: 3, HasLine: true}, "weird.c:3@*"},
		{"vfs_rea*%return", Point{Function: "vfs_rea*", Return: true}, ""},
		// SRC:ALN and SRC;PTN: a '.' (or '/') before the ':' or ';'.
		{"fs/read_write.c:470", Point{File: "fs/read_write.c", Line: 470, HasLine: true}, "@fs/read_write.c:470"},
		{"read_write.c:470", Point{File: "read_write.c", Line: 470, HasLine: true}, "@read_write.c:470"},
		{"fs/read_write:470", Point{File: "fs/read_write", Line: 470, HasLine: true}, "@fs/read_write:470"},
		{"@fs/read_write.c:470", Point{File: "fs/read_write.c", Line: 470, HasLine: true}, ""},
		{"@Makefile:3", Point{File: "Makefile", Line: 3, HasLine: true}, ""},
		{"fs/read_write.c;ret=*", Point{File: "fs/read_write.c", Lazy: "ret=*"}, "@fs/read_write.c;ret=*"},
		// perf would take this for a function, because of the '+' in the pattern.
		{"a.c;x+y", Point{File: "a.c", Lazy: "x+y"}, "@a.c;x+y"},
		// A dotted name without ':' or ';' is a function (clones, Go symbols).
		{"getname_flags.part.0", Point{Function: "getname_flags.part.0"}, ""},
		{"getname_flags.part.0%return", Point{Function: "getname_flags.part.0", Return: true}, ""},
		{"main.main", Point{Function: "main.main"}, ""},
		{"getname_flags.part.0:3", Point{File: "getname_flags.part.0", Line: 3, HasLine: true}, "@getname_flags.part.0:3"},
		// perf: with any of "+@%" it is not SRC:ALN, so "a.c" is a function here.
		{"a.c:3@b.c", Point{Function: "a.c", File: "b.c", Line: 3, HasLine: true}, ""},
		{"f.part.0@x.c:3", Point{Function: "f.part.0", File: "x.c", Line: 3, HasLine: true}, "f.part.0:3@x.c"},
		// Event and group.
		{"myev=vfs_read", Point{Event: "myev", Function: "vfs_read"}, ""},
		{"myg:myev=vfs_read:3", Point{Group: "myg", Event: "myev", Function: "vfs_read", Line: 3, HasLine: true}, ""},
		{"ev=fs/read_write.c:470", Point{Event: "ev", File: "fs/read_write.c", Line: 470, HasLine: true}, "ev=@fs/read_write.c:470"},
		{"ev=a=b", Point{Event: "ev", Function: "a=b"}, `ev=a\=b`},
		// Escapes.
		{`malloc_get_state\@GLIBC_2.2.5`, Point{Function: "malloc_get_state@GLIBC_2.2.5"}, ""},
		{`foo\+bar.c:4`, Point{File: "foo+bar.c", Line: 4, HasLine: true}, `@foo\+bar.c:4`},
		{`a\\:3`, Point{Function: `a\`, Line: 3, HasLine: true}, ""},
		{`f\oo`, Point{Function: "foo"}, "foo"},
		{`\%x`, Point{Function: "%x"}, ""},
		// Absolute addresses.
		{"0xffffffff8134cc50", Point{Addr: 0xffffffff8134cc50, IsAddr: true}, ""},
		{"0x0", Point{IsAddr: true}, ""},
		{"0x00FF", Point{Addr: 0xff, IsAddr: true}, "0xff"},
		{"0x1234%return", Point{Addr: 0x1234, IsAddr: true, Return: true}, ""},
		{"ev=0x1234", Point{Event: "ev", Addr: 0x1234, IsAddr: true}, ""},
		{"0X12", Point{Function: "0X12"}, ""}, // perf only knows lowercase 0x
		{"vfs_read+18446744073709551615", Point{Function: "vfs_read", Offset: 1<<64 - 1, HasOffset: true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePoint(tt.in)
			if err != nil {
				t.Fatalf("ParsePoint(%q): %v", tt.in, err)
			}
			if *got != tt.want {
				t.Errorf("ParsePoint(%q) =\n %+v, want\n %+v", tt.in, *got, tt.want)
			}
			str := tt.str
			if str == "" {
				str = tt.in
			}
			if s := got.String(); s != str {
				t.Errorf("String() = %q, want %q", s, str)
			}
			again, err := ParsePoint(got.String())
			if err != nil || *again != *got {
				t.Errorf("re-parse of %q = %+v, %v", got.String(), again, err)
			}
		})
	}
}

func TestParsePointErrors(t *testing.T) {
	tests := []struct {
		in   string
		col  int
		msg  string
		also error // a second sentinel besides ErrSyntax, or nil
	}{
		// Stricter than perf, which reads these as +0, line 0, no file.
		{"vfs_read+", 10, "offset missing after '+'", nil},
		{"vfs_read:", 10, "line number missing after ':'", nil},
		{"vfs_read@", 10, "file name missing after '@'", nil},
		{"vfs_read;", 10, "lazy pattern missing after ';'", nil},
		{"vfs_read%", 10, "probe place missing after '%'", nil},
		{"vfs_read%exit", 9, "%exit is not supported", nil},
		{"vfs_read%ret%return", 13, "%return or %ret given twice", nil},
		{"vfs_read:3%ret", 11, "%ret takes only a function", nil},
		{"vfs_read:3x", 10, `invalid line number "3x"`, nil},
		{"vfs_read:08", 10, `invalid line number "08"`, nil},
		{"vfs_read:-3", 10, `invalid line number "-3"`, nil},
		{"vfs_read:+3", 10, "line number missing", nil},
		{"vfs_read:99999999999", 10, "invalid line number", nil},
		{"vfs_read+0x", 10, `invalid offset "0x"`, nil},
		{"vfs_read+1_0", 10, `invalid offset "1_0"`, nil},
		{"vfs_read+0b1", 10, `invalid offset "0b1"`, nil},
		{"vfs_read+18446744073709551616", 10, "invalid offset", nil},
		{"vfs_read:3:4", 11, "line number given twice", nil},
		{"vfs_read+1+2", 11, "offset given twice", nil},
		{"vfs_read%return%return", 16, "%return or %ret given twice", nil},
		{"vfs_read@a.c@b.c", 13, "SRC@SRC is not allowed", nil},
		{`vfs_read\`, 9, "trailing backslash", nil},
		{`vfs_read;a\`, 11, "trailing backslash", nil},
		{`"ns::f:3`, 1, "quoted name not closed", nil},
		{`""`, 1, "empty quoted name", nil},
		{`"ns::f"x`, 8, `unexpected 'x' after the quoted name`, nil},
		// Exclusions.
		{"vfs_read+4:3", 11, "offset can't be used with a line number", nil},
		{"vfs_read:3+4", 11, "offset can't be used with a line number", nil},
		{"vfs_read:3;x", 11, "lazy pattern can't be used with a line number", nil},
		{"vfs_read+4;x", 11, "lazy pattern can't be used with an offset", nil},
		{"vfs_read:12%return", 12, "%return can't be used with a line number", nil},
		{"vfs_read:0%return", 11, "%return can't be used with a line number", nil},
		{"vfs_read%return:12", 9, "%return can't be used with a line number", nil},
		{"vfs_read%return;x", 9, "%return can't be used with a lazy pattern", nil},
		{"vfs_read+4%return", 11, "%return can't be used with a non-zero offset", nil},
		{"@a.c:3%return", 7, "%return requires a function", nil},
		{"@a.c", 5, "source file requires a line number", nil},
		{"@a.c+4", 5, "offset requires an entry function", nil},
		{"@a.c:0", 6, "line number in a source file must be positive", nil},
		{"a.c:0", 5, "line number in a source file must be positive", nil},
		{":3", 1, "function, source file or address missing", nil}, // perf 6.1 segfaults
		{";x", 1, "function, source file or address missing", nil}, // perf 6.1 segfaults
		{"+4", 1, "function, source file or address missing", nil},
		{"ev=", 4, "function, source file or address missing", nil},
		// Addresses.
		{"0x", 1, `invalid absolute address "0x"`, nil},
		{"0xzz", 1, `invalid absolute address "0xzz"`, nil},
		{"0x10000000000000000", 1, "invalid absolute address", nil},
		{"0x1234+4", 7, "absolute address can't be used with an offset", nil}, // perf drops the +4
		{"0x1234:3", 7, "absolute address can't be used with a line number", nil},
		{"0x1234@a.c", 7, "absolute address can't be used with @SRC", nil},
		{"0x1234;x", 7, "absolute address can't be used with a lazy pattern", nil},
		// Names.
		{"=vfs_read", 1, `bad event name "": empty`, tracefs.ErrBadEventName},
		{"1ev=vfs_read", 1, `bad event name "1ev"`, tracefs.ErrBadEventName},
		{"g:=vfs_read", 3, `bad event name ""`, tracefs.ErrBadEventName},
		{"g:e:x=vfs_read", 3, `bad event name "e:x"`, tracefs.ErrBadEventName},
		{`e\x=vfs_read`, 1, `bad event name "e\\x"`, tracefs.ErrBadEventName},
		{"g-x:ev=vfs_read", 1, `bad group name "g-x"`, tracefs.ErrBadGroupName},
		{":ev=vfs_read", 1, `bad group name ""`, tracefs.ErrBadGroupName},
		{strings.Repeat("e", 64) + "=vfs_read", 1, "longer than 63 bytes", tracefs.ErrBadEventName},
		// SDT markers (sdt_test.go has the rest).
		{"%sdt_libc:setjmp%return", 17, "must be an SDT name", nil},
		{"sdt_libc:setjmp@/lib/libc.so.6", 16, "not from @TARGET", nil},
		// Characters.
		{"vfs read", 4, "unexpected space", nil},
		{"vfs_read\n", 9, `control character '\n' not allowed`, nil},
		{"vfs_read\t", 9, `control character '\t' not allowed`, nil},
		{"vfs\x7f", 4, `control character '\x7f' not allowed`, nil},
		{"", 1, "probe point missing", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p, err := ParsePoint(tt.in)
			if err == nil {
				t.Fatalf("ParsePoint(%q) = %+v, want error", tt.in, *p)
			}
			if p != nil {
				t.Errorf("ParsePoint(%q) returned a point with its error", tt.in)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *SyntaxError", err)
			}
			if se.Col != tt.col || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("ParsePoint(%q): column %d %q, want column %d containing %q", tt.in, se.Col, se.Msg, tt.col, tt.msg)
			}
			if se.Spec != tt.in {
				t.Errorf("Spec = %q, want %q", se.Spec, tt.in)
			}
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("error does not wrap ErrSyntax")
			}
			if tt.also != nil && !errors.Is(err, tt.also) {
				t.Errorf("error does not match %v", tt.also)
			}
		})
	}
}

func TestSyntaxErrorFormat(t *testing.T) {
	_, err := ParsePoint("vfs_read+")
	want := `spec "vfs_read+": column 10: offset missing after '+'`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	e := &SyntaxError{Spec: "x", Col: 1, Msg: "m", Err: tracefs.ErrBadEventName}
	if !errors.Is(e, ErrSyntax) || !errors.Is(e, tracefs.ErrBadEventName) || errors.Is(e, tracefs.ErrBadGroupName) {
		t.Errorf("errors.Is does not follow Unwrap and Err")
	}
}

func TestAbsLine(t *testing.T) {
	for in, want := range map[string]bool{
		"vfs_read:12":         false,
		"fs/read_write.c:470": true,
		"fs/read_write.c;x":   false,
		"vfs_read":            false,
	} {
		p, err := ParsePoint(in)
		if err != nil {
			t.Fatal(err)
		}
		if p.AbsLine() != want {
			t.Errorf("%q: AbsLine() = %v, want %v", in, p.AbsLine(), want)
		}
	}
}

func TestParseSpec(t *testing.T) {
	tests := []struct {
		in    string
		point Point
		args  []Arg
	}{
		{"vfs_read", Point{Function: "vfs_read"}, nil},
		{"vfs_read:12 count", Point{Function: "vfs_read", Line: 12, HasLine: true},
			[]Arg{{Raw: "count", Expr: "count", Col: 13}}},
		{"  vfs_read\t  a=file->f_pos:s64   ", Point{Function: "vfs_read"},
			[]Arg{{Raw: "a=file->f_pos:s64", Name: "a", Expr: "file->f_pos", Type: "s64", Col: 14}}},
		{"vfs_read %ax $retval @jiffies +0(%di):u8 arr[1] $vars", Point{Function: "vfs_read"},
			[]Arg{
				{Raw: "%ax", Expr: "%ax", Col: 10},
				{Raw: "$retval", Expr: "$retval", Col: 14},
				{Raw: "@jiffies", Expr: "@jiffies", Col: 22},
				{Raw: "+0(%di):u8", Expr: "+0(%di)", Type: "u8", Col: 31},
				{Raw: "arr[1]", Expr: "arr[1]", Col: 42},
				{Raw: "$vars", Expr: "$vars", Col: 49},
			}},
		// Linux 7.3's fetch forms: typecasts, container_of, $current, per-CPU reads.
		{"vfs_read (file)file->f_mode:x32 pid=(task_struct)$current->pid:s32 (sock,sk_common)skc->sk_rcvbuf this_cpu_read(cpu_number) $current", Point{Function: "vfs_read"},
			[]Arg{
				{Raw: "(file)file->f_mode:x32", Expr: "(file)file->f_mode", Type: "x32", Col: 10},
				{Raw: "pid=(task_struct)$current->pid:s32", Name: "pid", Expr: "(task_struct)$current->pid", Type: "s32", Col: 33},
				{Raw: "(sock,sk_common)skc->sk_rcvbuf", Expr: "(sock,sk_common)skc->sk_rcvbuf", Col: 68},
				{Raw: "this_cpu_read(cpu_number)", Expr: "this_cpu_read(cpu_number)", Col: 99},
				{Raw: "$current", Expr: "$current", Col: 125},
			}},
		{"do_sys_open name=filename:string@user", Point{Function: "do_sys_open"},
			[]Arg{{Raw: "name=filename:string@user", Name: "name", Expr: "filename", Type: "string", User: true, Col: 13}}},
		{"f x@user x2=y:b4@2/32 @user", Point{Function: "f"},
			[]Arg{
				{Raw: "x@user", Expr: "x", User: true, Col: 3},
				{Raw: "x2=y:b4@2/32", Name: "x2", Expr: "y", Type: "b4@2/32", Col: 10},
				// A symbol called "user", not an @user suffix.
				{Raw: "@user", Expr: "@user", Col: 23},
			}},
		// @user is the last suffix, even after a bitfield type or a symbol.
		{"f y:b4@2/32@user @sym@user", Point{Function: "f"},
			[]Arg{
				{Raw: "y:b4@2/32@user", Expr: "y", Type: "b4@2/32", User: true, Col: 3},
				{Raw: "@sym@user", Expr: "@sym", User: true, Col: 18},
			}},
		{"vfs_read%return $retval r=%ax", Point{Function: "vfs_read", Return: true},
			[]Arg{{Raw: "$retval", Expr: "$retval", Col: 17}, {Raw: "r=%ax", Name: "r", Expr: "%ax", Col: 25}}},
		{"vfs_read;a=b x", Point{Function: "vfs_read", Lazy: "a=b"},
			[]Arg{{Raw: "x", Expr: "x", Col: 14}}},
		{"f a==b", Point{Function: "f"}, []Arg{{Raw: "a==b", Name: "a", Expr: "=b", Col: 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSpec(tt.in)
			if err != nil {
				t.Fatalf("ParseSpec(%q): %v", tt.in, err)
			}
			for i, a := range got.Args {
				if !reflect.DeepEqual(a.Fetch, tracefs.ReadFetch(a.Expr)) {
					t.Errorf("arg %q: Fetch %+v, want Expr read once by tracefs.ReadFetch", a.Raw, a.Fetch)
				}
				got.Args[i].Fetch = tracefs.Fetch{}
			}
			if got.Raw != tt.in || got.Point != tt.point || !reflect.DeepEqual(got.Args, tt.args) {
				t.Errorf("ParseSpec(%q) =\n %+v, want\n %+v %+v", tt.in, *got, tt.point, tt.args)
			}
			for _, a := range got.Args {
				if tt.in[a.Col-1:a.Col-1+len(a.Raw)] != a.Raw {
					t.Errorf("arg %q: column %d does not point at it", a.Raw, a.Col)
				}
			}
		})
	}
}

func TestParseSpecErrors(t *testing.T) {
	tests := []struct {
		in   string
		col  int
		msg  string
		also error
	}{
		{"", 1, "probe point missing", nil},
		{"   ", 4, "probe point missing", nil},
		{"  vfs_read+", 12, "offset missing after '+'", nil},
		{"vfs_read\nx=%ax", 9, `control character '\n'`, nil},
		{"vfs_read x=%ax\r", 15, `control character '\r'`, nil},
		{"vfs_read x=%a\x00x", 14, `control character '\x00'`, nil},
		{"vfs_read 1a=%ax", 10, `bad argument name "1a"`, tracefs.ErrBadArgName},
		{"vfs_read a-b=%ax", 10, `bad argument name "a-b"`, tracefs.ErrBadArgName},
		{"vfs_read =%ax", 10, `bad argument name "": empty`, tracefs.ErrBadArgName},
		{"vfs_read common_pid=%ax", 10, "reserved by the kernel", tracefs.ErrBadArgName},
		{"vfs_read " + strings.Repeat("a", 33) + "=%ax", 10, "longer than 32 bytes", tracefs.ErrBadArgName},
		{"vfs_read a=%ax a=%dx", 16, `argument name "a" used twice`, tracefs.ErrBadArgName},
		{"vfs_read x=", 12, "argument expression missing", nil},
		{"vfs_read %ax:", 14, "type missing after ':'", nil},
		{"vfs_read x=:u8", 12, "argument expression missing", nil},
		{"vfs_read x=@user", 0, "", nil}, // valid: a symbol called user (checked below)
		{"vfs_read%return count", 17, `local variable "count" can't be used with %return`, nil},
		{"vfs_read%return c=file->f_pos", 19, `local variable "file->f_pos"`, nil},
		{"f" + strings.Repeat(" %ax", tracefs.MaxArgs+1), 2 + 4*tracefs.MaxArgs + 1, "too many probe arguments (129, at most 128)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s, err := ParseSpec(tt.in)
			if tt.col == 0 {
				if err != nil {
					t.Fatalf("ParseSpec(%q): %v", tt.in, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("ParseSpec(%q) = %+v, want error", tt.in, *s)
			}
			if s != nil {
				t.Errorf("result with error")
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%v is not a *SyntaxError", err)
			}
			if se.Col != tt.col || !strings.Contains(se.Msg, tt.msg) || se.Spec != tt.in {
				t.Errorf("ParseSpec(%q): column %d %q, want column %d containing %q", tt.in, se.Col, se.Msg, tt.col, tt.msg)
			}
			if tt.also != nil && !errors.Is(err, tt.also) {
				t.Errorf("error does not match %v", tt.also)
			}
		})
	}
	// 128 arguments are fine.
	if _, err := ParseSpec("f" + strings.Repeat(" %ax", tracefs.MaxArgs)); err != nil {
		t.Errorf("128 arguments: %v", err)
	}
}

func TestParseNum(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"12", 12, true}, {"0x1F", 31, true}, {"0X1f", 31, true},
		{"017", 15, true}, {"00", 0, true}, {"018", 0, false}, {"0x", 0, false},
		{"", 0, false}, {"-1", 0, false}, {"+1", 0, false}, {" 1", 0, false},
		{"1_0", 0, false}, {"0b1", 0, false}, {"0o7", 0, false},
		{"18446744073709551615", 1<<64 - 1, true}, {"18446744073709551616", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseNum(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseNum(%q) = %d, %v, want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestCheckChars pins which bytes a probe command and a single token
// refuse (tracefs.LineByte's control characters; spaces in a token; tabs
// too in a token) and which they leave to tracefs ('#', 0xa0).
func TestCheckChars(t *testing.T) {
	for _, c := range []struct {
		s       string
		command bool
		want    string
	}{
		{"vfs_read x=%ax", true, ""},
		{"vfs_read\tx=%ax", true, ""},
		{"vfs_read\tx", false, `control character '\t' not allowed`},
		{"vfs read", false, "unexpected space in probe point"},
		{"vfs_read\n", true, `control character '\n' not allowed`},
		{"vfs\x00", true, `control character '\x00' not allowed`},
		{"vfs\x1b", false, `control character '\x1b' not allowed`},
		{"vfs\x7f", true, `control character '\x7f' not allowed`},
		{"vfs#1", false, ""},
		{"v\xc3\xa0", true, ""},
	} {
		err := CheckChars(c.s, c.s, 0, c.command)
		got := ""
		if se, ok := err.(*SyntaxError); ok {
			got = se.Msg
		} else if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("CheckChars(%q, %v) = %q; want %q", c.s, c.command, got, c.want)
		}
	}
}
