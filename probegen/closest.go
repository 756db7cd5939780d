package probegen

import "sort"

// closest returns up to n of names nearest to want by edit distance,
// nearest first, among those close enough to be a likely typo (at most a
// third of want's length, at least 2 edits; or sharing want as a prefix).
func closest(want string, names []string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	limit := max(2, len(want)/3)
	var cs []cand
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		d := editDistance(want, n)
		if d <= limit || (len(want) >= 3 && len(n) > len(want) && n[:len(want)] == want) {
			cs = append(cs, cand{n, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// Closest is closest for callers that suggest their own names (cmd's
// options).
func Closest(want string, names []string, n int) []string { return closest(want, names, n) }

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
