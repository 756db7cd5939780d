package dwarfres

// Source is the source file and line of the scope's address, as the line
// table gives them (a function's declaration at its entry, as perf
// reports it); ok is false when the debuginfo does not say.
func (s *Scope) Source() (file string, line int, ok bool) {
	return s.t.lineInfo(s.Addr)
}
