package elfsym

import (
	"sync"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// knownCounts holds the counts CountAhead found, for Count.
type knownCounts struct {
	mu sync.Mutex
	m  map[string]int32
}

func (k *knownCounts) get(name string) (int32, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	n, ok := k.m[name]
	return n, ok
}

// CountAhead finds Count's answer for every one of names in one scan of
// the table, for Count to answer from: the points of one query ask
// about their symbols one by one (getname_flags on the 6.12 vmlinux has
// 51, inlined in 51 functions: a scan each cost 27 ms of its 59).
func (st *Symtab) CountAhead(names []string) {
	want := map[string]int32{}
	var prefixes [1 << 16 / 64]uint64 // the two first bytes of each name
	for _, n := range names {
		if _, ok := st.known.get(n); ok || n == "" {
			continue
		}
		want[n] = 0
		k := prefixKey(n)
		prefixes[k/64] |= 1 << (k % 64)
	}
	if len(want) < 2 {
		return // Count's scan is as cheap
	}
	// The scan counts as one of Count's: past countScans of them, a run
	// of many specs builds the table of every name once instead.
	if _, ok := st.counts.table(countScans, func() map[string]int32 { return nameCounts(st) }); ok {
		return
	}
	tab := st.strtab
	count := func(off uint32, keep func() bool) {
		if int(off)+1 >= len(tab) {
			return
		}
		k := uint(tab[off]) | uint(tab[off+1])<<8
		if prefixes[k/64]&(1<<(k%64)) == 0 {
			return
		}
		name := elfobj.StrAt(tab, off)
		if n, ok := want[string(name)]; ok && keep() {
			want[string(name)] = n + 1
		}
	}
	if st.enc != nil {
		// The table itself, as symEnc.count reads it.
		obj := st.enc.obj
		data := st.enc.symdata
		for i, end := uint32(1), uint32(obj.SymbolCount(data)); i < end; i++ {
			off, _ := obj.RawSymName(data, i)
			count(off, func() bool {
				s, _ := obj.RawSymAt(data, i)
				return kallsymsListed(s, tab)
			})
		}
	} else {
		for _, off := range st.nameOffs() {
			count(off, func() bool { return true })
		}
	}
	st.known.mu.Lock()
	defer st.known.mu.Unlock()
	if st.known.m == nil {
		st.known.m = map[string]int32{}
	}
	for n, c := range want {
		st.known.m[n] = c
	}
}

// prefixKey is a name's first two bytes (the second 0 for a one-byte
// name, as the NUL that ends it in the string table).
func prefixKey(n string) uint {
	k := uint(n[0])
	if len(n) > 1 {
		k |= uint(n[1]) << 8
	}
	return k
}
