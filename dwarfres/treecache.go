package dwarfres

import (
	"container/list"
	"sync"
	"unsafe"
)

// treeCacheBytes bounds the decoded units a File keeps. A vmlinux unit
// decodes to 0.4 MB on average (its types' bodies left for type walks:
// cuTree.body): this holds the units of the last specs, so that specs
// sharing units (FUNC, FUNC:N, FUNC%return, the points of one probe and
// the questions asked at each) decode them once, while a run of hundreds
// of specs, or a probe in a thousand units (kmalloc's 1,810 points),
// stays within perf's memory for one query. The conformance suite's 654
// specs on the 6.1 vmlinux, two specs at once: 0.52 s and 226 MB with 40
// MB, 0.49 s and 272 MB with 64 (perf's one query: 0.55 s, 221 MB).
const treeCacheBytes = 40 << 20

// treeCache keeps the most recently used decoded units of a File, by unit
// offset, evicting the least recently used beyond its byte budget: the
// specs of one run, the points of one spec and the questions asked at each
// point (variables, notes, -l) share one decode of each unit. Nothing else
// holds a tree for long (a Scope names its unit and DIEs, not the tree), so
// an evicted tree is freed. Safe for concurrent use.
type treeCache struct {
	mu     sync.Mutex
	budget int
	used   int
	byOff  map[uint64]*list.Element // of *cachedTree
	lru    list.List                // front: most recently used
	// decodes counts the units decoded, for tests.
	decodes int
}

type cachedTree struct {
	off  uint64
	t    *cuTree
	size int
}

// tree returns unit u decoded, from the cache or decoded now.
func (f *File) tree(u *unit) (*cuTree, error) {
	c := &f.trees
	c.mu.Lock()
	if e, ok := c.byOff[u.off]; ok {
		c.lru.MoveToFront(e)
		c.mu.Unlock()
		return e.Value.(*cachedTree).t, nil
	}
	c.mu.Unlock()
	// Decode unlocked: units decode in parallel, and a rare race decodes
	// one twice (the second copy is dropped).
	t, err := f.decodeUnit(u)
	if err != nil {
		return nil, err
	}
	return c.add(u.off, t), nil
}

// treeIfNeeded is tree, or nil when u is not cached and need says false.
func (f *File) treeIfNeeded(u *unit, need func(*unit) (bool, error)) (*cuTree, error) {
	if need != nil && !f.trees.has(u.off) {
		if ok, err := need(u); !ok || err != nil {
			return nil, err
		}
	}
	return f.tree(u)
}

func (c *treeCache) has(off uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.byOff[off]
	return ok
}

// add caches t as the tree of the unit at off, unless another goroutine
// did first (that tree is returned), and evicts down to the budget; the
// newest tree stays even when it alone exceeds it.
func (c *treeCache) add(off uint64, t *cuTree) *cuTree {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.decodes++
	if e, ok := c.byOff[off]; ok {
		c.lru.MoveToFront(e)
		return e.Value.(*cachedTree).t
	}
	if c.byOff == nil {
		c.byOff = map[uint64]*list.Element{}
		if c.budget == 0 {
			c.budget = treeCacheBytes
		}
	}
	ct := &cachedTree{off: off, t: t, size: t.size()}
	c.byOff[off] = c.lru.PushFront(ct)
	c.used += ct.size
	for c.used > c.budget && c.lru.Len() > 1 {
		old := c.lru.Remove(c.lru.Back()).(*cachedTree)
		delete(c.byOff, old.off)
		c.used -= old.size
	}
	return t
}

// size approximates the memory a decoded unit holds: its DIEs, and its
// line table, which is about as large per byte of unit when it is read.
func (t *cuTree) size() int {
	return cap(t.dies)*int(unsafe.Sizeof(die{})) + int(t.u.end-t.u.off)
}

// eachTree calls fn with the decoded units units[idx[0]], units[idx[1]],
// ... in that order (with the decode error, if any), decoding up to
// workers() units ahead on the other cores, and stops at fn's first error.
// A probe whose points span a thousand units spends most of its time
// decoding them. A unit that is not cached and for which need (if not
// nil) says false is not decoded: fn gets a nil tree.
func (f *File) eachTree(units []unit, idx []int, need func(*unit) (bool, error), fn func(*cuTree, error) error) error {
	if len(idx) < 2 || workers() < 2 {
		for _, ui := range idx {
			if err := fn(f.treeIfNeeded(&units[ui], need)); err != nil {
				return err
			}
		}
		return nil
	}
	type result struct {
		t   *cuTree
		err error
	}
	res := make([]chan result, len(idx))
	for i := range res {
		res[i] = make(chan result, 1)
	}
	// Decoders still running when fn stops the walk are waited for: the
	// caller may close (unmap) the file as soon as this returns.
	var running sync.WaitGroup
	defer running.Wait()
	stop := make(chan struct{})
	defer close(stop)
	// A slot is taken per unit from the start of its decode until fn
	// has seen it.
	slots := make(chan struct{}, workers())
	running.Add(1)
	go func() {
		defer running.Done()
		for i, ui := range idx {
			select {
			case slots <- struct{}{}:
			case <-stop:
				return
			}
			running.Add(1)
			go func() {
				defer running.Done()
				var r result
				r.err = callRecovered(func(int, int) error {
					var err error
					r.t, err = f.treeIfNeeded(&units[ui], need)
					return err
				}, 0, 0)
				res[i] <- r
			}()
		}
	}()
	for i := range idx {
		r := <-res[i]
		<-slots
		if err := fn(r.t, r.err); err != nil {
			return err
		}
	}
	return nil
}
