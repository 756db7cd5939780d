package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/listing"
	"github.com/dwprobe/dwprobe/tracefs"
)

// jsonSchema is the version of the --json objects below. It changes when
// a field is removed or changes meaning; fields may be added within a
// version. README's "JSON output" documents every field, and a test
// checks that it documents these structs' tags.
const jsonSchema = 1

// jsonSpec is one probe command of -D, -a or -V (mode "definition", "add",
// "vars"): what it resolved to, or why it failed.
type jsonSpec struct {
	Schema int        `json:"schema"`
	Mode   string     `json:"mode"`
	Spec   string     `json:"spec"`
	File   string     `json:"file,omitempty"`
	Line   int        `json:"line,omitempty"`
	DryRun bool       `json:"dry_run,omitempty"`
	Points []jsonPt   `json:"points,omitempty"`
	Vars   []jsonVars `json:"vars,omitempty"`
	Notes  []string   `json:"notes,omitempty"`
	Error  *jsonError `json:"error,omitempty"`
}

// jsonPt is one resolved point of a probe and its definition.
type jsonPt struct {
	Address     string    `json:"address"`
	Symbol      string    `json:"symbol,omitempty"`
	Offset      uint64    `json:"offset"`
	SourceFile  string    `json:"source_file,omitempty"`
	SourceLine  int       `json:"source_line,omitempty"`
	Function    string    `json:"function,omitempty"`
	InlinedInto string    `json:"inlined_into,omitempty"`
	Event       string    `json:"event"`
	Definition  string    `json:"definition"`
	Args        []jsonArg `json:"args,omitempty"`
}

// jsonArg is one fetch argument of a definition.
type jsonArg struct {
	Name     string `json:"name"`
	Fetcharg string `json:"fetcharg"`
	Type     string `json:"type,omitempty"`
	Location string `json:"location"`
	// CType and Read: -D and -a, from the point's answer.ArgRead.
	CType string    `json:"c_type,omitempty"`
	Read  *jsonRead `json:"read,omitempty"`
}

// jsonRead is how an argument is read at its point (answer.Location):
// a base, then loads.
type jsonRead struct {
	Kind          string     `json:"kind"`
	Register      string     `json:"register,omitempty"`
	DWARFRegister *int       `json:"dwarf_register,omitempty"`
	Symbol        string     `json:"symbol,omitempty"`
	Address       string     `json:"address,omitempty"`
	FileOffset    bool       `json:"file_offset,omitempty"`
	Loads         []jsonLoad `json:"loads,omitempty"`
	Const         *int       `json:"const,omitempty"`
	Text          string     `json:"text,omitempty"`
	Reason        string     `json:"reason,omitempty"`
}

// jsonLoad is one load of a jsonRead.
type jsonLoad struct {
	Offset int  `json:"offset"`
	User   bool `json:"user,omitempty"`
}

// jsonVars is -V's answer at one address.
type jsonVars struct {
	Point      string           `json:"point"`
	Variables  []string         `json:"variables"`
	Missing    []string         `json:"missing,omitempty"`
	Unreadable []jsonUnreadable `json:"unreadable,omitempty"`
}

// jsonUnreadable is a variable in scope that a probe cannot read.
type jsonUnreadable struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// jsonError is why a probe command failed.
type jsonError struct {
	Message string `json:"message"`
	Column  int    `json:"column,omitempty"`
}

// jsonEvent is one probe event of -l.
type jsonEvent struct {
	Schema     int       `json:"schema"`
	Mode       string    `json:"mode"`
	Event      string    `json:"event"`
	Kind       string    `json:"kind"`
	Definition string    `json:"definition"`
	Point      string    `json:"point"`
	Binary     string    `json:"binary,omitempty"`
	Args       []jsonArg `json:"args,omitempty"`
}

// jsonDeleted is one event -d deleted (or, with dry_run, would delete).
type jsonDeleted struct {
	Schema int    `json:"schema"`
	Mode   string `json:"mode"`
	Event  string `json:"event"`
	DryRun bool   `json:"dry_run,omitempty"`
}

// jsonLines is the listing of -L.
type jsonLines struct {
	Schema      int            `json:"schema"`
	Mode        string         `json:"mode"`
	Function    string         `json:"function,omitempty"`
	SourceFile  string         `json:"source_file"`
	Start       int            `json:"start"`
	SourceFound bool           `json:"source_found"`
	Lines       []jsonListLine `json:"lines"`
}

// jsonListLine is one line of a -L listing.
type jsonListLine struct {
	Line      int             `json:"line"`
	Probeable bool            `json:"probeable"`
	Text      string          `json:"text,omitempty"`
	Points    []jsonLinePoint `json:"points,omitempty"`
}

// jsonLinePoint is one probe point of a listed line (-L --detail).
type jsonLinePoint struct {
	Point       string           `json:"point"`
	Function    string           `json:"function"`
	InlinedInto string           `json:"inlined_into,omitempty"`
	Variables   []jsonVariable   `json:"variables"`
	Missing     []string         `json:"missing,omitempty"`
	Unreadable  []jsonUnreadable `json:"unreadable,omitempty"`
}

// jsonVariable is a variable readable at a point, and its C type.
type jsonVariable struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// jsonFuncs is the function list of -F.
type jsonFuncs struct {
	Schema    int      `json:"schema"`
	Mode      string   `json:"mode"`
	Functions []string `json:"functions"`
}

// writeJSON writes v as one line. Specs and definitions hold '>' and
// '&' ("p->name"): they are written as is, not HTML-escaped.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeSpecsJSON writes one object per probe command of rs; dry marks a
// dry run of -a.
func writeSpecsJSON(w io.Writer, mode string, dry bool, rs []resolved) error {
	for _, r := range rs {
		js := specJSON(mode, r)
		js.DryRun = dry
		if err := writeJSON(w, js); err != nil {
			return err
		}
	}
	return nil
}

// specJSON is r as a jsonSpec.
func specJSON(mode string, r resolved) jsonSpec {
	js := jsonSpec{Schema: jsonSchema, Mode: mode, Spec: r.in.raw, File: r.in.file, Line: r.in.line, Notes: r.notes}
	if r.err != nil {
		js.Error = errJSON(r.in.raw, r.err)
		return js
	}
	for _, pr := range r.probes() {
		d := pr.Definition()
		p := jsonPt{Event: d.PerfName(), Definition: d.String(), Args: argsJSON(d.Args)}
		if hasPoint(pr) {
			pointJSON(&p, pr)
		}
		readsJSON(p.Args, pr.Args)
		js.Points = append(js.Points, p)
	}
	return js
}

// hasPoint reports whether p lies at an address, which its JSON gives:
// a tracepoint probe and a probe resolved from BTF have none.
func hasPoint(p answer.Probe) bool {
	return p.Addr != 0 || p.Kind == answer.ProbeAddress
}

// pointJSON fills p from pr. The address is a hex string: kernel
// addresses do not fit a JSON number's exact range.
func pointJSON(p *jsonPt, pr answer.Probe) {
	p.Address = "0x" + strconv.FormatUint(pr.Addr, 16)
	p.Symbol, p.Offset = pr.ELFSymbol, pr.ELFOffset
	p.SourceFile, p.SourceLine = pr.File, pr.Line
	p.Function, p.InlinedInto = pr.Function, pr.InlinedInto
}

// errJSON is err's message and its column in the spec (as "spec" holds
// it, without the blanks that preceded it on its line).
func errJSON(spec string, err error) *jsonError {
	col, msg := specErr(spec, err)
	return &jsonError{Message: msg, Column: col}
}

// argsJSON describes the fetch arguments of a definition.
func argsJSON(args []tracefs.Arg) []jsonArg {
	var out []jsonArg
	for i, a := range args {
		name := a.Name
		if name == "" {
			name = fmt.Sprintf("arg%d", i+1) // the kernel's name for it
		}
		out = append(out, jsonArg{Name: name, Fetcharg: a.Fetch, Type: a.Type, Location: fetchWhere(a)})
	}
	return out
}

// varsJSON is -V's answer for one command.
func varsJSON(in specInput, lists []listing.VarList, err error) jsonSpec {
	js := jsonSpec{Schema: jsonSchema, Mode: "vars", Spec: in.raw, File: in.file, Line: in.line}
	if err != nil {
		js.Error = errJSON(in.raw, err)
		return js
	}
	for _, vl := range lists {
		jv := jsonVars{Point: vl.Point, Variables: vl.Lines, Missing: vl.Missing}
		if jv.Variables == nil {
			jv.Variables = []string{}
		}
		for _, u := range vl.Unreadable {
			jv.Unreadable = append(jv.Unreadable, jsonUnreadable{u.Name, u.Err.Error()})
		}
		js.Vars = append(js.Vars, jv)
	}
	return js
}

// linesJSON is a -L listing.
func linesJSON(l *listing.Listing) jsonLines {
	jl := jsonLines{Schema: jsonSchema, Mode: "lines", Function: l.Function, SourceFile: l.Path, Start: l.Start, SourceFound: l.Found, Lines: []jsonListLine{}}
	for _, ln := range l.Lines {
		jl.Lines = append(jl.Lines, jsonListLine{Line: ln.Num, Probeable: ln.Probeable || !l.Found, Text: strings.TrimSuffix(ln.Text, "\n"), Points: linePointsJSON(ln.Points)})
	}
	return jl
}

// linePointsJSON is a listed line's points (--detail).
func linePointsJSON(pts []listing.LinePoint) []jsonLinePoint {
	var out []jsonLinePoint
	for _, p := range pts {
		jp := jsonLinePoint{Point: p.Point, Function: p.Function, InlinedInto: p.InlinedInto, Variables: []jsonVariable{}, Missing: p.Vars.Missing}
		for _, l := range p.Vars.Lines {
			typ, name := splitVarLine(l)
			jp.Variables = append(jp.Variables, jsonVariable{Name: name, Type: typ})
		}
		for _, u := range p.Vars.Unreadable {
			jp.Unreadable = append(jp.Unreadable, jsonUnreadable{u.Name, u.Err.Error()})
		}
		out = append(out, jp)
	}
	return out
}

// splitVarLine is the type and name of one of -V's lines: "TYPE\tNAME",
// or with --range "[VAL]\tTYPE\tNAME\tRANGES".
func splitVarLine(l string) (typ, name string) {
	f := strings.Split(l, "\t")
	if strings.HasPrefix(f[0], "[") && len(f) > 1 {
		f = f[1:]
	}
	if len(f) < 2 {
		return "", f[0]
	}
	return f[0], f[1]
}

// funcsJSON is a -F list.
func funcsJSON(names []string) jsonFuncs {
	if names == nil {
		names = []string{}
	}
	return jsonFuncs{Schema: jsonSchema, Mode: "functions", Functions: names}
}

// eventJSON is one event of -l, with its point as -l describes it.
func eventJSON(e tracefs.Event, point, binary string) jsonEvent {
	return jsonEvent{Schema: jsonSchema, Mode: "list", Event: e.PerfName(), Kind: e.Kind.String(),
		Definition: e.String(), Point: point, Binary: binary, Args: argsJSON(listedArgs(e.Args))}
}

// listedArgs are the arguments of a listed event (kprobe_events, a
// batch's definitions: outside text), their fetchargs read.
func listedArgs(args []tracefs.Arg) []tracefs.Arg {
	out := make([]tracefs.Arg, len(args))
	for i, a := range args {
		if a.Read.Base == 0 {
			a.Read = tracefs.ReadFetch(a.Fetch)
		}
		out[i] = a
	}
	return out
}

// deletedJSON is an event -d deleted.
func deletedJSON(event string, dry bool) jsonDeleted {
	return jsonDeleted{Schema: jsonSchema, Mode: "delete", Event: event, DryRun: dry}
}

// fetchWhere describes where argument a's fetcharg reads, in words,
// from its structure (a.Read): "memory at 8 from register %di".
func fetchWhere(a tracefs.Arg) string {
	fe := a.Read
	loads := fe.Loads
	var s string
	switch fe.Base {
	case tracefs.BaseRetval:
		s = "return value"
	case tracefs.BaseComm:
		s = "current task's name"
	case tracefs.BaseStackPointer:
		s = "stack pointer"
	case tracefs.BaseStack:
		s = "stack entry " + strconv.Itoa(fe.N)
	case tracefs.BaseArg:
		s = "function argument " + strconv.Itoa(fe.N)
	case tracefs.BaseRegister:
		s = "register %" + fe.Register
	case tracefs.BaseImmediate, tracefs.BaseString:
		base := fe
		base.Loads = nil
		return "immediate " + strings.TrimPrefix(base.String(), `\`)
	case tracefs.BaseAddress, tracefs.BaseSymbol, tracefs.BaseFileOffset:
		// An address and the load at it.
		at := fe
		at.Loads = loads[:min(1, len(loads))]
		s, loads = "global "+strings.TrimPrefix(at.String(), "@"), loads[len(at.Loads):]
	default: // BTF names, typecasts, this_cpu_*: the kernel's to read
		return "fetcharg " + a.Fetch
	}
	for _, l := range loads {
		space := "memory"
		if l.User {
			space = "user memory"
		}
		if !strings.HasPrefix(s, "register ") {
			s = "(" + s + ")"
		}
		s = fmt.Sprintf("%s at %d from %s", space, l.Offset, s)
	}
	return s
}

// readsJSON adds each argument's C type and read plan to args.
func readsJSON(args []jsonArg, reads []answer.ArgRead) {
	for i := range args {
		if i >= len(reads) {
			return
		}
		args[i].CType, args[i].Read = reads[i].Type.Name, readJSON(reads[i].Loc)
	}
}

// readJSON is l as JSON; an address is a hex string, as a point's is.
func readJSON(l answer.Location) *jsonRead {
	r := &jsonRead{Kind: l.Kind.String(), Register: l.Register, Symbol: l.Symbol, FileOffset: l.FileOffset, Text: l.Text, Reason: l.Reason}
	if l.DWARFRegister >= 0 {
		n := l.DWARFRegister
		r.DWARFRegister = &n
	}
	switch l.Kind {
	case answer.LocAddress:
		r.Address = "0x" + strconv.FormatUint(l.Address, 16)
	case answer.LocConst:
		if l.Text == "" {
			c := int(l.Const)
			r.Const = &c
		}
	}
	for _, ld := range l.Loads {
		r.Loads = append(r.Loads, jsonLoad{Offset: int(ld.Offset), User: ld.User})
	}
	return r
}
