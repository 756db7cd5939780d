package probegen

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
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
		{&SourceError{File: "a.c", Tried: []string{"/s/a.c", "a.c"}}, nil, "lazy pattern needs the source of a.c: not found (tried /s/a.c, a.c)", fs.ErrNotExist},
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
