package elfsym

import (
	"strings"
	"sync"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// afterScans holds a table built once, after a number of questions were
// answered by scans of a whole table (the caller's): a query asks about
// its few points, a probe in a thousand functions (kmalloc's inlined
// copies) about each of them. The rule Symtab.Count, funcSymbolAt and
// Notrace share; each says after how many scans its table pays.
type afterScans[T any] struct {
	mu    sync.Mutex
	calls int
	built bool
	v     T
}

// table returns the table, building it with build on the question past
// the first scans; ok is false while a scan is cheaper.
func (c *afterScans[T]) table(scans int, build func() T) (v T, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.built {
		if c.calls++; c.calls <= scans {
			return v, false
		}
		c.v, c.built = build(), true
	}
	return c.v, true
}

// countScans is how many names Count looks up by scanning before it builds
// the table of every name's count: a scan of a vmlinux's 200,000 names
// costs about 0.2 ms, the table about 25 ms, so a query's dozen points
// (getname_flags: 12) are cheaper scanned.
const countScans = 64

// nameCounts is Symtab.Count's table: how many symbols bear each name.
func nameCounts(st *Symtab) map[string]int32 {
	names := st.nameOffs()
	m := make(map[string]int32, len(names))
	for _, off := range names {
		m[string(elfobj.StrAt(st.strtab, off))]++
	}
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

// nameScans is how many lookups by name Symtab.Named leaves to its
// caller's scan before it builds its table: a scan of a vmlinux's symbols
// costs about 3 ms, the table about 30, and a spec asks once (a single
// query never builds it), so a spec file pays for the table after a few
// specs (the 654 conformance specs: 100 ms of CPU less than after 16).
const nameScans = 4

// byName is Symtab.Named's table: the positions in address order of the
// text symbols under each name less its "@VERSION", and whether any
// name is mangled (a pattern may match its demangled form instead).
type byName struct {
	at      map[string][]int32
	mangled bool
}

// nameTable builds st's byName.
func nameTable(st *Symtab) byName {
	t := byName{at: map[string][]int32{}}
	i := int32(0)
	st.Each(func(s Sym) {
		n, _, _ := strings.Cut(s.Name, "@")
		t.at[n] = append(t.at[n], i)
		t.mangled = t.mangled || strings.HasPrefix(n, "_Z") || strings.HasPrefix(n, "_R")
		i++
	})
	return t
}
