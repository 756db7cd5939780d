package listing

import (
	"bufio"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
)

// TestReadRange: probeable lines are numbered relative to the function,
// the lines between are kept unnumbered, and an open range ends with
// perf's two lines of context.
func TestReadRange(t *testing.T) {
	src := "a\nb\nint f(void)\n{\n\tx();\n\n\treturn 0;\n}\nc\nd\ne\n"
	lr := &dwarfres.LineRange{Offset: 3, Start: 3, End: math.MaxInt32, Lines: []int{3, 5, 7}}
	got, err := readRange(bufio.NewReader(strings.NewReader(src)), lr)
	if err != nil {
		t.Fatal(err)
	}
	want := []ListedLine{
		{0, true, "int f(void)\n", nil}, {1, false, "{\n", nil}, {2, true, "\tx();\n", nil},
		{3, false, "\n", nil}, {4, true, "\treturn 0;\n", nil}, {5, false, "}\n", nil}, {6, false, "c\n", nil}, {7, false, "d\n", nil},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	lr.End, lr.Lines = 5, []int{3, 5}
	if got, _ := readRange(bufio.NewReader(strings.NewReader(src)), lr); len(got) != 3 {
		t.Errorf("closed range [3,5]: %+v", got)
	}
	whole := &dwarfres.LineRange{Start: 0, End: 4, Lines: []int{3}}
	got, err = readRange(bufio.NewReader(strings.NewReader(src)), whole)
	if err != nil || len(got) != 4 || got[0].Num != 1 || !got[2].Probeable || got[2].Num != 3 {
		t.Errorf("a file from line 0: %+v, %v", got, err)
	}
	lr.Lines = []int{3, 40}
	if _, err := readRange(bufio.NewReader(strings.NewReader(src)), lr); !errors.Is(err, ErrShortSource) {
		t.Errorf("a line past the end: %v, want ErrShortSource", err)
	}
}
