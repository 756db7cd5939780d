package dwarfres

import "sync"

// countScans is how many names Count looks up by scanning the symbol
// table before it builds a table of every name's count: a query asks
// about its few points, a probe in a thousand functions (kmalloc's
// inlined copies) about each of them. A scan of a vmlinux's 200,000
// names costs about 0.2 ms, building the table about 25 ms: a query's
// dozen points (getname_flags: 12) are cheaper scanned.
const countScans = 64

// nameCounts is Symtab.Count's table, built after countScans lookups.
type nameCounts struct {
	mu    sync.Mutex
	calls int
	m     map[string]int32
}

// table returns the count of every name, or nil while a scan is cheaper.
func (c *nameCounts) table(st *Symtab) map[string]int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m != nil {
		return c.m
	}
	if c.calls++; c.calls <= countScans {
		return nil
	}
	m := make(map[string]int32, len(st.names))
	for _, off := range st.names {
		m[string(strAt(st.strtab, off))]++
	}
	c.m = m
	return m
}

// symbolAddrs remembers SymbolAddr's answers: each is a scan of the whole
// symbol table, and every spec of a run asks for the same few (_sinittext,
// _stext, the mcount table).
type symbolAddrs struct {
	mu sync.Mutex
	m  map[string]symbolAddr
}

type symbolAddr struct {
	addr uint64
	ok   bool
}

func (c *symbolAddrs) lookup(name string, scan func(string) (uint64, bool)) (uint64, bool) {
	c.mu.Lock()
	a, hit := c.m[name]
	c.mu.Unlock()
	if hit {
		return a.addr, a.ok
	}
	a.addr, a.ok = scan(name)
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]symbolAddr{}
	}
	c.m[name] = a
	c.mu.Unlock()
	return a.addr, a.ok
}
