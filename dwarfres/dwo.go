package dwarfres

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// synthetic is the file that splitter.attach builds: the binary's .debug_*
// sections with each .dwo's appended.
type synthetic struct {
	info, abbrev, str, strOff, loclists, rnglists, loc []byte
}

// attach appends the .dwo sections of each skeleton to copies of the
// binary's, attaches the result as w.f.dbg and returns the units to use:
// the binary's own full units and the split units, skeletons dropped.
func (w splitter) attach(skels []*skeleton, dwos []*dwoSections) ([]unit, error) {
	f := w.f
	secs := map[string][]byte{}
	for _, s := range f.ELF.Sections {
		name := s.Name
		if strings.HasPrefix(name, ".zdebug_") {
			name = ".debug_" + strings.TrimPrefix(name, ".zdebug_")
		}
		if strings.HasPrefix(name, ".debug_") {
			secs[name] = f.sec(name)
		}
	}
	// The skeletons' .debug_aranges name skeleton offsets; without it,
	// units are mapped by their ranges.
	secs[".debug_aranges"] = nil
	s := &synthetic{
		info: clone(secs[".debug_info"]), abbrev: clone(secs[".debug_abbrev"]),
		str: clone(secs[".debug_str"]), strOff: clone(secs[".debug_str_offsets"]),
		loclists: clone(secs[".debug_loclists"]), rnglists: clone(secs[".debug_rnglists"]),
		loc: clone(secs[".debug_loc"]),
	}
	mainEnd := uint64(len(s.info))
	type span struct {
		lo, hi uint64
		sp     *splitInfo
	}
	var spans []span
	for i, d := range dwos {
		lo := uint64(len(s.info))
		sp, err := s.add(d, skels[i])
		if err != nil {
			return nil, err
		}
		spans = append(spans, span{lo, uint64(len(s.info)), sp})
	}
	secs[".debug_info"], secs[".debug_abbrev"] = s.info, s.abbrev
	secs[".debug_str"], secs[".debug_str_offsets"] = s.str, s.strOff
	secs[".debug_loclists"], secs[".debug_rnglists"] = s.loclists, s.rnglists
	secs[".debug_loc"] = s.loc
	syn := newFile(elfobj.FromSections(f.Path, f.ELF, f.Order, secs))
	syn.splitOnce.Do(func() {}) // its skeletons are f's
	all, err := syn.unitsList()
	if err != nil {
		return nil, err
	}
	skelAt := map[uint64]bool{}
	for _, sk := range skels {
		skelAt[sk.u.off] = true
	}
	var out []unit
	for _, u := range all {
		if u.off < mainEnd && skelAt[u.off] {
			continue
		}
		u.rootOnce = new(sync.Once)
		for _, x := range spans {
			if u.off >= x.lo && u.off < x.hi {
				u.split = x.sp
			}
		}
		out = append(out, u)
	}
	f.dbg = syn
	return out, nil
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

// add appends one .dwo's sections and returns the bases of its units.
func (s *synthetic) add(d *dwoSections, sk *skeleton) (*splitInfo, error) {
	v5 := sk.u.version >= 5
	sp := &splitInfo{skel: sk, gnuLoc: !v5, locSecBase: uint64(len(s.loc)), rngSecBase: uint64(len(s.rnglists))}
	if v5 {
		sp.locSecBase = uint64(len(s.loclists))
	}
	abbrevBase := uint64(len(s.abbrev))
	info := clone(d.info)
	if err := rebaseAbbrevs(info, abbrevBase, d.path); err != nil {
		return nil, err
	}
	strBase := uint64(len(s.str))
	sp.strOffB = uint64(len(s.strOff))
	hdr := 0
	if v5 {
		hdr = 8 // unit_length, version, padding
		sp.strOffB += 8
	}
	so := clone(d.strOff)
	if len(so) < hdr {
		return nil, &DecodeError{Section: ".debug_str_offsets.dwo", Msg: d.path + ": short header"}
	}
	for o := hdr; o+4 <= len(so); o += 4 {
		binary.LittleEndian.PutUint32(so[o:], binary.LittleEndian.Uint32(so[o:])+uint32(strBase))
	}
	sp.locB = uint64(len(s.loclists)) + 12
	sp.rngB = uint64(len(s.rnglists)) + 12
	s.info = append(s.info, info...)
	s.abbrev = append(s.abbrev, d.abbrev...)
	s.str = append(s.str, d.str...)
	s.strOff = append(s.strOff, so...)
	s.loclists = append(s.loclists, d.loclists...)
	s.rnglists = append(s.rnglists, d.rnglists...)
	s.loc = append(s.loc, d.loc...)
	return sp, nil
}

// rebaseAbbrevs adds base to the abbreviation offset of every unit header
// in info (32-bit DWARF 4 or 5).
func rebaseAbbrevs(info []byte, base uint64, path string) error {
	for off := 0; off+12 <= len(info); {
		l := binary.LittleEndian.Uint32(info[off:])
		if l >= 0xfffffff0 || uint64(l) > uint64(len(info)-off-4) {
			return &DecodeError{Section: ".debug_info.dwo", Offset: uint64(off), Msg: fmt.Sprintf("%s: bad or 64-bit unit length", path)}
		}
		at := off + 6 // DWARF 4: after unit_length and version
		if binary.LittleEndian.Uint16(info[off+4:]) >= 5 {
			at = off + 8 // after unit_type and address_size
		}
		binary.LittleEndian.PutUint32(info[at:], binary.LittleEndian.Uint32(info[at:])+uint32(base))
		off += 4 + int(l)
	}
	return nil
}

// applySplit gives a split unit, its root just decoded, the bases of its
// .dwo and what its skeleton says about code (low_pc, ranges).
func (u *unit) applySplit() {
	sp := u.split
	u.strOffB, u.locB, u.rngB = sp.strOffB, sp.locB, sp.rngB
	u.addrB = sp.skel.addrBase
	if !u.splitCU() {
		return
	}
	r, sk := &u.root, &sp.skel.u.root
	if !r.HasLow {
		r.LowPC, r.HasLow = sk.LowPC, sk.HasLow
	}
	if !r.HasHigh {
		r.HighPC, r.HasHigh = sk.HighPC, sk.HasHigh
	}
	r.HasRanges = r.HasRanges || sk.HasRanges
}

// rangesSecBase is what a DW_FORM_sec_offset DW_AT_ranges of the split unit
// u counts from: DWARF 4's DW_AT_GNU_ranges_base in the binary's
// .debug_ranges, DWARF 5's start of the .dwo's .debug_rnglists.
func (sp *splitInfo) rangesSecBase(u *unit) uint64 {
	if u.version < 5 {
		return sp.skel.rangesBase
	}
	return sp.rngSecBase
}

// splitCU reports whether u is the compile unit of its .dwo, which the
// skeleton stands for (not a type unit, -fdebug-types-section).
func (u *unit) splitCU() bool {
	return u.split != nil && (u.utype == utSplitCompile || u.version < 5 && u.utype == utCompile)
}
