package dwarfres

// realPath is perf's cu_find_realpath: the first file of the unit's line
// table that names src, or "".
func (t *cuTree) realPath(src sourceName) (string, error) {
	lt, err := t.lineTable()
	if err != nil {
		return "", err
	}
	for _, n := range lt.files {
		if n != "" && src.matches(n) {
			return n, nil
		}
	}
	return "", nil
}

// lineInfo is cu_find_lineinfo.
func (t *cuTree) lineInfo(addr uint64) (string, int, bool) {
	if sp := t.realFunc(addr); sp >= 0 {
		if e, ok := t.dieEntryPC(sp); ok && e == addr {
			l, _ := t.declLine(sp)
			f := t.declFile(sp)
			return f, l, l != 0 && f != ""
		}
	}
	lt, err := t.lineTable()
	if err != nil {
		return "", 0, false
	}
	i := lt.stmtRowAt(addr)
	if i < 0 {
		return "", 0, false
	}
	r := lt.rows[i]
	f := lt.fileOf(r)
	return f, int(r.Line), f != "" && r.Line != 0
}

// representsLine reports whether addr is a probe point of file:line for
// -L: an address whose statement row names another line (or file) is that
// line's. An address with no statement row of its own (the entry of an
// inlined call, nft_do_chain's nft_net) is the line's: perf 6.12 lists it;
// perf 6.1 read a stale answer there and listed it on some runs only.
func (t *cuTree) representsLine(file string, line int, addr uint64) bool {
	rf, rl, ok := t.lineInfo(addr)
	return !ok || rl == line && rf == file
}

// scopesAt is cu_walk_functions_at: the real function containing addr, then
// each inlined subroutine nested in the previous one that contains addr.
func (t *cuTree) scopesAt(addr uint64) []int {
	sp := t.realFunc(addr)
	if sp < 0 {
		return nil
	}
	chain := []int{sp}
	for cur := sp; ; {
		next := -1
		end := t.end(cur)
		for j := cur + 1; j < end; j++ {
			if t.dies[j].Tag == tagInlined && t.hasPC(j, addr) {
				next = j
				break
			}
		}
		if next < 0 {
			return chain
		}
		chain = append(chain, next)
		cur = next
	}
}

// walkLines is die_walk_lines over a whole unit: statement rows in libdw's
// order, then the declaration and call-site lines of every function.
func (t *cuTree) walkLines(cb func(file string, line int, addr uint64) error) error {
	lt, err := t.lineTable()
	if err != nil {
		return err
	}
	for _, r := range lt.rows {
		if r.EndSeq || !r.Stmt {
			continue
		}
		if err := cb(lt.fileOf(r), int(r.Line), r.Addr); err != nil {
			return err
		}
	}
	for _, sp := range t.topFuncs() {
		if err := t.walkFuncLines(sp, true, cb); err != nil {
			return err
		}
	}
	return nil
}

// walkFuncLines is __die_walk_funclines.
func (t *cuTree) walkFuncLines(sp int, recursive bool, cb func(string, int, uint64) error) error {
	if f := t.declFile(sp); f != "" {
		if l, ok := t.declLine(sp); ok {
			if a, ok := t.dieEntryPC(sp); ok {
				if err := cb(f, l, a); err != nil {
					return err
				}
			}
		}
	}
	end := t.end(sp)
	for j := sp + 1; j < end; j++ {
		d := &t.dies[j]
		var addr uint64
		if d.Tag == tagInlined {
			f := t.callFile(j)
			if a, ok := t.dieEntryPC(j); ok {
				addr = a
				if f != "" && d.CallLine > 0 {
					if err := cb(f, int(d.CallLine), a); err != nil {
						return err
					}
				}
			}
			if !recursive {
				j = t.end(j) - 1
				continue
			}
		}
		if addr != 0 {
			if f := t.declFile(j); f != "" {
				if l, ok := t.declLine(j); ok {
					if err := cb(f, l, addr); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// walkScopeLines is die_walk_lines for a function or inlined instance:
// statement rows inside the scope that are not inside a nested inline
// (unless they are that inline's call line), then the scope's own
// declaration and call-site lines.
func (t *cuTree) walkScopeLines(rt int, cb func(string, int, uint64) error) error {
	lt, err := t.lineTable()
	if err != nil {
		return err
	}
	decl, _ := t.declLine(rt)
	decf, _ := t.declFileNo(rt)
	declName := t.fileName(decf)
	rs := t.ranges(rt)
	for _, r := range lt.rows {
		if r.EndSeq || !r.Stmt || !inRanges(rs, r.Addr) {
			continue
		}
		if in := t.innermostInline(rt, r.Addr); in >= 0 {
			cf := t.callFile(in)
			if !(cf != "" && cf == declName && int(t.dies[in].CallLine) == int(r.Line)) {
				il, _ := t.declLine(in)
				inf, _ := t.declFileNo(in)
				if il != decl || inf != decf {
					continue
				}
			}
		}
		if err := cb(lt.fileOf(r), int(r.Line), r.Addr); err != nil {
			return err
		}
	}
	return t.walkFuncLines(rt, false, cb)
}
