package lazymatch

// NameMatcher matches function names the way perf probe treats the FUNC
// of a probe point: a name with glob characters (IsGlob, perf's
// strisglob) is a pattern matched with Glob, any other name is matched
// exactly. Whether the name is a glob and how it matches are decided once,
// when the NameMatcher is made, so code that asks "may several functions
// match?" and code that asks "does this one match?" cannot disagree.
//
// The zero NameMatcher is the exact name "": it matches only "".
type NameMatcher struct {
	text string
	glob bool
}

// NewNameMatcher returns the matcher for a function name as the user
// wrote it: a glob pattern if IsGlob(pattern), else an exact name.
func NewNameMatcher(pattern string) NameMatcher {
	return NameMatcher{text: pattern, glob: IsGlob(pattern)}
}

// ExactName returns a matcher for name alone, glob characters and all:
// for a name found in debuginfo or a symbol table ("operator[]"), not
// typed by the user.
func ExactName(name string) NameMatcher {
	return NameMatcher{text: name}
}

// IsGlob reports whether m is a pattern that several names may match.
func (m NameMatcher) IsGlob() bool { return m.glob }

// Match reports whether name matches m: by Glob for a pattern, by
// byte-wise equality otherwise.
func (m NameMatcher) Match(name string) bool {
	if m.glob {
		return Glob(name, m.text)
	}
	return name == m.text
}

// Exact returns the name m matches and true, or "" and false when m is a
// glob pattern.
func (m NameMatcher) Exact() (string, bool) {
	if m.glob {
		return "", false
	}
	return m.text, true
}

// String returns the name or pattern as it was given.
func (m NameMatcher) String() string { return m.text }
