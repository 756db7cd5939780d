package dwarfres

import (
	"bytes"
	"context"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// unitScan is the job of choosing the units a query reads, before any is
// decoded: the index's answer when f has one, else a scan of the bytes of
// .debug_info for references to a name (refScan) or of each unit's
// top-level DIEs (unitMatches), and of those the units that define the
// function (unitskim.go).
type unitScan struct{ f *File }

// candidates returns the indexes of units that may contain the query, and
// for a file query the distinct file paths that matched in them.
// For an exact function name it scans .debug_info for references to the
// name's string (a few tens of milliseconds for a vmlinux) instead of
// decoding every unit; otherwise it scans each unit's top-level DIEs, in
// parallel. An attached index answers all of these in microseconds.
func (s unitScan) candidates(units []unit, q Query, src sourceName) ([]int, []string, error) {
	f := s.f
	ix := f.index()
	if q.scan {
		ix = nil
	}
	if ix != nil {
		if c, paths, ok := ix.candidates(q, src); ok {
			return c, paths, nil
		}
		ix = f.index() // nil, and said so, if the lookup found it corrupt
	}
	if q.fn() != "" && !q.Function.IsGlob() && !hasTemplateArgs(q.fn()) {
		if c, ok := s.refScan(units, scopeLeaf(q.fn()), ix); ok {
			return c, nil, nil
		}
	}
	keep := make([]bool, len(units))
	found := make([][]string, len(units))
	err := parallel(f.context(), len(units), func(_, ui int) error {
		if !units[ui].holdsCode() {
			return nil
		}
		var err error
		keep[ui], found[ui], err = s.unitMatches(&units[ui], q, src)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	var out []int
	var paths []string
	for i, k := range keep {
		if k {
			out = append(out, i)
			for _, p := range found[i] {
				if !slices.Contains(paths, p) {
					paths = append(paths, p)
				}
			}
		}
	}
	return out, paths, nil
}

// unitMatches checks one unit: for a function query, whether a
// subprogram dwarf_getfuncs visits has a matching name of its own; for a file query, whether the unit's line
// table names the file, and with which paths.
func (s unitScan) unitMatches(u *unit, q Query, src sourceName) (bool, []string, error) {
	f := s.f
	if _, err := f.rootDIE(u); err != nil {
		return false, nil, err
	}
	if q.fn() == "" {
		names, err := lineProgram{f, u}.fileNames()
		if err != nil {
			return false, nil, err
		}
		var paths []string
		for _, n := range names {
			if n != "" && src.matches(n) && !slices.Contains(paths, n) {
				paths = append(paths, n)
			}
		}
		return len(paths) > 0, paths, nil
	}
	r := f.newReader(u)
	var d die
	if !r.next(&d) { // root
		return false, nil, r.err
	}
	for r.next(&d) {
		if d.Depth < 1 {
			break
		}
		if d.Tag == tagSubprogram && d.HasName() && q.Function.Match(f.rawName(u, &d)) {
			return true, nil, nil
		}
		if needsDecodedUnit(q.fn()) && !u.cOnly() {
			return true, nil, nil // scopes are checked on the decoded unit
		}
		if u.cOnly() {
			r.skipChildren(&d) // C functions are all top-level
		}
	}
	return false, nil, r.err
}

// refScan finds units whose bytes reference name: as a .debug_str offset
// (DW_FORM_strp) or inline (DW_FORM_string). It reports ok=false when the
// file uses forms a byte scan cannot see (string offsets tables, 64-bit
// DWARF), and the caller falls back to a full scan. With an index ix, it
// answers the units naming name as a function or a global variable.
func (s unitScan) refScan(units []unit, name string, ix *Index) ([]int, bool) {
	f := s.f
	if ix != nil {
		if c, ok := ix.nameUnits(name); ok {
			return c, true
		}
	}
	if !(indexer{f}).byteScannable(units) {
		return nil, false
	}
	if out, ok := f.refs.get(name); ok {
		return out, true
	}
	pats := s.refPatterns(name)
	info := f.sec(".debug_info")
	hit := make([]bool, len(units))
	// Read through small buffers rather than the mapping, so the scan
	// does not leave the whole section resident; chunks go to all cores.
	const chunk = 4 << 20
	nchunks := (len(info) + chunk - 1) / chunk
	bufs := make([][]byte, workers())
	var mu sync.Mutex
	err := parallel(f.context(), nchunks, func(w, c int) error {
		if bufs[w] == nil {
			bufs[w] = make([]byte, min(chunk, len(info))+16) // small sections, small buffers
		}
		off := c * chunk
		end := min(off+chunk+15, len(info))
		b := bufs[w][:f.readInfo(bufs[w][:end-off], uint64(off))]
		for _, p := range pats {
			indexAll(b, p, func(i int) {
				if ui := f.unitIndex(uint64(off + i)); ui >= 0 {
					mu.Lock()
					hit[ui] = true
					mu.Unlock()
				}
			})
		}
		return nil
	})
	if err != nil {
		return nil, false // cut short: the full scan reports why
	}
	var out []int
	for i := range units {
		if hit[i] && units[i].holdsCode() {
			out = append(out, i)
		}
	}
	f.refs.put(name, out)
	return out, true
}

// refMemo keeps refScan's answers: a pass over all of .debug_info each,
// and the specs of a run ask again for the same names (without an index,
// every spec of a function). Bounded: a run of thousands of names keeps
// the last refMemoNames.
type refMemo struct {
	mu sync.Mutex
	m  map[string][]int
}

const refMemoNames = 256

func (c *refMemo) get(name string) ([]int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	us, ok := c.m[name]
	return slices.Clone(us), ok // the caller's to change
}

func (c *refMemo) put(name string, us []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= refMemoNames {
		c.m = map[string][]int{}
	}
	c.m[name] = us
}

// refPatterns are the byte strings a reference to name may be in
// .debug_info: its .debug_str offsets as 32-bit values, and the string
// itself (DW_FORM_string) when it is short or not in .debug_str.
func (s unitScan) refPatterns(name string) [][]byte {
	f := s.f
	str := f.sec(".debug_str")
	key := append([]byte(name), 0)
	// A linker merging .debug_str keeps one copy of each distinct string:
	// either standalone (after a NUL) or, tail-merged, inside a longer
	// string. So references all use the standalone copies when there are
	// any, and only otherwise one of the tail positions.
	var whole, tails []uint32
	for off := 0; ; {
		i := bytes.Index(str[off:], key)
		if i < 0 {
			break
		}
		at := off + i
		if at == 0 || str[at-1] == 0 {
			whole = append(whole, uint32(at))
		} else {
			tails = append(tails, uint32(at))
		}
		off = at + 1
	}
	if len(whole) == 0 {
		whole = tails
	}
	var pats [][]byte
	for _, at := range whole {
		p := make([]byte, 4)
		f.Order.PutUint32(p, at)
		pats = append(pats, p)
	}
	if len(name) < 4 || len(pats) == 0 {
		pats = append(pats, key) // DW_FORM_string
	}
	return pats
}

// indexAll calls fn with every position of pat in b. It searches for the
// pattern's rarest-looking byte (the largest value: small ones fill DWARF)
// and checks the rest, which beats bytes.Index when the first byte of a
// string offset happens to be common.
func indexAll(b, pat []byte, fn func(int)) {
	j := 0
	for k := range pat {
		if pat[k] > pat[j] {
			j = k
		}
	}
	for k := j; k < len(b); {
		i := bytes.IndexByte(b[k:], pat[j])
		if i < 0 {
			return
		}
		at := k + i - j
		if at+len(pat) <= len(b) && bytes.Equal(b[at:at+len(pat)], pat) {
			fn(at)
		}
		k += i + 1
	}
}

// workers is how many goroutines parallel runs.
func workers() int { return runtime.NumCPU() }

// parallel calls fn(w, i) for every i in [0, n) on workers() goroutines,
// w being the worker's number (for per-worker buffers), and returns the
// first error a call returned. Once ctx is done no call starts: ctx's
// error is returned.
func parallel(ctx context.Context, n int, fn func(w, i int) error) error {
	work := make(chan int, n)
	for i := 0; i < n; i++ {
		work <- i
	}
	close(work)
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for w := 0; w < workers(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				err := ctx.Err()
				if err == nil {
					err = callRecovered(fn, w, i)
				}
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err // not a unit's error that a cut-short walk caused
	}
	return first
}

// callRecovered is fn(w, i) with a panic on malformed input turned into
// an error: the readers' own recover cannot reach a worker goroutine.
// A fault on a mapped file truncated under the query is one too
// (elfobj.FaultError): these goroutines are the query's.
func callRecovered(fn func(w, i int) error, w, i int) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer elfobj.Guard(&err, "debuginfo")
	return fn(w, i)
}
