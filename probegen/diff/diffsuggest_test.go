package diff

import (
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/sources"
)

// suggestProgram holds "total += i;" twice in work (lines 4 and 7 of
// it) and "int unused;" nowhere.
const suggestProgram = `int work(int n)
{
	int total = 0;
	for (int i = 0; i < n; i++)
		total += i;
	n = n * 2;
	for (int i = 0; i < n; i++)
		total += i;
	return total;
}
int main(int argc, char **argv) { return work(argc) & 1; }
`

// TestSuggest: the line of the new build holding the statement, nearest
// the old line when several do, as FUNC:RLN or SRC:ALN with the spec's
// event and arguments; none for a statement that is gone or too short.
func TestSuggest(t *testing.T) {
	prog := dwarftest.Compile(t, "gcc", "s.c", suggestProgram, "-O0", "-g")
	f, err := dwarfres.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	texts := NewLineTexts(&sources.Sources{})
	for _, tt := range []struct {
		spec, text, fn string
		rel            int
		want           string
		matches        int
	}{
		{"work:3", "total += i;", "work", 3, "work:4", 2},
		{"ev=work:9 total", "\t\ttotal += i;", "work", 9, "ev=work:7 total", 2},
		{"work+12", "n = n * 2;", "work", -1, "work:5", 1},
		{"s.c:30", "return total;", "work", 10, "s.c:9", 1},
		{"work:3", "int unused;", "work", 3, "", 0},
		{"work:3", "}", "work", 3, "", 0},
		{"work%return", "return total;", "work", 8, "", 0},
	} {
		spec, err := grammar.ParseSpec(tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		s := Suggest(&probegen.Target{File: f}, SuggestQuery{Spec: spec, OldText: tt.text, Function: tt.fn, OldRel: tt.rel}, texts)
		switch {
		case tt.want == "" && s != nil:
			t.Errorf("%s %q: suggested %+v", tt.spec, tt.text, *s)
		case tt.want != "" && (s == nil || s.Spec != tt.want || s.Matches != tt.matches):
			t.Errorf("%s %q: got %+v, want %s (%d)", tt.spec, tt.text, s, tt.want, tt.matches)
		}
	}
}
