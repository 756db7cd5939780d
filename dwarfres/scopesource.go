package dwarfres

// Source is the source file and line of the scope's address, as the line
// table gives them (a function's declaration at its entry, as perf
// reports it); ok is false when the debuginfo does not say. At the entry
// of a call inlined in the scope, where the line table's row is the
// inlined function's (its first line, in its own file), it is the call's
// line: mmap_region:12 of 6.1 is a call of is_shared_maywrite, whose row
// says include/linux/mm.h:676. A row of the caller there (a line without
// code of its own before the call: handle_mm_fault:5's
// __set_current_state) stays. The entry of the function probed stays as
// it was too: an out-of-line function's is its declaration
// (rb_insert_color's, where __rb_insert starts), an inlined copy's the
// row.
//
// A point a FUNC:RLN search placed for a line is at that line, even where
// an earlier row of another line shares its address (the line rule takes
// the last row at an address as the one its code belongs to).
func (s *Scope) Source() (file string, line int, ok bool) {
	if s.srcLine > 0 {
		return s.srcFile, s.srcLine, true
	}
	b, err := s.bind()
	if err != nil {
		return "", 0, false
	}
	file, line, ok = b.t.lineInfo(s.Addr)
	if b.t.isEntryOf(b.sp, s.Addr) || b.t.isEntryOf(b.sc, s.Addr) {
		return file, line, ok
	}
	in := b.t.inlineEntryAt(b.sc, s.Addr)
	if in < 0 {
		return file, line, ok
	}
	cf, cl := b.t.callFile(in), int(b.t.dies[in].CallLine)
	if cf == "" || cl <= 0 || ok && b.t.callersRow(b.sc, b.sp, in, file, line) {
		return file, line, ok
	}
	return cf, cl, true
}

// isEntryOf reports whether addr is the entry of DIE i.
func (t *cuTree) isEntryOf(i int, addr uint64) bool {
	e, ok := t.dieEntryPC(i)
	return ok && e == addr
}

// inlineEntryAt is the call inlined in scope sc whose entry is addr (the
// outermost inlined subroutine below sc holding addr, if addr is its
// entry), -1 if none.
func (t *cuTree) inlineEntryAt(sc int, addr uint64) int {
	in := t.topInline(sc, addr)
	if in < 0 || !t.isEntryOf(in, addr) {
		return -1
	}
	return in
}

// callersRow reports whether file:line, the line table's row at the
// entry of the call in inlined in scope sc of function sp, is a line of
// the caller: in the call's file, between the scope's declaration and the
// call's line.
func (t *cuTree) callersRow(sc, sp, in int, file string, line int) bool {
	if file != t.callFile(in) || line > int(t.dies[in].CallLine) {
		return false
	}
	from, ok := t.declLine(sc)
	if !ok {
		from, _ = t.declLine(sp)
	}
	return line >= from
}
