package tracefs

import (
	"strconv"
	"testing"
)

// TestLineByte pins the kind of every byte.
func TestLineByte(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := PlainByte
		switch {
		case c == ' ':
			want = SpaceByte
		case c == '\n':
			want = NewlineByte
		case c == 0:
			want = NULByte
		case c == '\t', c == '\r', c == 0x1b, c == 0x1f, c == 0x7f, c > 0 && c < 0x20:
			want = ControlByte
		case c == '#':
			want = CommentByte
		case c == 0xa0:
			want = NBSPByte
		}
		if got := LineByte(byte(c)); got != want {
			t.Errorf("LineByte(%#x) = %d, want %d", c, got, want)
		}
	}
}

// TestByteProblems pins what a whole line and a field refuse, and the
// words, for each kind of byte.
func TestByteProblems(t *testing.T) {
	for _, c := range []struct {
		s           string
		line, field string
		at          int
	}{
		{"a b", "", "contains a space", 0},
		{"a\nb", "newline at byte 1 would start a second command", `contains control character '\n'`, 1},
		{"a\x00b", "NUL at byte 1 would end the command", `contains control character '\x00'`, 1},
		{"a\tb", `control character '\t' at byte 1`, `contains control character '\t'`, 1},
		{"ab\x7f", `control character '\x7f' at byte 2`, `contains control character '\x7f'`, 2},
		{"a#b", "'#' at byte 1 would start a comment and drop the rest", "contains '#', which starts a comment", 1},
		{"\xc3\xa0", "byte 0xa0 at byte 1, which the kernel reads as a space", "contains byte 0xa0, which the kernel reads as a space", 1},
		{"p:g/e f x=+0(%di):u8 \xc3\xa9", "", "contains a space", 0},
	} {
		line, at := byteProblem(c.s)
		if line != c.line || at != c.at {
			t.Errorf("byteProblem(%s) = %q, %d; want %q, %d", strconv.Quote(c.s), line, at, c.line, c.at)
		}
		if field := fieldProblem(c.s); field != c.field {
			t.Errorf("fieldProblem(%s) = %q; want %q", strconv.Quote(c.s), field, c.field)
		}
	}
}
