package grammar

import (
	"errors"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/tracefs"
)

// fuzzSpecSeeds are the examples of perf-probe.txt plus the corner cases
// the grammar has to get right.
var fuzzSpecSeeds = []string{
	"schedule:12 cpu",
	"schedule*",
	"schedule;update_rq_clock*",
	"zfree",
	"malloc",
	`malloc_get_state\@GLIBC_2.2.5`,
	`foo\+bar.c:4`,
	"%sdt_hotspot:thread__sleep__end",
	"vfs_read",
	"vfs_read:12",
	"vfs_read+114",
	"vfs_read%return $retval",
	"vfs_read@fs/read_write.c:12 count buf:string",
	"vfs_read;ret=* ret",
	"fs/read_write.c:470",
	"fs/read_write.c;ret=*",
	"@fs/read_write.c:470",
	"myg:myev=vfs_read:3 a=file->f_pos:s64",
	"0xffffffff8134cc50%return",
	"ev=0x1234 ax=%ax",
	"do_sys_open name=filename:string@user",
	"f x:b4@2/32@user @sym@user arr[1] var->field.sub",
	"getname_flags.part.0%return",
	"main.main",
	"main.positional:3 a b",
	"example.com/gofix/shapes.(*Rect).Scale k",
	"geo::Box::grow this->width by",
	`"geo::Box::operator<"`,
	`"add<long>"%return $retval`,
	"r::inner::scale:2@src/main.rs",
	"_ZN1r4work17h1eab6cb397fdfa44E n",
	"_RNvCs1234_1r4work n",
	"weird.c@*:3",
	"main.positional%ret $retval $retval1",
	"vfs_read+",
	"vfs_read:0%return",
	`a\\:3`,
	"a.c;x+y",
	"vfs_read\nx=%ax",
	"sdt_libc:setjmp",
	`"0x10"`,  // a function named like an address: printed quoted
	`"::.":0`, // printed escaped, it reads as a file: printed with @*
	`"a.c":3`, // likewise
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range fuzzSpecSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		spec, err := ParseSpec(cmd)
		if (err == nil) == (spec == nil) {
			t.Fatalf("ParseSpec(%q) = %v, %v: want exactly one of result and error", cmd, spec, err)
		}
		if err != nil {
			checkSyntaxError(t, cmd, err)
		} else {
			checkRoundTrip(t, &spec.Point)
			for _, a := range spec.Args {
				if a.Col < 1 || a.Col-1+len(a.Raw) > len(cmd) || cmd[a.Col-1:a.Col-1+len(a.Raw)] != a.Raw {
					t.Fatalf("ParseSpec(%q): arg %q has column %d", cmd, a.Raw, a.Col)
				}
				if a.Expr == "" || strings.ContainsAny(a.Raw, " \t\n") {
					t.Fatalf("ParseSpec(%q): bad arg %+v", cmd, a)
				}
				if a.Name != "" && tracefs.ValidateName(tracefs.ArgName, a.Name) != nil {
					t.Fatalf("ParseSpec(%q): bad arg name %q", cmd, a.Name)
				}
			}
			_ = EventBase(&spec.Point, "realname")
		}

		p, err := ParsePoint(cmd)
		if (err == nil) == (p == nil) {
			t.Fatalf("ParsePoint(%q) = %v, %v: want exactly one of result and error", cmd, p, err)
		}
		if err != nil {
			checkSyntaxError(t, cmd, err)
			return
		}
		checkRoundTrip(t, p)
		// A name from a parsed point either passes the namer or is refused
		// with ErrBadEventName, never anything else.
		if _, err := NewNamer(nil).Next(EventBase(p, "f"), true); err != nil && !errors.Is(err, tracefs.ErrBadEventName) {
			t.Fatalf("Namer on %q: %v", cmd, err)
		}
	})
}

func checkSyntaxError(t *testing.T, cmd string, err error) {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) {
		t.Fatalf("%q: error %v is not a *SyntaxError", cmd, err)
	}
	if se.Spec != cmd || se.Col < 1 || se.Col > len(cmd)+1 || se.Msg == "" {
		t.Fatalf("%q: bad SyntaxError %+v", cmd, *se)
	}
}

func checkRoundTrip(t *testing.T, p *Point) {
	t.Helper()
	s := p.String()
	again, err := ParsePoint(s)
	if err != nil {
		t.Fatalf("String() of %+v = %q does not parse: %v", *p, s, err)
	}
	if *again != *p {
		t.Fatalf("String() of %+v = %q parses to %+v", *p, s, *again)
	}
}
