package dwarfres

// Source is the source file and line of the scope's address, as the line
// table gives them (a function's declaration at its entry, as perf
// reports it); ok is false when the debuginfo does not say.
func (s *Scope) Source() (file string, line int, ok bool) {
	b, err := s.bind()
	if err != nil {
		return "", 0, false
	}
	return b.t.lineInfo(s.Addr)
}
