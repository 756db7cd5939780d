package dwarfres

import (
	"debug/dwarf"
	"encoding/binary"
)

// dwz moves what several units share (types, and the abstract instances of
// inline functions) into partial units, of the same file or of the
// supplementary one, which the units import. An abstract function found
// there has its instances elsewhere: in the compile units referring to it
// with DW_FORM_ref_addr or DW_FORM_GNU_ref_alt. perf 6.1 looks for them
// in the abstract function's own unit only, and finds none.

// shared reports whether t is a unit other units import: a partial unit,
// or any unit of the supplementary file.
func (s *search) shared(t *cuTree) bool {
	return t.f != s.f || t.partial()
}

// partial reports whether t is a partial unit (dwz's), which other
// units of its file import.
func (t *cuTree) partial() bool {
	return len(t.dies) > 0 && t.dies[0].Tag == dwarf.TagPartialUnit
}

// foreignInstances probes the instances of the abstract function abs of a
// shared unit, in every unit referring to it, in unit order.
func (s *search) foreignInstances(abs int) error {
	t := s.t
	key := referrers{s.f, t, abs}.key()
	decl, _ := t.declLine(abs)
	dfile := t.declFile(abs)
	return s.eachReferring(abs, func(t2 *cuTree) error {
		for j := 1; j < len(t2.dies); j++ {
			d := &t2.dies[j]
			if !d.HasOrigin || d.OriginIsSpec || d.Origin != key || !t2.isFuncInstance(j) {
				continue
			}
			// perf's redundant-instance check, by file name: the numbers
			// count in different line tables.
			if d.Tag == tagInlined && d.HasCallLine && int(d.CallLine) == decl && t2.callFile(j) == dfile {
				continue
			}
			addr, ok := t2.dieEntryPC(j)
			if !ok || addr == 0 {
				break // perf stops the unit's walk here, as instances does
			}
			if err := s.instanceAt(j, addr, dfile); err != nil {
				return err
			}
		}
		return nil
	})
}

// foreignLines is FUNC:RLN for the abstract function abs of a shared
// unit: the line rule (funcLine) over its copies in each unit referring
// to it, whose line tables and scopes hold its code (a partial unit
// shares a line table with the units it was taken from, but holds no
// scope).
func (s *search) foreignLines(abs, line int) error {
	t := s.t
	defer func() { s.t = t }()
	return referrers{s.f, t, abs}.copies(func(t2 *cuTree, fc funcCopies) error {
		s.t = t2
		return s.copiesLine(fc, line)
	})
}

// referrers are the units of f that may refer to DIE abs of t, a unit
// other units import (a partial unit of f, or a unit of its supplementary
// file): where the copies of a function dwz moved out of them are.
type referrers struct {
	f   *File
	t   *cuTree
	abs int
}

// key is the die.Origin value by which the units of r.f refer to DIE
// r.abs of r.t.
func (r referrers) key() uint64 {
	if r.t.f != r.f {
		return r.t.dies[r.abs].Off | originAlt
	}
	return r.t.dies[r.abs].Off
}

// eachReferring calls fn with s.t set to each unit of s.f (other than s.t)
// that may refer to DIE abs of s.t, in unit order.
func (s *search) eachReferring(abs int, fn func(t *cuTree) error) error {
	t := s.t
	defer func() { s.t = t }()
	return referrers{s.f, t, abs}.each(func(t2 *cuTree) error {
		s.t = t2
		return fn(t2)
	})
}

// each calls fn with each unit of r.f (other than r.t) that may refer to
// DIE r.abs of r.t, in unit order.
func (r referrers) each(fn func(t2 *cuTree) error) error {
	f, t := r.f, r.t
	units, err := f.unitsList()
	if err != nil {
		return err
	}
	for _, ui := range r.units(units) {
		u := &units[ui]
		if u == t.u || !u.holdsCode() {
			continue
		}
		t2, err := f.decodeUnit(u)
		if err != nil {
			return err
		}
		if err := fn(t2); err != nil {
			return err
		}
	}
	return nil
}

// copies calls fn with each unit of r.f referring to the abstract
// function r.abs of the shared unit r.t, and the copies of it that unit
// holds (instancesOf's, by their origin), where it holds any.
func (r referrers) copies(fn func(t2 *cuTree, fc funcCopies) error) error {
	key := r.key()
	decl, _ := r.t.declLine(r.abs)
	dfile := r.t.declFile(r.abs)
	return r.each(func(t2 *cuTree) error {
		fc := funcCopies{file: dfile, decl: decl}
		for j := 1; j < len(t2.dies); j++ {
			d := &t2.dies[j]
			if !d.HasOrigin || d.OriginIsSpec || d.Origin != key || !t2.isFuncInstance(j) {
				continue
			}
			if d.Tag == tagInlined && d.HasCallLine && int(d.CallLine) == decl && t2.callFile(j) == dfile {
				continue // perf's redundant instance, as instancesOf
			}
			fc.copies = append(fc.copies, j)
		}
		if len(fc.copies) == 0 {
			return nil
		}
		return fn(t2, fc)
	})
}

// instanceAt probes instance j of s.t at addr, as instances does.
func (s *search) instanceAt(j int, addr uint64, declFile string) error {
	if s.q.LazyLines != nil {
		return s.lazy(j, declFile)
	}
	return s.probeAt(j, addr+s.q.Offset)
}

// units lists the units (of units, r.f's) whose bytes hold the offset of
// DIE r.abs as a 4-byte reference (every unit when 64-bit DWARF makes that
// unreliable): the units worth decoding for instances of a shared function.
func (r referrers) units(units []unit) []int {
	f, off := r.f, r.t.dies[r.abs].Off
	var out []int
	pat := make([]byte, 4)
	for i := range units {
		if units[i].offSize != 4 {
			for j := range units {
				out = append(out, j)
			}
			return out
		}
	}
	if f.Order == binary.BigEndian {
		binary.BigEndian.PutUint32(pat, uint32(off))
	} else {
		binary.LittleEndian.PutUint32(pat, uint32(off))
	}
	info := f.sec(".debug_info")
	hit := make([]bool, len(units))
	indexAll(info, pat, func(i int) {
		if ui := f.unitIndex(uint64(i)); ui >= 0 {
			hit[ui] = true
		}
	})
	for i, h := range hit {
		if h {
			out = append(out, i)
		}
	}
	return out
}

// supplementary searches the supplementary file's units for a function
// query's abstract functions (dwz -m moves those shared by several
// programs there); their instances are in this file.
func (s *search) supplementary() error {
	q := s.q
	if q.fn() == "" || q.File != "" || q.NoInlines {
		return nil
	}
	alt, err := s.f.alt()
	if err != nil || alt == nil {
		return err
	}
	units, err := alt.unitsList()
	if err != nil {
		return err
	}
	cands, _, err := unitScan{alt}.candidates(units, q, sourceName{})
	if err != nil {
		return err
	}
	for _, ui := range cands {
		t, err := alt.decodeUnit(&units[ui])
		if err != nil {
			return err
		}
		if err := s.unit(t); err != nil {
			return err
		}
	}
	return nil
}
