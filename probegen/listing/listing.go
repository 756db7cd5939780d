package listing

import (
	"debug/elf"
	"fmt"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
)

// EventLine is perf's perf_probe_event__sprintf, one line of perf probe's
// "Added new event:" and -l output:
//
//	probe:vfs_read_L12   (on vfs_read:12@fs/read_write.c with f_mode buf)
//	probe_app:work_L7    (on work:7 in /tmp/app with name=p->name:string)
//
// each indented by two spaces, GROUP:EVENT padded to 20 columns; module is
// a kernel module or the probed binary ("" for the kernel), args are
// already rendered.
func EventLine(group, event, point, module string, args []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %-20s (on %s", group+":"+event, point)
	if module != "" {
		b.WriteString(" in " + module)
	}
	if len(args) > 0 {
		b.WriteString(" with")
		for _, a := range args {
			b.WriteString(" " + a)
		}
	}
	b.WriteByte(')')
	return b.String()
}

// SpecPoint renders the point of a spec as perf probe shows a probe it
// added (synthesize_perf_probe_point on the command as typed): "vfs_read",
// "work:7", "compute%return", "@app_util.c:42", "0xffffffff81000000".
func SpecPoint(p *grammar.Point) string {
	if p.SDT { // perf's point of a cached event: %EVENT
		return "%" + p.Event
	}
	if p.IsAddr {
		q := *p
		q.Function = "0x" + strconv.FormatUint(p.Addr, 16)
		return PerfPoint(&q)
	}
	return PerfPoint(p)
}

// TracePoint is where a listed probe sits, read from its kprobe_events or
// uprobe_events line the way perf's parse_probe_trace_command reads it.
type TracePoint struct {
	Module string // kernel module of "MOD:SYM+OFFS", or a uprobe's binary
	Symbol string // "vfs_read", "_text"; "" for an address
	Offset uint64 // from Symbol
	// Addr is a kprobe's address when there is no Symbol, and a uprobe's
	// offset in Module.
	Addr   uint64
	Return bool
	User   bool
}

// ParseTracePoint reads the target of a listed probe: a kprobe's
// "vfs_read", "vfs_read+114", "_text+3421344", "0xffffffff81234567" or
// "ext4:ext4_sync_fs+4", or a uprobe's "/path/app:0x0000000000001139",
// optionally followed by "(0xREFCTR)".
func ParseTracePoint(target string, user, ret bool) (TracePoint, error) {
	tp := TracePoint{Return: ret, User: user}
	bad := func() (TracePoint, error) {
		return TracePoint{}, fmt.Errorf("%w: probe target %q", tracefs.ErrBadDefinition, target)
	}
	if user {
		path, off, ok := tracefs.UprobeTarget(target)
		if !ok {
			return bad()
		}
		tp.Module, tp.Addr = path, off
		return tp, nil
	}
	if i := strings.IndexByte(target, ':'); i >= 0 {
		tp.Module, target = target[:i], target[i+1:]
	}
	if strings.HasPrefix(target, "0x") {
		a, ok := grammar.ParseNum(target)
		if !ok {
			return bad()
		}
		tp.Addr = a
		return tp, nil
	}
	sym, off, hasOff := strings.Cut(target, "+")
	if sym == "" {
		return bad()
	}
	tp.Symbol = sym
	if hasOff {
		n, ok := grammar.ParseNum(off)
		if !ok {
			return bad()
		}
		tp.Offset = n
	}
	return tp, nil
}

// Describe is perf's convert_to_perf_probe_point followed by
// synthesize_perf_probe_point: the source point of tp found with the
// debuginfo m maps (the kernel's for a kprobe, the binary's for a uprobe), as in
// "vfs_read:12@fs/read_write.c"; without debuginfo for the address, the
// function symbol containing it ("vfs_read+114"); failing that, tp as
// listed ("vfs_read+114", "0x1139"). A kprobe on an address is always
// shown as listed. m decodes each unit once across calls: one PointMapper
// per binary serves a whole listing. m may be nil.
func (tp TracePoint) Describe(m *dwarfres.PointMapper) string {
	p := grammar.Point{Return: tp.Return}
	d := m.File()
	if addr, ok := tp.address(d); ok {
		if at, ok, err := m.ProbePointAt(addr); err == nil && ok {
			p.Function, p.File, p.Offset = at.Function, at.File, at.Offset
			p.Line, p.HasLine = at.Line, at.Line != 0
			return PerfPoint(&p)
		}
		if s, ok := d.Symbols().At(addr); ok {
			p.Function, p.Offset = s.Name, addr-s.Start
			return PerfPoint(&p)
		}
	}
	if tp.Symbol != "" {
		p.Function, p.Offset = tp.Symbol, tp.Offset
	} else {
		p.Function = "0x" + strconv.FormatUint(tp.Addr, 16)
	}
	return PerfPoint(&p)
}

// Mapper maps the places probes are written at back to source points
// with one target's debuginfo (dwprobe -l), decoding each unit once
// across calls: one Mapper per binary serves a whole listing. A nil
// Mapper maps nothing (Describe shows points as listed).
type Mapper struct{ pm *dwarfres.PointMapper }

// NewMapper is a Mapper with f's debuginfo; it reads f, so it is used
// before f is closed.
func NewMapper(f *dwarfres.File) *Mapper {
	return &Mapper{pm: f.NewPointMapper()}
}

// Describe is tp.Describe with m's debuginfo.
func (m *Mapper) Describe(tp TracePoint) string {
	if m == nil {
		return tp.Describe(nil)
	}
	return tp.Describe(m.pm)
}

// address is the link-time address of tp in d.
func (tp TracePoint) address(d *dwarfres.File) (uint64, bool) {
	if d == nil {
		return 0, false
	}
	if tp.User {
		// The file offset in the executable segment holding it.
		for _, p := range d.ELF.Progs {
			if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 && tp.Addr >= p.Off && tp.Addr < p.Off+p.Filesz {
				return tp.Addr - p.Off + p.Vaddr, tp.Addr != 0
			}
		}
		return 0, false
	}
	if tp.Module != "" && !d.IsModule() {
		return 0, false // a module's probe, and d is not that module
	}
	switch st := d.Symbols(); {
	case tp.Symbol == "":
		// The kernel lists an address probe with %p: hashed, and a
		// run-time address (KASLR) even when not. It is shown as listed.
		return 0, false
	case tp.Symbol == "_text" && st.HasText:
		return st.Text + tp.Offset, true
	default:
		if syms := st.Lookup(tp.Symbol); len(syms) > 0 {
			return syms[0].Start + tp.Offset, true
		}
	}
	return 0, false
}
