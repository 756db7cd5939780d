package grammar

import (
	"errors"
	"math"
	"testing"
)

func TestParseLineRange(t *testing.T) {
	const open = math.MaxInt32
	cases := []struct {
		in   string
		want LineRange
		col  int // >0: syntax error at this column
	}{
		{in: "vfs_read", want: LineRange{Function: "vfs_read", End: open}},
		{in: "vfs_read:10", want: LineRange{Function: "vfs_read", Start: 10, End: open}},
		{in: "vfs_read:10+3", want: LineRange{Function: "vfs_read", Start: 10, End: 12}},
		{in: "vfs_read:10-20", want: LineRange{Function: "vfs_read", Start: 10, End: 20}},
		{in: "vfs_read:-3", want: LineRange{Function: "vfs_read", Start: -3, End: open}},
		{in: "vfs_read@fs/read_write.c", want: LineRange{Function: "vfs_read", File: "fs/read_write.c", End: open}},
		{in: "vfs_read@fs/read_write.c:4", want: LineRange{Function: "vfs_read", File: "fs/read_write.c", Start: 4, End: open}},
		{in: "fs/read_write.c:460-465", want: LineRange{File: "fs/read_write.c", Start: 460, End: 465}},
		{in: "read_write.c", want: LineRange{File: "read_write.c", End: open}},
		{in: "vfs_read@*", want: LineRange{Function: "vfs_read", End: open}},
		// Issue 15: C++, Rust and Go names.
		{in: "geo::Box::grow", want: LineRange{Function: "geo::Box::grow", End: open}},
		{in: "r::inner::scale:1-2", want: LineRange{Function: "r::inner::scale", Start: 1, End: 2}},
		{in: `"geo::Box::operator<":1`, want: LineRange{Function: "geo::Box::operator<", Start: 1, End: open}},
		{in: "main.positional:3", want: LineRange{Function: "main.positional", Start: 3, End: open}},
		{in: "example.com/gofix/shapes.(*Rect).Scale", want: LineRange{Function: "example.com/gofix/shapes.(*Rect).Scale", End: open}},
		{in: "main.go:3", want: LineRange{File: "main.go", Start: 3, End: open}},
		{in: ":10", col: 1},
		{in: "vfs_read:", col: 10},
		{in: "vfs_read:x", col: 10},
		{in: "vfs_read:10+", col: 13},
		{in: "vfs_read:10+0", col: 13},
		{in: "vfs_read:20-10", col: 10},
		{in: "vfs_read:10@fs/x.c", col: 12},
		{in: "@*", col: 1},
		{in: "1abc", col: 1},
	}
	for _, c := range cases {
		got, err := ParseLineRange(c.in)
		if c.col > 0 {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Col != c.col {
				t.Errorf("ParseLineRange(%q) = %v, %v; want a syntax error at column %d", c.in, got, err, c.col)
			}
			continue
		}
		if err != nil || *got != c.want {
			t.Errorf("ParseLineRange(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

func FuzzParseLineRange(f *testing.F) {
	for _, s := range []string{"vfs_read", "vfs_read:10+3", "fs/read_write.c:460-465", "vfs_read@*", "a\\:b:1", ":", "x:-1-2", "geo::Box::grow:1-2", `"ns::operator<":1`, "main.positional:3", "example.com/m/p.(*T).M"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lr, err := ParseLineRange(s)
		if (err == nil) == (lr == nil) {
			t.Fatalf("ParseLineRange(%q): result %v with error %v", s, lr, err)
		}
		if err == nil && lr.Start > lr.End {
			t.Fatalf("ParseLineRange(%q): start %d after end %d", s, lr.Start, lr.End)
		}
	})
}
