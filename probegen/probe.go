package probegen

import (
	"debug/elf"
	"fmt"
	"strconv"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/internal/ctype"
	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/arch"
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

// Probe is one probe point of a resolved spec: what it attaches to, on
// which machine, its source position and inline context, its event's
// name and its argument reads. It holds everything a program needs to
// attach there itself (a cilium/ebpf link.Kprobe or link.Uprobe:
// probegen/ebpfprobe) and to read its arguments; the definition dwprobe
// writes to tracefs is rendered from it (Definition).
type Probe struct {
	Kind ProbeKind
	// EventKind is the kind of dynamic event the definition is: a
	// kprobe, a uprobe, an fprobe (ResolveOptions.FProbe) or a
	// tracepoint probe.
	EventKind tracefs.Kind
	// User is set for a uprobe (a user binary); unset for a kernel probe.
	User bool
	// Return is set for a probe written as a return probe (a kretprobe,
	// a uretprobe, an fprobe's %return): FUNC%return, not FUNC%ret, whose
	// probes sit at return instructions.
	Return bool
	// Machine is the probed code's machine, which the argument reads'
	// registers are of.
	Machine elf.Machine
	// Group and Name name the event ("probe", "vfs_read_L12").
	Group, Name string
	// Attach is where the kernel attaches the probe: what the
	// definition's target says, as data.
	Attach Attach
	// Addr is the link-time address of the point (the address given, for
	// 0xADDR); 0 where no address is known (a tracepoint probe, a probe
	// resolved from BTF).
	Addr uint64
	// ELFSymbol is the ELF symbol covering Addr, ELFOffset Addr's offset
	// in it; "" and 0 where no symbol covers it. This is the symbol of
	// the address, which Attach.Symbol is not always: see Attach.
	ELFSymbol string
	ELFOffset uint64
	// File and Line are the source position; "" and 0 when the debuginfo
	// does not say (a symbol-table probe, an absolute address).
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
}

// Attach is where the kernel attaches a probe, as data: the parts of its
// definition's target.
type Attach struct {
	// Symbol and Offset are what a kprobe or fprobe is written at
	// (link.Kprobe's symbol and KprobeOptions.Offset): the function's
	// symbol and the offset in it, or, for a function whose name is not
	// unique, "_text" (in a module, the closest unique symbol before the
	// address) and the offset from there. Symbol is "" for an absolute
	// address (0xADDR), which Offset then is; for a tracepoint probe
	// Symbol is the tracepoint. Both are unset for a uprobe.
	Symbol string
	Offset uint64
	// Module is the kernel module's name, "" for the kernel itself and
	// for uprobes.
	Module string
	// Binary is the user binary probed (an absolute path, as the uprobe
	// names it); "" for a kernel probe. FileOffset is the uprobe's offset
	// in Binary (what the kernel and link.UprobeOptions.Address take).
	// RefCtrOffset is the file offset of an SDT marker's semaphore (the
	// uprobe's reference counter), 0 where there is none.
	Binary       string
	FileOffset   uint64
	RefCtrOffset uint64
}

// target is a's place as a definition of kind k writes it:
// "[MOD:]SYM+OFFS" or "0xADDR" (kprobe), "PATH:0xOFFS[(0xREFCTR)]"
// (uprobe), "SYM[%return]" (fprobe), the tracepoint (t:).
func (a Attach) target(k tracefs.Kind, ret bool) string {
	switch k {
	case tracefs.UProbe:
		s := a.Binary + ":0x" + strconv.FormatUint(a.FileOffset, 16)
		if a.RefCtrOffset != 0 {
			s += "(0x" + strconv.FormatUint(a.RefCtrOffset, 16) + ")"
		}
		return s
	case tracefs.FProbe:
		if ret {
			return a.Symbol + "%return"
		}
		return a.Symbol
	case tracefs.TProbe:
		return a.Symbol
	}
	s := a.place()
	if a.Module != "" {
		s = a.Module + ":" + s
	}
	return s
}

// place is a kprobe's SYM+OFFS (or 0xADDR) without its module.
func (a Attach) place() string {
	if a.Symbol == "" {
		return "0x" + strconv.FormatUint(a.Offset, 16)
	}
	return a.Symbol + "+" + strconv.FormatUint(a.Offset, 10)
}

// eventType is the definition's type letter for kind k.
func eventType(k tracefs.Kind, ret bool) byte {
	switch {
	case k == tracefs.FProbe:
		return 'f'
	case k == tracefs.TProbe:
		return 't'
	case ret:
		return 'r'
	}
	return 'p'
}

// Definition is the definition dwprobe writes to tracefs for p, rendered
// from p's fields: "p:probe/vfs_read_L12 vfs_read+114 f_mode=+68(%di):x32".
func (p *Probe) Definition() tracefs.Event {
	d := tracefs.Event{Kind: p.EventKind, Type: eventType(p.EventKind, p.Return), Group: p.Group, Name: p.Name, Target: p.Attach.target(p.EventKind, p.Return)}
	if len(p.Args) > 0 {
		d.Args = make([]tracefs.Arg, len(p.Args))
		for i, a := range p.Args {
			d.Args[i] = a.arg()
		}
	}
	return d
}

// ArgRead is one argument at one probe point: what it is and how to read
// it there.
type ArgRead struct {
	// Name is the argument's name in the definition ("f_mode", "buf_1"),
	// or the kernel's name for an argument the definition leaves unnamed
	// ("arg2").
	Name string
	// Fetcharg is the definition's fetch argument ("+68(%di)", "$arg1",
	// "@jiffies"), as the kernel reads it: Fetch.String(), or a spec's
	// raw fetcharg as the user wrote it. Fetch is the same fetcharg as a
	// structure, and Loc the same read as a plan on the probed machine.
	Fetcharg string
	Fetch    tracefs.Fetch
	Type     CType
	Loc      Location
	// unnamed: the definition writes no NAME= (the kernel names it Name);
	// untyped: no :TYPE (the kernel types it Type.Fetch, a BTF kernel's
	// $argN and $retval).
	unnamed, untyped bool
}

// arg is a as the definition writes it.
func (a ArgRead) arg() tracefs.Arg {
	name, typ := a.Name, a.Type.Fetch
	if a.unnamed {
		name = ""
	}
	if a.untyped {
		typ = ""
	}
	return tracefs.Arg{Name: name, Fetch: a.Fetcharg, Type: typ, Read: a.Fetch}
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
func typeOfVal(cur ctype.Val) cvalType {
	if cur.Type == nil {
		return cvalType{}
	}
	n, _ := ctype.Name(cur.Type)
	tp, ok := ctype.Real(cur.Type)
	return cvalType{name: n, pointer: ok && tp.Kind() == ctype.Ptr}
}

// argRead describes argument fa of a definition on machine a; ct is its C
// type (zero where unknown); absent says why it is not readable at this
// point ("" where it is). Without plan, its Location is left out.
func argRead(a *arch.Arch, fa tracefs.Arg, ct cvalType, absent string, addr func(string) (uint64, bool), plan bool) ArgRead {
	r := ArgRead{Name: fa.Name, Fetcharg: fa.Fetch, Fetch: fa.Read, Type: CType{Name: ct.name, Pointer: ct.pointer, Fetch: fa.Type}}
	r.Type.FetchType, _ = tracefs.ParseType(fa.Type)
	switch {
	case !plan:
		return r
	case absent != "":
		r.Loc = Location{Kind: LocUnreadable, DWARFRegister: -1, Reason: absent}
		return r
	case a == nil:
		r.Loc = Location{Kind: LocUnreadable, DWARFRegister: -1, Reason: "no machine model of the target's architecture"}
		return r
	}
	r.Loc = locationOf(a, fa.Read, addr)
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

// probesOf describes d's definitions as Probes, d.pts[i] the point of
// d.defs[i]. brief leaves out what costs a lookup per point: the ELF
// symbol covering the address, the source position and the arguments'
// read plans.
func probesOf(t *dwarfres.File, spec *grammar.Spec, exe string, d *resolved, brief bool) []Probe {
	a, _ := arch.For(t.ELF.Machine)
	addr := symbolAddr(t)
	out := make([]Probe, len(d.defs))
	for i, def := range d.defs {
		p := Probe{Kind: kindOf(&spec.Point), EventKind: def.Kind, User: exe != "", Return: def.Return(), Machine: t.ELF.Machine, Group: def.Group, Name: def.Name}
		if i < len(d.pts) {
			pt := &d.pts[i]
			p.Attach, p.Addr, p.Function = pt.at, pt.addr, pt.realname
			if spec.Point.IsAddr {
				p.Addr, p.Function = spec.Point.Addr, ""
			}
			if !brief {
				placePoint(&p, t, pt)
			}
		}
		var slots []argSlot
		if i < len(d.slots) {
			slots = d.slots[i]
		}
		p.Args = argReads(a, def, slots, addr, !brief)
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

// placePoint fills in p's ELF symbol and source position from the symbol
// table and the scope found while resolving pt.
func placePoint(p *Probe, t *dwarfres.File, pt *point) {
	if s, ok := t.Symbols().At(p.Addr); ok && p.Addr != 0 {
		p.ELFSymbol, p.ELFOffset = s.Name, p.Addr-s.Start
	}
	if pt.scope != nil {
		p.File, p.Line, _ = pt.scope.Source()
		if fn := pt.scope.Func(); fn != "" && fn != pt.realname {
			p.InlinedInto = fn
		}
	} else if p.ELFSymbol != "" && p.ELFOffset == 0 {
		// A point from the symbol table (a return probe, a function
		// without a DWARF match) at a function's entry: the source
		// position of an entry is the function's declaration.
		if fd, ok, err := t.FuncAt(p.Addr); err == nil && ok && fd.Line != 0 {
			p.File, p.Line = fd.File, fd.Line
		}
	}
}

// kindOf is the kind of point p names.
func kindOf(p *grammar.Point) ProbeKind {
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
func argReads(a *arch.Arch, def tracefs.Event, slots []argSlot, addr func(string) (uint64, bool), plan bool) []ArgRead {
	var out []ArgRead
	for j, fa := range def.Args {
		var ct cvalType
		absent := ""
		untyped, unnamed := false, fa.Name == ""
		if j < len(slots) && len(slots) == len(def.Args) {
			ct, absent = slots[j].ctype, slots[j].absent
			// As the kernel names and types what the definition leaves
			// to it: the definition stays as written.
			if fa.Name == "" {
				fa.Name = slots[j].kname
			}
			if fa.Type == "" && slots[j].kfetch != "" {
				fa.Type, untyped = slots[j].kfetch, true
			}
		}
		if fa.Name == "" {
			fa.Name = "arg" + strconv.Itoa(j+1) // as the kernel names it
		}
		r := argRead(a, fa, ct, absent, addr, plan)
		r.unnamed, r.untyped = unnamed, untyped
		out = append(out, r)
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
