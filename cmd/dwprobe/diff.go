package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/diff"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/sources"
	"github.com/dwprobe/dwprobe/tracefs"
)

// errProbesChanged: --diff found probes that resolve differently in the
// new build, all of them still at the statement they probed.
var errProbesChanged = errors.New("probes changed")

// diffBuild is one build of a --diff: its debuginfo, sources and the
// options specs resolve with.
type diffBuild struct {
	t     *probegen.Target
	exe   string
	src   *sources.Sources
	texts *diff.LineTexts
	res   *probegen.Resolver
	decls map[[2]string]int // declaration lines by function and file
}

// specDiff is one spec of a --diff and how it changed.
type specDiff struct {
	in       specInput
	old, new resolved
	d        diff.Result
	suggest  *diff.Suggestion
	// invalid: the spec is no probe command (a syntax error), in
	// either build; old and new hold its error.
	invalid bool
}

// checkDiffOptions: --diff compares the -D specs of two builds.
func checkDiffOptions(o *options) error {
	switch {
	case o.diffNew == "" && o.diffSource != "":
		return errors.New("--diff-source is the source of the --diff build: give --diff NEW")
	case o.diffNew == "":
		return nil
	case len(o.defs) == 0:
		return errors.New("--diff compares the specs of -D (-D @FILE for a file of them) in two builds: give -D")
	case o.bootconfig:
		return errors.New("--diff and --bootconfig do not go together")
	case o.btf != "":
		return errors.New("--diff compares two builds' debuginfo: it does not go with --btf")
	}
	return checkSourceDirOf("--diff-source", o.diffSource)
}

// runDiff implements --diff: each spec of -D resolved in the -k/-m/-x
// build and in the --diff build, and how it changed. Specs are read as
// they come and each verdict is printed as it is reached, in spec order:
// only the counts are kept, so a file of any length runs in the memory of
// one spec. A signal ends the run with the verdicts printed so far and no
// verdict for the spec at hand.
func runDiff(ctx context.Context, o *options, tgt *probegen.Target, stdout, stderr io.Writer) error {
	if err := checkSpecFiles(ctx, o.defs); err != nil {
		return err
	}
	oldB := newDiffBuild(o, tgt)
	no := *o
	no.vmlinux, no.exec, no.module, no.source = newTargetOf(o)
	// The new build is opened as the old one was: what answers for it
	// (its DWARF, its symbols, BTF or SDT notes) is the library's choice.
	ntgt, err := openTarget(&no)
	if err != nil {
		return err
	}
	defer ntgt.Close()
	if !ntgt.HasFile() {
		return ntgt.Why // BTF alone: no build to compare points with
	}
	if err := sameMachine(o.diffNew, tgt.Built(), ntgt.Built()); err != nil {
		return err
	}
	useIndex(&no, ntgt, stderr)
	newB := newDiffBuild(&no, ntgt)
	var tally diffTally
	err = eachSpec(ctx, o.defs, func(in specInput) error {
		if ctx.Err() != nil {
			return tally.interrupted()
		}
		sd := diffSpec(in, oldB, newB)
		if ctx.Err() != nil {
			// The signal came while the spec resolved: its answer
			// may be cut short, so it gets no verdict.
			return tally.interrupted()
		}
		if tally.add(sd)%releaseEvery == 0 {
			tgt.ReleasePages()
			ntgt.ReleasePages()
		}
		return printDiff(o, stdout, sd)
	})
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, errSpecsInterrupted) {
			return tally.interrupted() // stdin's read, cut by the signal
		}
		return err
	}
	return tally.status(o, stderr)
}

// sameMachine refuses a --diff between builds of two machines: no point
// of one is a point of the other (6.1's amd64 vmlinux and 6.12's arm64).
func sameMachine(newName string, old, new probegen.Built) error {
	om, nm := old.Machine, new.Machine
	if om == nm {
		return nil
	}
	return errorWith(errOtherMachine, "--diff compares two builds of one target: %s is for %s, the old build for %s", newName, tracefs.MachineName(nm), tracefs.MachineName(om))
}

// errOtherMachine: --diff's two builds are for different machines.
var errOtherMachine = errors.New("builds of different machines")

// newTargetOf is the --diff build in place of the old: the same kind of
// target (-k, -x or -m), with --diff-source as its source.
func newTargetOf(o *options) (vmlinux, exec, module, source string) {
	switch {
	case o.exec != "":
		return "", o.diffNew, "", o.diffSource
	case o.module != "":
		return "", "", o.diffNew, o.diffSource
	}
	return o.diffNew, "", "", o.diffSource
}

func newDiffBuild(o *options, tgt *probegen.Target) *diffBuild {
	src := tgt.Sources()
	res := tgt.Resolver(probegen.ResolveOptions{NoInlines: o.noInlines, MaxProbes: o.maxProbes, FProbe: o.fprobe})
	// A failing line is named with its neighbours, not their text (the
	// verdict shows the new build's text itself).
	res.Options.LineText = nil
	return &diffBuild{t: tgt, exe: tgt.Exe(), src: src, texts: diff.NewLineTexts(src), res: res, decls: map[[2]string]int{}}
}

// resolve resolves in in b (an SDT marker from its note), with the
// source text of each point's line.
func (b *diffBuild) resolve(in specInput) (resolved, diff.BuildResolution) {
	r := resolveSpec(b.res, in)
	br := diff.BuildResolution{Err: r.err}
	if r.err == nil {
		br.Res = r.res
		br.Texts = b.texts.Texts(r.probes())
		if slices.Contains(br.Texts, "") {
			br.Rel = b.relLines(r.probes())
		}
	}
	return r, br
}

// maxDecls is how many declaration lines a build keeps.
const maxDecls = 4096

// relLines are the lines of pts relative to their functions'
// declarations, -1 where not known.
func (b *diffBuild) relLines(pts []answer.Probe) []int {
	out := make([]int, len(pts))
	for i, p := range pts {
		out[i] = b.relLine(p.Function, p.File, p.Line)
	}
	return out
}

// relLine is line of fn's file relative to fn's declaration, -1 when
// not known.
func (b *diffBuild) relLine(fn, file string, line int) int {
	if fn == "" || line <= 0 {
		return -1
	}
	k := [2]string{fn, file}
	decl, ok := b.decls[k]
	if !ok {
		decl = diff.DeclLine(b.t, fn, file)
		if len(b.decls) >= maxDecls {
			clear(b.decls) // a run's memory stays bounded
		}
		b.decls[k] = decl
	}
	if decl == 0 {
		return -1
	}
	return line - decl
}

// diffSpec resolves in in both builds and compares; a spec that moved or
// broke gets the line of the new build holding its old statement, if one
// does and the spec resolves there.
func diffSpec(in specInput, oldB, newB *diffBuild) specDiff {
	sd := specDiff{in: in}
	var ob, nb diff.BuildResolution
	sd.old, ob = oldB.resolve(in)
	if sd.old.spec == nil && errors.Is(sd.old.err, grammar.ErrSyntax) {
		sd.new, sd.invalid = sd.old, true
		return sd
	}
	sd.new, nb = newB.resolve(in)
	if sd.old.spec == nil {
		sd.d.Change = diff.NotInOld
		return sd
	}
	sd.d = diff.Resolutions(sd.old.spec, ob, nb)
	if sd.d.Change != diff.Moved && sd.d.Change != diff.Broken {
		return sd
	}
	s := diff.Suggest(newB.t, suggestQuery(sd, oldB), newB.texts)
	if s == nil {
		return sd
	}
	if r, _ := newB.resolve(specInput{raw: s.Spec}); r.err == nil {
		sd.suggest = s
	}
	return sd
}

// suggestQuery is the statement sd's spec probed in the old build: for
// FUNC:RLN and FUNC+OFFS in FUNC, for SRC:ALN in the function that held
// the line.
func suggestQuery(sd specDiff, oldB *diffBuild) diff.SuggestQuery {
	spec := sd.old.spec
	q := diff.SuggestQuery{Spec: spec, OldText: sd.d.OldText, Function: spec.Point.Function, File: spec.Point.File, OldRel: -1}
	if len(sd.old.probes()) == 0 {
		return q
	}
	p := sd.old.probes()[0]
	switch {
	case spec.Point.AbsLine():
		q.Function, q.File = p.Function, p.File
		q.OldRel = oldB.relLine(p.Function, p.File, p.Line)
	case spec.Point.HasLine:
		q.OldRel = spec.Point.Line
	default:
		q.OldRel = oldB.relLine(q.Function, q.File, p.Line)
	}
	return q
}

// broke: the spec no longer probes what it did.
func broke(c diff.Change) bool { return c == diff.Moved || c == diff.Broken }

// diffTally counts a --diff's verdicts as they are reached: all a run
// of any length keeps.
type diffTally struct {
	counts           diff.Counts
	total, invalid   int // specs given; those that are no probe command
	nbroke, nchanged int
}

// add counts sd and returns how many specs were counted.
func (c *diffTally) add(sd specDiff) int {
	c.total++
	if sd.invalid {
		c.invalid++
		return c.total
	}
	if c.counts == nil {
		c.counts = diff.Counts{}
	}
	c.counts[sd.d.Change]++
	switch {
	case broke(sd.d.Change):
		c.nbroke++
	case sd.d.Change != diff.Unchanged:
		c.nchanged++
	}
	return c.total
}

// interrupted is the error of a run a signal ended: how far it got, or
// the context's own error before any verdict (worded "interrupted:
// nothing was printed or saved").
func (c *diffTally) interrupted() error {
	if c.total == 0 {
		return context.Canceled
	}
	return fmt.Errorf("%w after %d specs; the verdicts above are theirs", errSpecsInterrupted, c.total)
}

// summary is the counts line: "7 probes: 1 unchanged, 2 args", and the
// specs that are no probe command apart: "; 3 syntax errors".
func (c *diffTally) summary() string {
	s := probesWord(c.total - c.invalid)
	if len(c.counts) > 0 {
		s += ": " + c.counts.String()
	}
	switch {
	case c.invalid == 1:
		s += "; 1 syntax error"
	case c.invalid > 1:
		s += fmt.Sprintf("; %d syntax errors", c.invalid)
	}
	return s
}

// status prints the counts on stderr (unless -q) and returns the run's
// status: nil if every spec is unchanged; an unresolved-class error if one
// broke (moved or no longer resolves) or is no probe command (a syntax
// error, counted apart: it is no change); errProbesChanged otherwise.
func (c *diffTally) status(o *options, stderr io.Writer) error {
	if !o.quiet {
		fmt.Fprintln(stderr, c.summary())
	}
	var bad []string
	if c.invalid > 0 {
		if c.total == 1 {
			return errorWith(grammar.ErrSyntax, "the spec is not a probe command (a syntax error)")
		}
		bad = append(bad, fmt.Sprintf("%d of %d specs are not probe commands (syntax errors)", c.invalid, c.total))
	}
	n := c.total - c.invalid
	switch {
	case c.nbroke > 0 && n == 1:
		bad = append(bad, fmt.Sprintf("the probe broke in %s (moved to another statement or no longer resolves)", o.diffNew))
	case c.nbroke > 0:
		bad = append(bad, fmt.Sprintf("%d of %d probes broke in %s (moved to another statement or no longer resolve)", c.nbroke, n, o.diffNew))
	}
	switch {
	case len(bad) > 0:
		return errorWith(dwarfres.ErrNotFound, "%s", strings.Join(bad, "; "))
	case c.nchanged > 0 && n == 1:
		return errorWith(errProbesChanged, "the probe resolves differently in %s", o.diffNew)
	case c.nchanged > 0:
		return errorWith(errProbesChanged, "%d of %d probes resolve differently in %s", c.nchanged, n, o.diffNew)
	}
	return nil
}

func probesWord(n int) string {
	if n == 1 {
		return "1 probe"
	}
	return fmt.Sprintf("%d probes", n)
}

// printDiff prints one spec's change: with --json one object, else a
// line "CHANGE SPEC" and the details indented under it.
func printDiff(o *options, w io.Writer, sd specDiff) error {
	if o.json {
		return writeJSON(w, diffJSON(sd))
	}
	fmt.Fprintf(w, "%-10s %s\n", sd.change(), sd.in.raw)
	for _, l := range diffDetails(sd) {
		fmt.Fprintf(w, "           %s\n", l)
	}
	return nil
}

// diffDetails words what changed, one line each.
func diffDetails(sd specDiff) []string {
	if sd.invalid {
		return []string{syntaxLine(sd.in, sd.old.err)}
	}
	var out []string
	d := sd.d
	switch d.Change {
	case diff.NotInOld:
		out = append(out, "does not resolve in the old build: "+errLine(sd.in, sd.old.err))
	case diff.Broken:
		out = append(out, "no longer resolves: "+errLine(sd.in, sd.new.err))
	case diff.Moved:
		out = append(out, fmt.Sprintf("was %s, now %s", pointText(sd.old, d.OldText), pointText(sd.new, d.NewText)))
	}
	if d.Change == diff.PointsChanged {
		for _, p := range d.Added {
			out = append(out, "+ "+diffPointText(p))
		}
		for _, p := range d.Removed {
			out = append(out, "- "+diffPointText(p))
		}
	}
	seen, where := map[string]bool{}, placesOf(sd.new.probes()) > 1
	for _, a := range d.Args {
		// Points of one line usually read an argument alike: say it once.
		l := fmt.Sprintf("%s: %s -> %s (%s)", a.Name, argText(a.Old.Fetch, a.Old.Type), argText(a.New.Fetch, a.New.Type), a.What)
		if where {
			l += " at " + a.Point.String()
		}
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	if s := sd.suggest; s != nil {
		more := ""
		if s.Matches > 1 {
			more = fmt.Sprintf(" (nearest of %d lines holding it)", s.Matches)
		}
		out = append(out, fmt.Sprintf("suggest: %s%s", s.Spec, more))
	}
	return out
}

// placesOf counts the functions (out of line, or inlined into one) pts
// are in.
func placesOf(pts []answer.Probe) int {
	seen := map[[2]string]bool{}
	for _, p := range pts {
		seen[[2]string{p.Function, p.InlinedInto}] = true
	}
	return len(seen)
}

// diffPointText is a point one build lacks: its function, and for a
// spec naming lines, where it lies.
func diffPointText(p diff.Point) string {
	s := p.PointKey.String()
	if p.PointKey.Text == "" && p.PointKey.Line == 0 {
		return s
	}
	s += fmt.Sprintf(" at %s:%d", p.Point.File, p.Point.Line)
	if p.Text != "" {
		s += fmt.Sprintf(" %q", p.Text)
	}
	return s
}

// invalidChange is the verdict of a spec that is no probe command.
const invalidChange = "invalid"

// change is sd's verdict: its change, or "invalid".
func (sd specDiff) change() string {
	if sd.invalid {
		return invalidChange
	}
	return sd.d.Change.String()
}

// syntaxLine words a spec's syntax error: where in the file, when from
// one ("specs.txt:3:9: syntax error: argument expression missing").
func syntaxLine(in specInput, err error) string {
	col, msg := specErr(in.raw, err)
	if in.file == "" {
		return "syntax error: " + msg
	}
	return fmt.Sprintf("%s:%d:%d: syntax error: %s", in.file, in.line, in.indent+max(col, 1), msg)
}

func errLine(in specInput, err error) string {
	_, msg := specErr(in.raw, err)
	return msg
}

// pointText is a resolution's first point: FUNC at FILE:LINE "statement".
func pointText(r resolved, text string) string {
	if len(r.probes()) == 0 {
		return "?"
	}
	p := r.probes()[0]
	s := p.Function
	if s == "" {
		s = fmt.Sprintf("%s+%d", p.ELFSymbol, p.ELFOffset)
	}
	if p.File != "" {
		s += fmt.Sprintf(" at %s:%d", p.File, p.Line)
	}
	if text != "" {
		s += fmt.Sprintf(" %q", text)
	}
	return s
}

func argText(fetch, typ string) string {
	switch {
	case fetch == "":
		return "(none)"
	case typ == "":
		return fetch
	}
	return fetch + ":" + typ
}

// jsonDiff is one spec of --diff (mode "diff").
type jsonDiff struct {
	Schema     int             `json:"schema"`
	Mode       string          `json:"mode"`
	Spec       string          `json:"spec"`
	File       string          `json:"file,omitempty"`
	Line       int             `json:"line,omitempty"`
	Change     string          `json:"change"`
	Old        *jsonSpec       `json:"old"`
	New        *jsonSpec       `json:"new"`
	OldText    string          `json:"old_text,omitempty"`
	NewText    string          `json:"new_text,omitempty"`
	Added      []jsonDiffPoint `json:"added,omitempty"`
	Removed    []jsonDiffPoint `json:"removed,omitempty"`
	Args       []jsonArgChange `json:"args,omitempty"`
	Suggestion *jsonSuggestion `json:"suggestion,omitempty"`
}

// jsonDiffPoint is a point only one build has.
type jsonDiffPoint struct {
	Function    string `json:"function"`
	InlinedInto string `json:"inlined_into,omitempty"`
	SourceFile  string `json:"source_file,omitempty"`
	SourceLine  int    `json:"source_line,omitempty"`
	Text        string `json:"text,omitempty"`
}

// jsonArgChange is an argument read differently.
type jsonArgChange struct {
	Name        string `json:"name"`
	Function    string `json:"function"`
	InlinedInto string `json:"inlined_into,omitempty"`
	What        string `json:"what"`
	OldFetcharg string `json:"old_fetcharg,omitempty"`
	OldType     string `json:"old_type,omitempty"`
	NewFetcharg string `json:"new_fetcharg,omitempty"`
	NewType     string `json:"new_type,omitempty"`
}

// jsonSuggestion is the line of the new build holding the old statement.
type jsonSuggestion struct {
	Spec    string `json:"spec"`
	Text    string `json:"text"`
	Matches int    `json:"matches"`
}

func diffJSON(sd specDiff) jsonDiff {
	js := jsonDiff{Schema: jsonSchema, Mode: "diff", Spec: sd.in.raw, File: sd.in.file, Line: sd.in.line,
		Change: sd.change(), OldText: sd.d.OldText, NewText: sd.d.NewText}
	old, new := specJSON("definition", sd.old), specJSON("definition", sd.new)
	js.Old, js.New = &old, &new
	for _, p := range sd.d.Added {
		js.Added = append(js.Added, diffPointJSON(p))
	}
	for _, p := range sd.d.Removed {
		js.Removed = append(js.Removed, diffPointJSON(p))
	}
	for _, a := range sd.d.Args {
		js.Args = append(js.Args, jsonArgChange{Name: a.Name, Function: a.Point.Function, InlinedInto: a.Point.InlinedInto,
			What: a.What, OldFetcharg: a.Old.Fetch, OldType: a.Old.Type, NewFetcharg: a.New.Fetch, NewType: a.New.Type})
	}
	if s := sd.suggest; s != nil {
		js.Suggestion = &jsonSuggestion{Spec: s.Spec, Text: s.Text, Matches: s.Matches}
	}
	return js
}

func diffPointJSON(p diff.Point) jsonDiffPoint {
	return jsonDiffPoint{Function: p.Function, InlinedInto: p.InlinedInto, SourceFile: p.Point.File, SourceLine: p.Point.Line, Text: p.Text}
}
