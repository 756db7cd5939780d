package dwarfres

import (
	"encoding/binary"
	"sort"
	"sync"
)

// arange is one address range of a unit, from .debug_aranges.
type arange struct {
	lo, hi uint64
	unit   uint64 // unit header offset
}

// arangeMap is dwarf_addrdie's job: which unit holds an address. It is
// built once, from .debug_aranges or, without one, from every unit's own
// ranges, and kept sorted by start.
type arangeMap struct {
	once sync.Once
	list []arange
}

// get is the map of f's units, built on first use.
func (m *arangeMap) get(f *File) []arange {
	m.once.Do(func() {
		sec := f.sec(".debug_aranges")
		var out []arange
		if len(sec) > 0 {
			out = parseAranges(sec, f.Order)
		} else {
			// clang emits no .debug_aranges (perf 6.1's libdw then
			// finds nothing).
			out = unitAranges(f)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].lo < out[j].lo })
		m.list = out
	})
	return m.list
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
func unitAranges(f *File) []arange {
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

// unitFor is dwarf_addrdie: the unit of f whose ranges contain addr.
func (m *arangeMap) unitFor(f *File, addr uint64) *unit {
	ar := m.get(f)
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
