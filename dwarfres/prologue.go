package dwarfres

import "debug/dwarf"

// prologue is perf's choice of where the entry probe of function fn of t
// goes when the prologue is skipped (probe_point_search_cb): past the
// prologue (end), unless the function's code is optimized (optimized),
// where its parameters' locations already hold at entry.
type prologue struct {
	t  *cuTree
	fn int
}

// unitOptimized is perf's die_is_optimized_target: some variable of the
// unit has a location list (perf counts DW_FORM_sec_offset only, and so
// takes clang's DWARF 5 DW_FORM_loclistx units for unoptimized ones).
// It is worked out once per unit.
func (p prologue) unitOptimized() bool {
	t := p.t
	t.optOnce.Do(func() { t.opt = p.hasLoclist(0, len(t.dies)) })
	return t.opt
}

// hasLoclist reports whether a variable or parameter among dies[from:to]
// has a location list.
func (p prologue) hasLoclist(from, to int) bool {
	t := p.t
	for i := from; i < to; i++ {
		if tag := t.dies[i].Tag; tag != dwarf.TagFormalParameter && tag != dwarf.TagVariable {
			continue
		}
		if x, ok := t.attrsGet(i, dwarf.AttrLocation); ok && (x.form == formSecOffset || x.form == formLoclistx || t.u.version < 4 && (x.form == formData4 || x.form == formData8)) {
			return true
		}
	}
	return false
}

// optimized is unitOptimized for function fn. In C it is perf's test of
// the whole unit; a C++ or Rust unit mixes the program's unoptimized
// functions with optimized instances of library generics (Rust's -O0
// unit holds core's), so there only fn's own variables count: a location
// list, or a variable living in a register (unoptimized code keeps them
// all in its frame), says fn is optimized.
func (p prologue) optimized() bool {
	t, fn := p.t, p.fn
	if t.u.cOnly() {
		return p.unitOptimized()
	}
	end := t.end(fn)
	return p.hasLoclist(fn+1, end) || p.hasRegisterVar(fn+1, end)
}

// hasRegisterVar reports whether a variable or parameter among
// dies[from:to] is located in a register (DW_OP_reg0..31, DW_OP_regx).
func (p prologue) hasRegisterVar(from, to int) bool {
	t := p.t
	for i := from; i < to; i++ {
		if tag := t.dies[i].Tag; tag != dwarf.TagFormalParameter && tag != dwarf.TagVariable {
			continue
		}
		x, ok := t.attrsGet(i, dwarf.AttrLocation)
		if ok && x.form.class() == classExprloc && len(x.blk) > 0 && (x.blk[0] >= 0x50 && x.blk[0] <= 0x6f || x.blk[0] == 0x90) {
			return true
		}
	}
	return false
}

// end is perf's die_skip_prologue: the address of the line-table row
// after the function's entry row (or the entry itself when that row ends
// the prologue); ok is false without DW_AT_high_pc or a row at entry.
func (p prologue) end(entry uint64) (uint64, bool) {
	t := p.t
	d := &t.dies[p.fn]
	if !d.HasHigh {
		return 0, false
	}
	lt, err := t.lineTable()
	if err != nil {
		return 0, false
	}
	idx := -1
	for i, r := range lt.rows {
		// Not an end_sequence row: C++ inline members and Rust
		// functions each have a sequence, and one may end where the
		// next function starts (perf 6.1 takes that row, finds no
		// prologue and reads the arguments before they are stored).
		if r.Addr == entry && !r.EndSeq {
			idx = i
			break
		}
	}
	if idx < 0 {
		return 0, false
	}
	i := idx
	for ; i < len(lt.rows); i++ {
		r := lt.rows[i]
		if r.Addr >= d.HighPC || r.PEnd || r.Line != lt.rows[idx].Line || i != idx {
			break
		}
	}
	if i >= len(lt.rows) {
		i = len(lt.rows) - 1
	}
	a := lt.rows[i].Addr
	if a >= d.HighPC && i > 0 {
		a = lt.rows[i-1].Addr
	}
	return a, true
}
