package grammar

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestReadSpecs(t *testing.T) {
	long := strings.Repeat("x", MaxSpecLine+1)
	tests := []struct {
		name    string
		in      string
		want    []SpecLine
		errLine int // 0: no error
	}{
		{"empty", "", nil, 0},
		{"one", "vfs_read\n", []SpecLine{{1, 0, "vfs_read"}}, 0},
		{"no final newline", "vfs_read", []SpecLine{{1, 0, "vfs_read"}}, 0},
		{"comments and blanks", "# header\n\n  \t\nvfs_read:3 count\n  # indented comment\nschedule\n",
			[]SpecLine{{4, 0, "vfs_read:3 count"}, {6, 0, "schedule"}}, 0},
		{"indent kept for columns", "\t  vfs_read+ \n", []SpecLine{{1, 3, "vfs_read+"}}, 0},
		{"CRLF", "vfs_read\r\n\r\nschedule cpu\r\n", []SpecLine{{1, 0, "vfs_read"}, {3, 0, "schedule cpu"}}, 0},
		{"byte-order mark", "\uFEFFvfs_read\n\uFEFFschedule\n", []SpecLine{{1, 0, "vfs_read"}, {2, 0, "\uFEFFschedule"}}, 0},
		{"byte-order mark and a comment", "\uFEFF# specs\n  vfs_read\n", []SpecLine{{2, 2, "vfs_read"}}, 0},
		{"hash inside a spec", "f;a#b*\n", []SpecLine{{1, 0, "f;a#b*"}}, 0},
		{"line too long", "vfs_read\n" + long + "\nschedule\n", []SpecLine{{1, 0, "vfs_read"}}, 2},
		{"longest line", strings.Repeat("y", MaxSpecLine-1) + "\n", []SpecLine{{1, 0, strings.Repeat("y", MaxSpecLine-1)}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadSpecs(strings.NewReader(tt.in))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if tt.errLine == 0 {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				return
			}
			var fe *SpecFileError
			if !errors.As(err, &fe) || fe.Line != tt.errLine || !errors.Is(err, ErrLineTooLong) {
				t.Fatalf("error %v, want line %d too long", err, tt.errLine)
			}
		})
	}
}

// FuzzReadSpecs: a spec file never panics; every command read is
// non-empty, trimmed, not a comment, on an increasing line, and is the
// text of its line once the line is trimmed.
func FuzzReadSpecs(f *testing.F) {
	for _, s := range []string{"", "vfs_read\n", "# c\n\n a b \r\n", "\r\n\r", "x\ny\n\n#z", strings.Repeat("a", 100) + "\n\t\t#\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ReadSpecs(strings.NewReader(in))
		if err != nil && !errors.Is(err, ErrLineTooLong) {
			t.Fatalf("error %v from a string reader", err)
		}
		lines := strings.Split(in, "\n")
		prev := 0
		for _, l := range got {
			if l.Text == "" || l.Text[0] == '#' || strings.Trim(l.Text, " \t") != l.Text {
				t.Fatalf("bad command %q", l.Text)
			}
			if l.Line <= prev || l.Line > len(lines) {
				t.Fatalf("line %d after %d of %d", l.Line, prev, len(lines))
			}
			prev = l.Line
			raw := strings.TrimSuffix(lines[l.Line-1], "\r")
			if l.Line == 1 {
				raw = strings.TrimPrefix(raw, "\uFEFF") // not the file's text
			}
			if raw[l.Indent:l.Indent+len(l.Text)] != l.Text {
				t.Fatalf("line %d %q: text %q not at %d", l.Line, raw, l.Text, l.Indent)
			}
		}
	})
}
