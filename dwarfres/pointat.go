package dwarfres

import "github.com/dwprobe/dwprobe/dwarfres/elfobj"

// PointAt describes addr as perf's debuginfo__find_probe_point does: the
// function (or inlined function) containing it and a line relative to its
// declaration, or an offset from its entry; File is the declaring file.
type PointAt struct {
	Function string
	File     string
	Line     int
	Offset   uint64
}

// ProbePointAt maps an address back to a probe point; ok is false when no
// debuginfo covers it. To map many addresses, use a PointMapper.
func (f *File) ProbePointAt(addr uint64) (pt PointAt, ok bool, err error) {
	if a, ok := f.asked.get(addr); ok {
		return a.pt, a.ptOK, nil
	}
	return f.NewPointMapper().ProbePointAt(addr)
}

// PointMapper maps the addresses of many probes back to probe points, as
// -l does for every listed probe of a binary: each unit is decoded once
// and kept, and each address finds its unit and function by binary
// search, so listing N probes costs N lookups, not N unit decodes. It is
// not safe for concurrent use.
type PointMapper struct {
	f       *File
	trees   map[uint64]*cuTree // by unit offset
	decoded int                // units decoded, for tests
}

// NewPointMapper returns a PointMapper over f.
func (f *File) NewPointMapper() *PointMapper {
	return &PointMapper{f: f, trees: map[uint64]*cuTree{}}
}

// File is the File m maps addresses of; nil for a nil m.
func (m *PointMapper) File() *File {
	if m == nil {
		return nil
	}
	return m.f
}

// ProbePointAt is File.ProbePointAt, reusing the units decoded before.
func (m *PointMapper) ProbePointAt(addr uint64) (pt PointAt, ok bool, err error) {
	defer m.f.nameMalformed(&err)
	defer elfobj.Guard(&err, m.f.Path)
	t, err := m.treeAt(addr)
	if t == nil || err != nil {
		return pt, false, err
	}
	pt, ok = addrIn{t, addr}.point()
	return pt, ok, nil
}

// tree decodes u once.
func (m *PointMapper) tree(u *unit) (*cuTree, error) {
	if t, ok := m.trees[u.off]; ok {
		return t, nil
	}
	t, err := m.f.tree(u)
	if err != nil {
		return nil, err
	}
	m.decoded++
	m.trees[u.off] = t
	return t, nil
}

// addrIn is an address in the decoded unit holding it, and what is asked
// of it going from code back to source: the probe point it is (point)
// and the out-of-line function holding it (funcDecl, funcdecl.go).
type addrIn struct {
	t    *cuTree
	addr uint64
}

// point is perf's debuginfo__find_probe_point within the unit holding
// the address.
func (a addrIn) point() (pt PointAt, ok bool) {
	t, addr := a.t, a.addr
	var p srcPos
	p.file, p.line, _ = t.lineInfo(addr)
	var basefunc string
	var baseaddr uint64
	if sp := t.realFunc(addr); sp >= 0 {
		p.fn = t.name(sp)
		if !t.u.cOnly() && p.fn != "" {
			p.fn = t.qualName(sp) // "geo::Box::grow", as specs name it
		}
		basefunc = p.fn
		ba, ok1 := t.dieEntryPC(sp)
		bl, ok2 := t.declLine(sp)
		baseaddr, p.base = ba, bl
		switch {
		case p.fn == "" || !ok1 || !ok2:
			p.line = 0
		case addr == baseaddr:
			p.file, p.line = t.declFile(sp), bl
		default:
			p.file = t.declFile(sp)
			p = a.descendInlines(sp, p)
		}
	}
	if p.line != 0 {
		pt.Line = p.line - p.base
	} else if basefunc != "" {
		pt.Offset = addr - baseaddr
		p.fn = basefunc
	}
	pt.Function, pt.File = p.fn, p.file
	return pt, p.fn != "" || p.file != ""
}

// srcPos is a source position being refined for ProbePointAt: the
// function, the file, the line (0: none) and the function's declaration
// line the line is counted from.
type srcPos struct {
	fn, file   string
	line, base int
}

// descendInlines follows perf's debuginfo__find_probe_point into the
// inlined functions below sp holding the address: the innermost named one
// becomes the function, unless the address is an inline's entry, which is
// then its call line. The line is dropped when the function was declared
// in another file.
func (a addrIn) descendInlines(sp int, p srcPos) srcPos {
	t, addr := a.t, a.addr
	cur := sp
	for {
		in := t.topInline(cur, addr)
		if in < 0 {
			break
		}
		if e, ok := t.dieEntryPC(in); ok && e == addr {
			p.line, p.file = int(t.dies[in].CallLine), t.callFile(in)
			break
		}
		n := t.name(in)
		dl, ok := t.declLine(in)
		if n == "" || !ok {
			break
		}
		p.fn, p.base, cur = n, dl, in
	}
	if df := t.declFile(cur); df == "" || df != p.file {
		p.line = 0
	}
	return p
}

// topInline is die_find_top_inlinefunc: the outermost inlined subroutine
// below sp (not nested in another inline) containing addr.
func (t *cuTree) topInline(sp int, addr uint64) int {
	end := t.end(sp)
	for j := sp + 1; j < end; j++ {
		if t.dies[j].Tag == tagInlined {
			if t.hasPC(j, addr) {
				return j
			}
			j = t.end(j) - 1
		}
	}
	return -1
}

// treeAt is the decoded unit whose code holds addr, each unit decoded
// once; nil, nil when none. One address alone is looked up through a
// new PointMapper.
func (m *PointMapper) treeAt(addr uint64) (*cuTree, error) {
	if _, err := m.f.unitsList(); err != nil {
		return nil, err
	}
	u := m.f.aranges.unitFor(m.f, addr)
	if u == nil {
		return nil, nil
	}
	return m.tree(u)
}
