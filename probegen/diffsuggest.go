package probegen

import (
	"os"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/lazymatch"
)

// Suggestion is a replacement for a spec that moved or broke: the line
// of the new build that holds the statement the spec probed in the old.
type Suggestion struct {
	Spec string // the spec with its point replaced: FUNC:RLN or SRC:ALN
	Line int    // the line Spec names (relative to FUNC, or absolute)
	Text string // the statement, as the new source writes it
	// Matches is how many probeable lines of the function (or file)
	// hold the statement; the nearest to the old line is suggested.
	Matches int
}

// minStatement is the shortest statement (without blanks) worth
// suggesting a line for: "}" or "{" are everywhere.
const minStatement = 3

// Suggest finds oldText, the source of the line spec probed in the old
// build, among the probeable lines of spec's function (or, for SRC:ALN,
// of its file) in the new build t, with its sources src: the statement
// as lazy patterns match it, blanks ignored. It returns nil when spec
// names no single function or file, or no line holds the statement.
func Suggest(t *dwarfres.File, spec *Spec, oldText string, src *Sources) *Suggestion {
	p := spec.Point
	want := NormalizeStatement(oldText)
	if len(want) < minStatement || !suggestible(&p) {
		return nil
	}
	rng := p.Function
	switch {
	case p.AbsLine():
		rng = p.File
	case p.File != "":
		rng += "@" + p.File
	}
	l, err := ListLines(t, rng, src)
	if err != nil || !l.Found {
		return nil
	}
	var best *Suggestion
	n := 0
	for _, ln := range l.Lines {
		if !ln.Probeable || NormalizeStatement(ln.Text) != want {
			continue
		}
		n++
		if best == nil || abs(ln.Num-p.Line) < abs(best.Line-p.Line) {
			best = &Suggestion{Line: ln.Num, Text: strings.TrimSpace(ln.Text)}
		}
	}
	if best == nil {
		return nil
	}
	best.Matches = n
	best.Spec = withLine(spec, best.Line)
	return best
}

// suggestible: the point is one line of one function or file.
func suggestible(p *Point) bool {
	switch {
	case p.SDT, p.IsAddr, p.Return, p.RetInsns, p.Lazy != "":
		return false
	case p.AbsLine():
		return !lazymatch.IsGlob(p.File)
	}
	return p.Function != "" && !lazymatch.IsGlob(p.Function) && (p.lineGiven() || p.HasOffset)
}

// withLine is spec's command with its point made line n: FUNC[@SRC]:n or
// SRC:n, the event name and arguments as they were.
func withLine(spec *Spec, n int) string {
	raw := spec.Raw
	end := strings.IndexAny(raw, " \t")
	if end < 0 {
		end = len(raw)
	}
	head, rest := raw[:end], raw[end:]
	prefix := ""
	if spec.Point.Event != "" {
		if i := strings.IndexByte(head, '='); i >= 0 {
			prefix = head[:i+1]
		}
	}
	p := spec.Point
	pt := p.File + ":" + strconv.Itoa(n)
	if !p.AbsLine() {
		pt = p.Function
		if p.File != "" {
			pt += "@" + p.File
		}
		pt += ":" + strconv.Itoa(n)
	}
	return prefix + pt + rest
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// LineTexts reads the source lines of probe points, each file once: the
// texts DiffResolutions identifies lines by.
type LineTexts struct {
	src   *Sources
	files map[string][]string // nil: not found
}

// NewLineTexts reads from the sources src finds.
func NewLineTexts(src *Sources) *LineTexts {
	return &LineTexts{src: src, files: map[string][]string{}}
}

// Texts is the source text of each point's line, "" where the source is
// not found or shorter.
func (lt *LineTexts) Texts(pts []ResolvedPoint) []string {
	out := make([]string, len(pts))
	for i, p := range pts {
		if lines := lt.file(p.File); p.Line >= 1 && p.Line <= len(lines) {
			out[i] = lines[p.Line-1]
		}
	}
	return out
}

func (lt *LineTexts) file(name string) []string {
	if name == "" || lt.src == nil {
		return nil
	}
	if lines, ok := lt.files[name]; ok {
		return lines
	}
	var lines []string
	if p, _, ok := lt.src.Find(name, ""); ok {
		if b, err := os.ReadFile(p); err == nil {
			lines = strings.Split(string(b), "\n")
		}
	}
	lt.files[name] = lines
	return lines
}
