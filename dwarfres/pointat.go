package dwarfres

import (
	"encoding/binary"
	"sort"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// arange is one address range of a unit, from .debug_aranges.
type arange struct {
	lo, hi uint64
	unit   uint64 // unit header offset
}

// arangeList maps addresses to units, sorted by start, built once.
func (f *File) arangeList() []arange {
	f.arOnce.Do(func() {
		sec := f.sec(".debug_aranges")
		var out []arange
		if len(sec) > 0 {
			out = parseAranges(sec, f.Order)
		} else {
			// clang emits no .debug_aranges (perf 6.1's libdw then
			// finds nothing).
			out = f.unitAranges()
		}
		sort.Slice(out, func(i, j int) bool { return out[i].lo < out[j].lo })
		f.aranges = out
	})
	return f.aranges
}

// parseAranges reads the tables of .debug_aranges up to the first
// malformed one.
func parseAranges(sec []byte, order binary.ByteOrder) []arange {
	var out []arange
	for off := uint64(0); off < uint64(len(sec)); {
		b := &buf{sec: ".debug_aranges", base: off, data: sec[off:], order: order}
		l := uint64(b.u32())
		offSize := 4
		if l == 0xffffffff {
			l = b.u64()
			offSize = 8
		}
		hdr := uint64(b.off)
		if b.err != nil || l > uint64(len(sec))-off-hdr {
			break
		}
		end := off + hdr + l
		b.data = b.data[:hdr+l]
		b.u16() // version
		cu := b.uint(offSize)
		asz := int(b.u8())
		b.u8() // segment selector size
		if asz != 4 && asz != 8 {
			break
		}
		// tuples start at a multiple of twice the address size
		if r := b.off % (2 * asz); r != 0 {
			b.skip(2*asz - r)
		}
		for b.err == nil && b.off+2*asz <= len(b.data) {
			a, n := b.uint(asz), b.uint(asz)
			if a == 0 && n == 0 {
				break
			}
			out = append(out, arange{a, a + n, cu})
		}
		off = end
	}
	return out
}

// unitAranges takes each unit's own DW_AT_low_pc/high_pc or DW_AT_ranges.
func (f *File) unitAranges() []arange {
	var out []arange
	units, _ := f.unitsList()
	for i := range units {
		u := &units[i]
		if !u.holdsCode() {
			continue
		}
		root, err := f.rootDIE(u)
		if err != nil {
			continue
		}
		rs, err := unitLists{f, u}.ranges(root)
		if err != nil {
			continue
		}
		for _, r := range rs {
			out = append(out, arange{r.Low, r.High, u.off})
		}
	}
	return out
}

// unitForAddr is dwarf_addrdie: the unit whose ranges contain addr.
func (f *File) unitForAddr(addr uint64) *unit {
	ar := f.arangeList()
	i := sort.Search(len(ar), func(i int) bool { return ar[i].lo > addr }) - 1
	// Ranges rarely overlap; look back a little in case they do.
	for n := 0; i >= 0 && n < 16; i, n = i-1, n+1 {
		if addr < ar[i].hi {
			if ui := f.unitIndex(ar[i].unit); ui >= 0 {
				return &f.units[ui]
			}
		}
	}
	return nil
}

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
	pt, ok = t.pointAt(addr)
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

// pointAt is perf's debuginfo__find_probe_point within the unit holding
// addr.
func (t *cuTree) pointAt(addr uint64) (pt PointAt, ok bool) {
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
			p = t.descendInlines(sp, addr, p)
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
// inlined functions below sp holding addr: the innermost named one becomes
// the function, unless addr is an inline's entry, which is then its call
// line. The line is dropped when the function was declared in another
// file.
func (t *cuTree) descendInlines(sp int, addr uint64, p srcPos) srcPos {
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

// treeAt is the decoded unit whose code holds addr; nil, nil when none.
func (f *File) treeAt(addr uint64) (*cuTree, error) {
	return f.NewPointMapper().treeAt(addr)
}

// treeAt is File.treeAt, decoding each unit once.
func (m *PointMapper) treeAt(addr uint64) (*cuTree, error) {
	if _, err := m.f.unitsList(); err != nil {
		return nil, err
	}
	u := m.f.unitForAddr(addr)
	if u == nil {
		return nil, nil
	}
	return m.tree(u)
}
