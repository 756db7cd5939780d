package diff

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
)

// Change is how one spec's resolution changed from an old build to a new
// one, worst last: a spec gets the worst change found.
type Change int

// The changes Resolutions tells apart.
const (
	// NotInOld: the spec did not resolve in the old build, so there is
	// nothing to compare it with.
	NotInOld Change = iota
	// Unchanged: the same points (function, line, inline chain) and the
	// same arguments, read the same way.
	Unchanged
	// ArgsChanged: the same points, but an argument is read differently
	// (another register, the stack, another member offset or type).
	ArgsChanged
	// PointsChanged: the same source statement, but points were added or
	// removed (inlined copies, mostly).
	PointsChanged
	// Moved: the spec resolves, but to another statement than it did in
	// the old build: the line it names holds other code now.
	Moved
	// Broken: the spec no longer resolves.
	Broken
)

var changeNames = [...]string{"not-in-old", "unchanged", "args", "points", "moved", "broken"}

// String is the change's name in reports: "unchanged", "args", "points",
// "moved", "broken" or "not-in-old".
func (c Change) String() string {
	if int(c) < len(changeNames) {
		return changeNames[c]
	}
	return fmt.Sprintf("Change(%d)", int(c))
}

// BuildResolution is what a spec resolved to in one build: Res, or Err.
// Texts[i], when known, is the source text of Res.Probes[i]'s line: it is
// what identifies a line across builds, whose numbers shift. Without the
// texts, Rel[i], when known (not negative), is the line relative to the
// declaration of the point's function, which shifts less.
type BuildResolution struct {
	Res   *answer.Resolution
	Err   error
	Texts []string
	Rel   []int
}

// PointKey identifies a probe point across builds: its function, the
// function it is inlined into, and its line by its source text (spaces
// ignored, as lazy patterns match), or by number (relative to the
// function when known) when the text is not known. A function entry or return is identified by its functions alone.
type PointKey struct {
	Function    string
	InlinedInto string
	Text        string
	Line        int
}

func (k PointKey) String() string {
	s := k.Function
	if k.InlinedInto != "" {
		s += " (inlined into " + k.InlinedInto + ")"
	}
	return s
}

// Point is a point only one build has: its key, where it lies, and
// its line's source text (trimmed; "" when not known).
type Point struct {
	PointKey
	Point answer.Probe
	Text  string
}

// ArgChange is an argument read differently at a point both builds have.
type ArgChange struct {
	Point    PointKey
	Name     string
	Old, New tracefs.Arg
	// What changed: "location" (register, stack, another base), "offset"
	// (a member's offset), "type", or several of them ("location,
	// offset"); "unreadable" (optimized out in the new build) or
	// "readable"; "added" or "removed" for an argument one build lacks.
	What string
}

// Result is how one spec's resolution changed between two builds.
type Result struct {
	Change Change
	// Added and Removed are the points only the new, or only the old,
	// build has.
	Added, Removed []Point
	Args           []ArgChange
	// OldText and NewText are the source text of the first point's line
	// in each build (trimmed), "" when not known.
	OldText, NewText string
}

// Resolutions compares spec's resolutions in an older build and a
// newer one. Points are compared by function, inline chain and line (by
// source text when both builds' texts are known), never by address;
// arguments by their fetch plan, at the points both builds have.
func Resolutions(spec *grammar.Spec, older, newer BuildResolution) Result {
	var d Result
	switch {
	case older.Err != nil || older.Res == nil:
		d.Change = NotInOld
		return d
	case newer.Err != nil || newer.Res == nil:
		d.Change = Broken
		d.OldText = firstText(older)
		return d
	}
	d.OldText, d.NewText = firstText(older), firstText(newer)
	byLine := namesLine(spec)
	oldKeys := pointKeys(older, byLine)
	newKeys := pointKeys(newer, byLine)
	used := make([]bool, len(oldKeys))
	common := 0
	for j, k := range newKeys {
		i := unusedKey(oldKeys, used, k)
		if i < 0 {
			d.Added = append(d.Added, diffPoint(newer, j, k))
			continue
		}
		used[i] = true
		common++
		d.Args = append(d.Args, argChanges(k, older.Res.Probes[i].Definition().Args, newer.Res.Probes[j].Definition().Args)...)
	}
	for i, k := range oldKeys {
		if !used[i] {
			d.Removed = append(d.Removed, diffPoint(older, i, k))
		}
	}
	switch {
	case common == 0 && byLine:
		d.Change = Moved
	case len(d.Added)+len(d.Removed) > 0:
		d.Change = PointsChanged
	case len(d.Args) > 0:
		d.Change = ArgsChanged
	default:
		d.Change = Unchanged
	}
	return d
}

// namesLine reports whether spec's points are lines (FUNC:RLN, SRC:ALN,
// FUNC;PTN, FUNC+OFFS), compared by line, rather than a function's entry
// or return, compared by function: a function whose declaration was
// edited is still the same probe.
func namesLine(spec *grammar.Spec) bool {
	p := spec.Point
	return p.LineGiven() || p.HasOffset && p.Offset != 0 || p.Lazy != "" || p.IsAddr
}

// unusedKey is the index of the first key of keys equal to k not yet
// used, -1 if none.
func unusedKey(keys []PointKey, used []bool, k PointKey) int {
	for i, o := range keys {
		if !used[i] && o == k {
			return i
		}
	}
	return -1
}

func diffPoint(b BuildResolution, i int, k PointKey) Point {
	dp := Point{PointKey: k, Point: b.Res.Probes[i]}
	if i < len(b.Texts) {
		dp.Text = strings.TrimSpace(b.Texts[i])
	}
	return dp
}

func firstText(b BuildResolution) string {
	if len(b.Texts) == 0 {
		return ""
	}
	return strings.TrimSpace(b.Texts[0])
}

// pointKeys are the keys of b's points. Texts (or relative lines) are
// used only when every point has one: a key with a text never equals one
// with a line.
func pointKeys(b BuildResolution, byLine bool) []PointKey {
	withText := len(b.Texts) == len(b.Res.Probes)
	for _, t := range b.Texts {
		withText = withText && t != ""
	}
	withRel := len(b.Rel) == len(b.Res.Probes)
	for _, r := range b.Rel {
		withRel = withRel && r >= 0
	}
	keys := make([]PointKey, len(b.Res.Probes))
	for i, p := range b.Res.Probes {
		k := PointKey{Function: p.Function, InlinedInto: p.InlinedInto}
		if p.Function == "" {
			k.Function = p.ELFSymbol
		}
		switch {
		case !byLine:
		case withText:
			k.Text = NormalizeStatement(b.Texts[i])
		case withRel:
			k.Line = b.Rel[i]
		default:
			k.Line = p.Line
		}
		keys[i] = k
	}
	return keys
}

// NormalizeStatement is a source line as statements are compared across
// builds: without blanks, as lazy patterns ignore them.
func NormalizeStatement(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
}

// argChanges compares the arguments of one point in two builds, by
// position (the spec's order).
func argChanges(k PointKey, older, newer []tracefs.Arg) []ArgChange {
	var out []ArgChange
	for i := 0; i < max(len(older), len(newer)); i++ {
		c := ArgChange{Point: k}
		switch {
		case i >= len(newer):
			c.Old, c.What = older[i], "removed"
		case i >= len(older):
			c.New, c.What = newer[i], "added"
		default:
			c.Old, c.New = older[i], newer[i]
			c.What = fetchChange(older[i], newer[i])
		}
		if c.What == "" {
			continue
		}
		c.Name = changedArgName(c.Old, c.New, i)
		out = append(out, c)
	}
	return out
}

func changedArgName(older, newer tracefs.Arg, i int) string {
	switch {
	case older.Name != "":
		return older.Name
	case newer.Name != "":
		return newer.Name
	}
	return fmt.Sprintf("arg%d", i+1)
}

// fetchChange says what differs between two fetch plans, "" if nothing:
// the base they read from (a register, a stack slot, a symbol) or how
// deep they dereference is the location; the offsets of the
// dereferences, a member's offset; then the type. Several are joined:
// "location, offset". An argument optimized out at one of its points is
// read there as perf's placeholder (probegen.ArgPlaceholder):
// "unreadable" when it is so only in the new build, "readable" when only
// in the old.
func fetchChange(older, newer tracefs.Arg) string {
	switch op, np := probegen.IsArgPlaceholder(older.Read), probegen.IsArgPlaceholder(newer.Read); {
	case np && !op:
		return "unreadable"
	case op && !np:
		return "readable"
	}
	ob, oo := fetchShape(older.Read)
	nb, no := fetchShape(newer.Read)
	var what []string
	if ob != nb || len(oo) != len(no) {
		what = append(what, "location")
	}
	if len(oo) == len(no) && strings.Join(oo, ",") != strings.Join(no, ",") {
		what = append(what, "offset")
	}
	if older.Type != newer.Type {
		what = append(what, "type")
	}
	return strings.Join(what, ", ")
}

// fetchShape splits a fetcharg into its base and its dereference
// offsets, innermost first, as written: "+8(+0(%di))" is "%di" and
// ["+0", "+8"]; a stack slot is a base: "+8(-24(%bp))" is "-24(%bp)" and
// ["+8"]; a global's offset, where written, is a member's:
// "@init_task+2416" is "@init_task" and ["+2416"]; this CPU's copy of a
// per-CPU variable is its symbol and the form: "this_cpu_read(@x)" is "@x"
// and ["this_cpu_read"].
func fetchShape(f tracefs.Fetch) (base string, offs []string) {
	loads := f.Loads
	switch f.Base {
	case tracefs.BaseSymbol:
		base, loads = "@"+f.Symbol, loads[min(1, len(loads)):]
		if f.Addr != 0 || f.SymOffset {
			offs = append(offs, offsetText(tracefs.Load{Offset: f.Addr}))
		}
	case tracefs.BaseAddress, tracefs.BaseFileOffset:
		mem := f
		mem.Loads = loads[:min(1, len(loads))]
		base, loads = mem.String(), loads[len(mem.Loads):]
	case tracefs.BasePerCPU:
		fn := "this_cpu_ptr"
		if len(loads) > 0 && loads[0] == (tracefs.Load{}) {
			fn, loads = "this_cpu_read", loads[1:]
		}
		base, offs = "@"+f.Symbol, []string{fn}
	default:
		b := f
		b.Loads = nil
		base = b.String()
	}
	for _, l := range loads {
		offs = append(offs, offsetText(l))
	}
	if len(offs) > 0 && frameRegs[base] {
		// A stack slot: its offset says where, not which member.
		base, offs = offs[0]+"("+base+")", offs[1:]
	}
	return base, offs
}

// offsetText is a load's offset as a fetcharg writes it: "+8", "-24",
// "+u0".
func offsetText(l tracefs.Load) string {
	s := "+"
	if l.Offset < 0 {
		s = "-"
	}
	if l.User {
		s += "u"
	}
	if l.Offset < 0 {
		return s + strconv.FormatUint(uint64(-(l.Offset+1))+1, 10)
	}
	return s + strconv.FormatInt(l.Offset, 10)
}

// frameRegs are the stack and frame pointers of the machines' fetchargs.
var frameRegs = map[string]bool{"%sp": true, "%bp": true, "%x29": true, "%fp": true}

// Counts counts the specs of each change.
type Counts map[Change]int

// String lists the counts, worst last: "3 unchanged, 1 moved".
func (c Counts) String() string {
	var keys []int
	for k := range c {
		keys = append(keys, int(k))
	}
	sort.Ints(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", c[Change(k)], Change(k)))
	}
	return strings.Join(parts, ", ")
}
