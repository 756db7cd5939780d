package probegen

import (
	"fmt"
	"strconv"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen/arch"
	"github.com/dwprobe/dwprobe/tracefs"
)

// ProbeKind is what a probe point is in its function.
type ProbeKind uint8

const (
	// ProbeEntry: a function's entry (FUNC, FUNC+0, past the prologue
	// for a user binary's variables).
	ProbeEntry ProbeKind = iota + 1
	// ProbeLine: a source line (FUNC:RLN, SRC:ALN, ;PTN).
	ProbeLine
	// ProbeOffset: FUNC+OFFS, an instruction inside a function.
	ProbeOffset
	// ProbeReturn: a function's return (FUNC%return), or for FUNC%ret a
	// return instruction.
	ProbeReturn
	// ProbeSDT: an SDT marker (%PROVIDER:NAME).
	ProbeSDT
	// ProbeAddress: an absolute address (0xADDR).
	ProbeAddress
	// ProbeTracepoint: a tracepoint probe (t:TRACEPOINT).
	ProbeTracepoint
)

var probeKindNames = [...]string{ProbeEntry: "entry", ProbeLine: "line", ProbeOffset: "offset", ProbeReturn: "return", ProbeSDT: "sdt", ProbeAddress: "address", ProbeTracepoint: "tracepoint"}

func (k ProbeKind) String() string { return enumName(probeKindNames[:], k, "ProbeKind") }

// Probe is one probe point of a resolved spec, with everything a program
// needs to attach there itself (a cilium/ebpf link.Kprobe or link.Uprobe:
// probegen/ebpfprobe) and to read its arguments, and the definition
// dwprobe writes to tracefs for it.
type Probe struct {
	Kind ProbeKind
	// User is set for a uprobe (a user binary); unset for a kernel probe.
	User bool
	// Binary is the user binary probed (an absolute path, as the uprobe
	// names it); "" for a kernel probe. Module is the kernel module's
	// name, "" for the kernel itself and for uprobes.
	Binary, Module string
	// FileOffset is the uprobe's offset in Binary (what the kernel and
	// link.UprobeOptions.Address take); 0 for a kernel probe.
	FileOffset uint64
	// RefCtrOffset is the file offset of an SDT marker's semaphore (the
	// uprobe's reference counter), 0 where there is none.
	RefCtrOffset uint64
	// Symbol and Offset are the function symbol and the offset in it:
	// what a kprobe is written at (link.Kprobe's symbol and
	// KprobeOptions.Offset). For a kernel probe Symbol may be "_text" for
	// a function whose name is not unique, with Offset from there.
	Symbol string
	Offset uint64
	// Addr is the link-time address; 0 for an absolute-address uprobe.
	Addr uint64
	// File and Line are the source position; "" and 0 when the debuginfo
	// does not say.
	File string
	Line int
	// Function is the function probed: the inlined function at an
	// inline site. InlinedInto is the out-of-line function holding that
	// site, "" when Function is not inlined there.
	Function, InlinedInto string
	// Copy numbers the copy of Function the point is in (the out-of-line
	// function, or one place it is inlined), from 0, in the order of the
	// points; the points of one copy share it. First is set on the
	// point at the lowest address of its copy for its line: a line the
	// compiler spread over several places (a point each, as perf writes
	// them) has one First per copy. A tool wanting about one record per
	// execution of the line attaches the First points only; where the
	// compiler made the line's places alternative paths, the others fire
	// on paths First does not. Points found without debuginfo (symbols,
	// SDT markers, BTF) are each a copy of their own, and First.
	Copy  int
	First bool
	// Args are the spec's arguments at this point, in the definition's
	// order ($vars and $params expanded).
	Args []ArgRead
	// Event is the definition dwprobe writes for this point.
	Event tracefs.Event
}

// ArgRead is one argument at one probe point: what it is and how to read
// it there.
type ArgRead struct {
	// Name is the argument's name in the definition ("f_mode", "buf_1").
	Name string
	Type CType
	Loc  Location
}

// CType is an argument's type: its C type where the debuginfo gives one,
// and the size and form the value is read in.
type CType struct {
	// Name is the C type in perf 6.12's spelling ("struct file*", "int",
	// "char[]"); "" where no C type is known (a register, $argN, $comm).
	Name string
	// Pointer is set when the C type is a pointer.
	Pointer bool
	// FetchType is how the value is read: size, signedness, string,
	// bitfield, array (tracefs's reading of Fetch).
	tracefs.FetchType
	// Fetch is the definition's fetch type ("x64", "string", "b4@2/32"),
	// "" for the kernel's default.
	Fetch string
}

// cvalType is the C type of an argument as the member walk ends on it.
type cvalType struct {
	name    string
	pointer bool
}

// typeOfVal is cur's type for CType; zero when cur has none.
func typeOfVal(cur cval) cvalType {
	if cur.typ == nil {
		return cvalType{}
	}
	n, _ := typeName(cur.typ)
	tp, ok := realType(cur.typ)
	return cvalType{name: n, pointer: ok && tp.kind() == cPtr}
}

// argRead describes argument fa of a definition on machine a; ct is its C
// type (zero where unknown); absent says why it is not readable at this
// point ("" where it is).
func argRead(a *arch.Arch, fa tracefs.Arg, ct cvalType, absent string, addr func(string) (uint64, bool)) ArgRead {
	r := ArgRead{Name: fa.Name, Type: CType{Name: ct.name, Pointer: ct.pointer, Fetch: fa.Type}}
	r.Type.FetchType, _ = tracefs.ParseType(fa.Type)
	switch {
	case absent != "":
		r.Loc = Location{Kind: LocUnreadable, DWARFRegister: -1, Reason: absent}
		return r
	case a == nil:
		r.Loc = Location{Kind: LocUnreadable, DWARFRegister: -1, Reason: "no machine model of the target's architecture"}
		return r
	}
	r.Loc = locationOf(a, fa, addr)
	return r
}

// symbolAddr is a global's link-time address in t, for Location.
func symbolAddr(t *dwarfres.File) func(string) (uint64, bool) {
	return func(name string) (uint64, bool) {
		if t == nil {
			return 0, false
		}
		return t.SymbolAddr(name)
	}
}

// probesOf describes d's definitions as Probes, pts[i] the point of
// d.defs[i].
func probesOf(t *dwarfres.File, spec *Spec, exe string, d *resolved, pts []ResolvedPoint) []Probe {
	a, _ := arch.For(t.ELF.Machine)
	addr := symbolAddr(t)
	out := make([]Probe, len(d.defs))
	for i, def := range d.defs {
		p := Probe{Kind: kindOf(&spec.Point), User: exe != "", Event: def}
		if i < len(pts) {
			rp := pts[i]
			p.Symbol, p.Offset, p.Addr = rp.Symbol, rp.Offset, rp.Addr
			p.File, p.Line, p.Function, p.InlinedInto = rp.File, rp.Line, rp.Function, rp.InlinedInto
		}
		placeProbe(&p, t, exe, def)
		var slots []argSlot
		if i < len(d.slots) {
			slots = d.slots[i]
		}
		p.Args = argReads(a, def, slots, addr)
		out[i] = p
	}
	markCopies(out, d.pts)
	return out
}

// markCopies sets the probes' Copy and First, pts[i] being the point of
// probes[i] (nil scopes and missing points: a copy each).
func markCopies(probes []Probe, pts []point) {
	type line struct {
		copy int
		file string
		line int
	}
	copies := map[uint64]int{} // scope DIE -> Copy
	lowest := map[line]uint64{}
	n := 0
	for i := range probes {
		p := &probes[i]
		if i >= len(pts) || pts[i].scope == nil {
			p.Copy, p.First = n, true
			n++
			continue
		}
		off := pts[i].scope.DIEOffset()
		c, ok := copies[off]
		if !ok {
			c = n
			copies[off] = c
			n++
		}
		p.Copy = c
		k := line{c, p.File, p.Line}
		if a, ok := lowest[k]; !ok || p.Addr < a {
			lowest[k] = p.Addr
		}
	}
	for i := range probes {
		p := &probes[i]
		if i < len(pts) && pts[i].scope != nil {
			p.First = lowest[line{p.Copy, p.File, p.Line}] == p.Addr
		}
	}
}

// placeProbe fills in where the kernel attaches p: a uprobe's binary,
// file offset and reference counter from its definition, a kprobe's
// symbol and offset as written (which may be _text+OFFS) and module.
func placeProbe(p *Probe, t *dwarfres.File, exe string, def tracefs.Event) {
	if exe != "" {
		p.Binary = exe
		_, p.FileOffset, _ = tracefs.UprobeTarget(def.Target)
		p.RefCtrOffset, _ = tracefs.UprobeRefCtr(def.Target)
		return
	}
	if t.IsModule() {
		p.Module = t.ModuleName()
	}
	if _, sym, off, ok := tracefs.KprobeTarget(def.Target); ok {
		p.Symbol, p.Offset = sym, off
	}
}

// kindOf is the kind of point p names.
func kindOf(p *Point) ProbeKind {
	switch {
	case p.SDT:
		return ProbeSDT
	case p.Return || p.RetInsns:
		return ProbeReturn
	case p.IsAddr:
		return ProbeAddress
	case p.HasLine || p.Lazy != "":
		return ProbeLine
	case p.HasOffset && p.Offset != 0:
		return ProbeOffset
	}
	return ProbeEntry
}

// argReads describes def's arguments; slots are their slots at this
// point (nil where the spec's arguments were not converted here: SDT,
// BTF).
func argReads(a *arch.Arch, def tracefs.Event, slots []argSlot, addr func(string) (uint64, bool)) []ArgRead {
	var out []ArgRead
	for j, fa := range def.Args {
		var ct cvalType
		absent := ""
		if j < len(slots) && len(slots) == len(def.Args) {
			ct, absent = slots[j].ctype, slots[j].absent
			// As the kernel names and types what the definition leaves
			// to it: the definition stays as written.
			if fa.Name == "" {
				fa.Name = slots[j].kname
			}
			if fa.Type == "" {
				fa.Type = slots[j].kfetch
			}
		}
		if fa.Name == "" {
			fa.Name = "arg" + strconv.Itoa(j+1) // as the kernel names it
		}
		out = append(out, argRead(a, fa, ct, absent, addr))
	}
	return out
}

// String writes a for people: "total (int) = *(%bp-4)", "name (char*) =
// string at *(*(%bp-24))": a string is read at the address the last load
// would read from.
func (a ArgRead) String() string {
	head := a.Name
	if a.Type.Name != "" {
		head += " (" + a.Type.Name + ")"
	}
	loc := a.Loc
	if !a.Type.String || !loc.Memory() {
		return head + " = " + loc.String()
	}
	last := loc.Loads[len(loc.Loads)-1]
	loc.Loads = loc.Loads[:len(loc.Loads)-1]
	at := loc.String()
	switch {
	case last.Offset > 0:
		at = fmt.Sprintf("%s+%d", at, last.Offset)
	case last.Offset < 0:
		at = fmt.Sprintf("%s%d", at, last.Offset)
	}
	if last.User {
		return head + " = user string at " + at
	}
	return head + " = string at " + at
}
