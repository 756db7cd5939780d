package dwarfres

import "sort"

// funcSpan is one address range of a top-level subprogram.
type funcSpan struct {
	lo, hi uint64
	die    int
}

// funcSpans are a unit's function ranges sorted by start; maxHi[j] is
// the highest end among spans[:j+1].
type funcSpans struct {
	spans []funcSpan
	maxHi []uint64
}

// newFuncSpans sorts the ranges of t's top-level subprograms.
func newFuncSpans(t *cuTree) *funcSpans {
	fs := &funcSpans{}
	for _, i := range t.topFuncs() {
		if d := &t.dies[i]; !d.HasLow && !d.HasRanges {
			continue
		}
		for _, r := range t.ranges(i) {
			if r.High > r.Low {
				fs.spans = append(fs.spans, funcSpan{r.Low, r.High, i})
			}
		}
	}
	sort.SliceStable(fs.spans, func(a, b int) bool { return fs.spans[a].lo < fs.spans[b].lo })
	var hi uint64
	for _, s := range fs.spans {
		hi = max(hi, s.hi)
		fs.maxHi = append(fs.maxHi, hi)
	}
	return fs
}

// at is the top-level subprogram containing pc, the first in DIE order
// when ranges overlap (cuTree.realFunc), or -1.
func (fs *funcSpans) at(pc uint64) int {
	j := sort.Search(len(fs.spans), func(j int) bool { return fs.spans[j].lo > pc }) - 1
	best := -1
	// Look back while an earlier span may still reach pc.
	for ; j >= 0 && fs.maxHi[j] > pc; j-- {
		if s := fs.spans[j]; pc < s.hi && (best < 0 || s.die < best) {
			best = s.die
		}
	}
	return best
}
