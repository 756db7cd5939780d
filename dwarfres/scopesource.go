package dwarfres

// Source is the source file and line of the scope's address, as the line
// table gives them (a function's declaration at its entry, as perf
// reports it); ok is false when the debuginfo does not say. At the entry
// of a call inlined in the scope, it is the call's line: the line table's
// row there is the inlined function's first line, in its own file
// (mmap_region:12 of 6.1 is a call of is_shared_maywrite, whose row says
// include/linux/mm.h:676). The entry of an out-of-line function stays its
// declaration, even when its first instruction is an inlined call's
// (rb_insert_color's __rb_insert).
func (s *Scope) Source() (file string, line int, ok bool) {
	b, err := s.bind()
	if err != nil {
		return "", 0, false
	}
	if e, ok := b.t.dieEntryPC(b.sp); !ok || e != s.Addr {
		if f, l, ok := b.t.inlineCallAt(b.sc, s.Addr); ok {
			return f, l, true
		}
	}
	return b.t.lineInfo(s.Addr)
}

// inlineCallAt is the call site (DW_AT_call_file, DW_AT_call_line) of the
// call inlined in scope sc whose entry is addr: the outermost inlined
// subroutine below sc holding addr, if addr is its entry; ok is false
// when addr is no such entry.
func (t *cuTree) inlineCallAt(sc int, addr uint64) (file string, line int, ok bool) {
	in := t.topInline(sc, addr)
	if in < 0 {
		return "", 0, false
	}
	if e, ok := t.dieEntryPC(in); !ok || e != addr {
		return "", 0, false
	}
	file, line = t.callFile(in), int(t.dies[in].CallLine)
	return file, line, file != "" && line > 0
}
