package main

import (
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/probegen/answer"
)

// TestAlikeNotes: the notes of one kind said at several points are one
// line, the first with how many more it holds for; a kind said once and
// the notes of no kind stay as they are, in order.
func TestAlikeNotes(t *testing.T) {
	n := func(k answer.NoteKind, s string) answer.Note { return answer.Note{Kind: k, Text: s} }
	for _, c := range []struct {
		in   []answer.Note
		want string
	}{
		{nil, ""},
		{[]answer.Note{n(answer.NoteNotrace, "a")}, "a"},
		{[]answer.Note{n(answer.NoteNotUnique, "u1"), n(answer.NoteNotUnique, "u2"), n(answer.NoteNotrace, "t1"),
			n(answer.NoteOther, "o1"), n(answer.NoteOther, "o2"), n(answer.NoteNotrace, "t2"), n(answer.NoteNotrace, "t3"), n(answer.NoteNearest, "near")},
			"u1 (and 1 more point alike: -v says each)|t1 (and 2 more points alike: -v says each)|o1|o2|near"},
	} {
		if got := strings.Join(alikeNotes(c.in), "|"); got != c.want {
			t.Errorf("alikeNotes(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
