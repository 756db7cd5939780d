package diff

import (
	"math"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/sources"
)

// Suggestion is a replacement for a spec that moved or broke: the line
// of the new build that holds the statement the spec probed in the old.
type Suggestion struct {
	Spec string // the spec with its point replaced: FUNC:RLN or SRC:ALN
	Line int    // the line Spec names (relative to FUNC, or for SRC:ALN absolute)
	Text string // the statement, as the new source writes it
	// Matches is how many probeable lines of the function hold the
	// statement; the nearest to the old line is suggested.
	Matches int
}

// minStatement is the shortest statement (without blanks) worth
// suggesting a line for: "}" or "{" are everywhere.
const minStatement = 3

// SuggestQuery is the statement a spec probed in the old build.
type SuggestQuery struct {
	Spec    *grammar.Spec
	OldText string // the source of the line the spec probed
	// Function is the function whose lines are searched in the new
	// build: the spec's, or for SRC:ALN the function the line was in.
	Function string
	File     string // the source file of the old line
	// OldRel is the old line relative to Function's declaration, -1 when
	// not known: of several lines holding the statement, the nearest to
	// it is suggested.
	OldRel int
}

// Suggest finds q's statement among the probeable lines of q.Function in
// the new build t, texts reading its sources: the statement as lazy
// patterns match it, blanks ignored. It returns nil when the spec names
// no single function or file, or no line of the function holds the
// statement.
func Suggest(t *probegen.Target, q SuggestQuery, texts *LineTexts) *Suggestion {
	want := NormalizeStatement(q.OldText)
	if len(want) < minStatement || q.Function == "" || !suggestible(&q.Spec.Point) {
		return nil
	}
	lr := functionLines(t, q.Function, q.File)
	if lr == nil {
		return nil
	}
	lines := texts.file(lr.Path, lr.CompDir)
	var best *Suggestion
	n := 0
	for _, ln := range lr.Lines {
		if ln < 1 || ln > len(lines) || NormalizeStatement(lines[ln-1]) != want {
			continue
		}
		n++
		rel := ln - lr.Offset
		if best == nil || q.OldRel >= 0 && abs(rel-q.OldRel) < abs(best.Line-lr.Offset-q.OldRel) {
			best = &Suggestion{Line: ln, Text: strings.TrimSpace(lines[ln-1])}
		}
	}
	if best == nil {
		return nil
	}
	best.Matches = n
	if !q.Spec.Point.AbsLine() {
		best.Line -= lr.Offset
	}
	best.Spec = withLine(q.Spec, best.Line)
	return best
}

// functionLines is the probeable lines of fn (in file, when fn is in
// several), nil if t has none.
func functionLines(t *probegen.Target, fn, file string) *dwarfres.LineRange {
	if t == nil || t.File == nil {
		return nil // BTF answers no lines
	}
	q := dwarfres.LineQuery{Function: fn, File: file, End: math.MaxInt32}
	lr, err := t.File.FindLineRange(q)
	if err == nil && lr == nil && file != "" {
		q.File = ""
		lr, err = t.File.FindLineRange(q)
	}
	if err != nil {
		return nil
	}
	return lr
}

// DeclLine is the declaration line of fn (in file, when fn is in
// several) in t, 0 when t does not have fn: what FUNC:RLN counts from.
func DeclLine(t *probegen.Target, fn, file string) int {
	if lr := functionLines(t, fn, file); lr != nil {
		return lr.Offset
	}
	return 0
}

// suggestible: the point is one line of one function or file.
func suggestible(p *grammar.Point) bool {
	switch {
	case p.SDT, p.IsAddr, p.Return, p.RetInsns, p.Lazy != "":
		return false
	case p.AbsLine():
		return !lazymatch.IsGlob(p.File)
	}
	return p.Function != "" && !lazymatch.IsGlob(p.Function) && (p.LineGiven() || p.HasOffset)
}

// withLine is spec's command with its point made line n: FUNC[@SRC]:n or
// SRC:n, the event name and arguments as they were.
func withLine(spec *grammar.Spec, n int) string {
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

// LineTexts reads the source lines of probe points: the texts
// Resolutions identifies lines by. It keeps the last maxTextFiles
// files read, so that a run of any number of specs holds a bounded part
// of the tree (a spec file touching every file of the kernel would
// otherwise hold all of its 1.3 GB).
type LineTexts struct {
	src   *sources.Sources
	files map[string][]string // nil: not found
	order []string            // the keys of files, oldest first
}

// maxTextFiles is how many source files LineTexts keeps.
const maxTextFiles = 128

// NewLineTexts reads from the sources src finds.
func NewLineTexts(src *sources.Sources) *LineTexts {
	return &LineTexts{src: src, files: map[string][]string{}}
}

// Texts is the source text of each point's line, "" where the source is
// not found or shorter.
func (lt *LineTexts) Texts(pts []answer.Probe) []string {
	out := make([]string, len(pts))
	for i, p := range pts {
		if lines := lt.file(p.File, ""); p.Line >= 1 && p.Line <= len(lines) {
			out[i] = lines[p.Line-1]
		}
	}
	return out
}

// file is the lines of source file name of a unit compiled in compDir,
// nil when not found.
func (lt *LineTexts) file(name, compDir string) []string {
	if name == "" || lt.src == nil {
		return nil
	}
	key := name + "\x00" + compDir
	if lines, ok := lt.files[key]; ok {
		return lines
	}
	var lines []string
	if p, _, ok := lt.src.Find(name, compDir); ok {
		if b, err := elfobj.ReadRegular(p); err == nil {
			lines = strings.Split(string(b), "\n")
		}
	}
	if len(lt.order) >= maxTextFiles {
		delete(lt.files, lt.order[0])
		lt.order = lt.order[1:]
	}
	lt.files[key] = lines
	lt.order = append(lt.order, key)
	return lines
}
