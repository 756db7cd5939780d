package main

import (
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/probegen"
)

// TestAlikeNotes: the notes of one kind said at several points are one
// line, the first with how many more it holds for; a kind said once and
// the notes of no kind stay as they are, in order.
func TestAlikeNotes(t *testing.T) {
	n := func(k probegen.NoteKind, s string) probegen.Note { return probegen.Note{Kind: k, Text: s} }
	for _, c := range []struct {
		in   []probegen.Note
		want string
	}{
		{nil, ""},
		{[]probegen.Note{n(probegen.NoteNotrace, "a")}, "a"},
		{[]probegen.Note{n(probegen.NoteNotUnique, "u1"), n(probegen.NoteNotUnique, "u2"), n(probegen.NoteNotrace, "t1"),
			n(probegen.NoteOther, "o1"), n(probegen.NoteOther, "o2"), n(probegen.NoteNotrace, "t2"), n(probegen.NoteNotrace, "t3"), n(probegen.NoteNearest, "near")},
			"u1 (and 1 more point alike: -v says each)|t1 (and 2 more points alike: -v says each)|o1|o2|near"},
	} {
		if got := strings.Join(alikeNotes(c.in), "|"); got != c.want {
			t.Errorf("alikeNotes(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
