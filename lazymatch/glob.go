package lazymatch

// matcher is perf's __match_glob. Its quirks are part of the behaviour
// dwprobe must reproduce, so the control flow mirrors perf's; only the
// backtracking is made polynomial (see try).
type matcher struct {
	str, pat string
	lazy     bool
	failed   map[int]struct{} // (si, pi) star continuations known to fail
}

// match matches m.str[si:] against m.pat[pi:].
func (m *matcher) match(si, pi int) bool {
	s, p := m.str, m.pat
	for si < len(s) && pi < len(p) && p[pi] != '*' {
		if m.lazy {
			if isSpace(s[si]) {
				si++
				continue
			}
			if isSpace(p[pi]) {
				pi++
				continue
			}
		}
		switch p[pi] {
		case '?':
			si++
			pi++
			continue
		case '[':
			ok, next := matchClass(p, pi+1, s[si])
			if !ok {
				return false
			}
			si, pi = si+1, next
			continue
		case '\\':
			pi++ // a trailing '\' compares against NUL and fails
		}
		if at(p, pi) != s[si] {
			return false
		}
		si++
		pi++
	}
	if pi < len(p) && p[pi] == '*' {
		for pi < len(p) && p[pi] == '*' {
			pi++
		}
		if pi == len(p) {
			return true // a trailing '*' matches the rest, even nothing
		}
		// Like perf, the empty rest of str is never tried here, so
		// "a*b?" cannot match by letting '?' eat nothing.
		for ; si < len(s); si++ {
			if m.try(si, pi) {
				return true
			}
		}
	}
	return si == len(s) && pi == len(p)
}

// try is match with memoised failures. match is a pure function of
// (si, pi) and any success returns straight to the top, so a state seen
// before has failed; skipping it turns perf's exponential backtracking on
// patterns like "*a*a*a*b" into O(len(str)² · stars) without changing
// any result.
func (m *matcher) try(si, pi int) bool {
	key := si*(len(m.pat)+1) + pi
	if _, seen := m.failed[key]; seen {
		return false
	}
	if m.match(si, pi) {
		return true
	}
	if m.failed == nil {
		m.failed = make(map[int]struct{})
	}
	m.failed[key] = struct{}{}
	return false
}

// matchClass is perf's __match_charclass: it matches c against the class
// whose body starts at pat[p] (just after '[') and returns the index just
// past the closing ']'. A broken class (no ']', or a reversed range that
// is reached before a match) reports false.
//
// Quirks kept from perf: the first byte of the body (after an optional
// '!') is always literal, so "[]a]" and "[-a]" work; a '-' before ']' is
// literal; range ends compare as signed chars, as on x86 where perf
// mostly runs, so bytes >= 0x80 sort before ASCII.
func matchClass(pat string, p int, c byte) (bool, int) {
	complement := false
	if at(pat, p) == '!' {
		complement = true
		p++
	}
	matched := at(pat, p) == c
	p++
	if !matched {
		for ch := at(pat, p); ch != 0 && ch != ']'; ch = at(pat, p) {
			if ch == '-' && at(pat, p+1) != ']' {
				lo, hi := int8(at(pat, p-1)), int8(at(pat, p+1))
				if lo <= int8(c) && int8(c) <= hi {
					matched = true
					break
				}
				if lo > hi {
					return false, 0
				}
				p += 2
				continue
			}
			p++
			if ch == c {
				matched = true
				break
			}
		}
	}
	for at(pat, p) != 0 && at(pat, p) != ']' {
		p++
	}
	if at(pat, p) == 0 {
		return false, 0
	}
	return matched != complement, p + 1
}
