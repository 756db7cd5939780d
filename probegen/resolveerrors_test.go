package probegen

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/sources"
)

// TestResolveErrors pins the messages of the resolution errors, with and
// without the hint a caller words, and what they wrap.
func TestResolveErrors(t *testing.T) {
	cases := []struct {
		err  error
		hint func()
		want string
		is   error
	}{
		{&TooManyError{Function: "vfs_*", N: 76, Max: 2}, nil, `too many functions match "vfs_*" (76 > max 2)`, dwarfres.ErrTooMany},
		{&LazyMissError{Pattern: "x", File: "fs/a.c"}, nil, `lazy pattern "x" matches no line with code in fs/a.c`, dwarfres.ErrNotFound},
		{&LazyMissError{Pattern: "x", Function: "f", Lines: []int{0, 3}}, nil, `lazy pattern "x" matches no line with code in f; its probeable lines are 0 3`, dwarfres.ErrNotFound},
		{&sources.SourceError{File: "a.c", Tried: []string{"/s/a.c", "a.c"}}, nil, "lazy pattern needs the source of a.c: not found (tried /s/a.c, a.c)", fs.ErrNotExist},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%T: %q, want %q", c.err, got, c.want)
		}
		if !errors.Is(c.err, c.is) {
			t.Errorf("%T does not wrap %v", c.err, c.is)
		}
	}
}

// TestPointErrorHint: a hint filled in after wrapping shows in the message.
func TestPointErrorHint(t *testing.T) {
	inner := &TooManyError{Function: "f*", N: 3, Max: 2}
	var err error = &PointError{Spec: "f*%return", Err: inner}
	var many *TooManyError
	if !errors.As(err, &many) {
		t.Fatal("PointError hides its cause")
	}
	many.Limit = "--max-probes"
	if want := `probe "f*%return": too many functions match "f*" (3 > --max-probes 2)`; err.Error() != want {
		t.Errorf("%q, want %q", err, want)
	}
}

// TestPrologueNote: the note of a probe moved past an -O0 prologue names
// the entry as a spec the user can write back (FUNC+0, which does not
// move), never an address: a uprobe's would be virtual where the
// definition writes a file offset (rustc's binaries differ by 0x1000).
func TestPrologueNote(t *testing.T) {
	pr := dwarfres.Probe{Addr: 0x1527c, PrologueOf: 0x15270, Func: "work"}
	for _, c := range []struct {
		p    grammar.Point
		want string
	}{
		{grammar.Point{Function: "work"}, "probe work+0 to force"},
		{grammar.Point{Function: "r::inner::scale"}, "probe r::inner::scale+0 to force"},
		{grammar.Point{Function: "work", File: "app.c"}, "probe work+0@app.c to force"},
		{grammar.Point{Function: "add<long>"}, "probe add<long>+0 to force"},
		{grammar.Point{Function: "ns::C::operator+"}, `probe ns::C::operator\++0 to force`},
	} {
		got := prologueNote(&c.p, pr)
		if !strings.Contains(got, c.want) || !strings.Contains(got, "12 bytes past its entry") || strings.Contains(got, "0x") {
			t.Errorf("%+v: %q, want %q", c.p, got, c.want)
		}
		entry := got[strings.Index(got, "(probe ")+len("(probe ") : strings.Index(got, " to force")]
		if q, err := grammar.ParsePoint(entry); err != nil || q.Function != c.p.Function || q.File != c.p.File || !q.HasOffset || q.Offset != 0 {
			t.Errorf("%+v: the note's %q reads back as %+v, %v", c.p, entry, q, err)
		}
	}
}

// TestNoCodeNearest: --nearest takes the closer of the lines around one
// without code, the following one on a tie (it runs next), and the
// message names both with their source when it was read.
func TestNoCodeNearest(t *testing.T) {
	at := func(spec string, line int, text string) NearLine { return NearLine{Spec: spec, Line: line, Text: text} }
	for _, c := range []struct {
		e    NoCodeError
		want string
		msg  string
	}{
		{NoCodeError{Point: "'f:7'", Function: "f", Line: 7, Before: at("f:6", 6, "a();"), After: at("f:8", 8, "")},
			"f:8", "nearest probeable lines: f:6 (a();) and f:8"},
		{NoCodeError{Point: "'f:7'", Function: "f", Line: 7, Before: at("f:6", 6, ""), After: at("f:9", 9, "")},
			"f:6", "nearest probeable lines: f:6 and f:9"},
		{NoCodeError{Point: "'f:1'", Function: "f", Line: 1, Before: at("f:0", 0, "int f(void)"), After: at("f:3", 3, "")},
			"f:0", "nearest probeable lines: f:0 (int f(void)) and f:3"},
		{NoCodeError{Point: "'x.c:99'", File: "x.c", Line: 99, Before: at("x.c:40", 40, "return 0;"), Last: true},
			"x.c:40", "the file's last probeable line is x.c:40 (return 0;)"},
	} {
		if got := c.e.Nearest().Spec; got != c.want {
			t.Errorf("%s: Nearest = %s, want %s", c.e.Point, got, c.want)
		}
		if msg := c.e.Error(); !strings.Contains(msg, c.msg) || !errors.Is(&c.e, dwarfres.ErrNotFound) {
			t.Errorf("%s: %q, want it to contain %q and wrap ErrNotFound", c.e.Point, msg, c.msg)
		}
	}
}
