package lazymatch

import "testing"

func TestNameMatcher(t *testing.T) {
	tests := []struct {
		m     NameMatcher
		glob  bool
		exact string // when !glob
		name  string
		want  bool
	}{
		{NewNameMatcher("vfs_read"), false, "vfs_read", "vfs_read", true},
		{NewNameMatcher("vfs_read"), false, "vfs_read", "vfs_readv", false},
		{NewNameMatcher("vfs_*"), true, "", "vfs_read", true},
		{NewNameMatcher("vfs_*"), true, "", "do_vfs", false},
		{NewNameMatcher("a?c"), true, "", "abc", true},
		{NewNameMatcher("[ab]x"), true, "", "bx", true},
		{NewNameMatcher(`a\*`), true, "", "a*", true}, // a glob to perf, escape and all
		{NewNameMatcher("a]"), false, "a]", "a]", true},
		// After a NUL perf sees nothing: not a glob, and compared whole.
		{NewNameMatcher("a\x00*"), false, "a\x00*", "a", false},
		{NewNameMatcher("operator[]"), true, "", "operator[]", false}, // "[]" is a broken class
		{ExactName("operator[]"), false, "operator[]", "operator[]", true},
		{ExactName("vfs_*"), false, "vfs_*", "vfs_read", false},
		{NewNameMatcher(""), false, "", "", true},
		{NameMatcher{}, false, "", "", true},
		{NameMatcher{}, false, "", "x", false},
	}
	for _, tt := range tests {
		if got := tt.m.IsGlob(); got != tt.glob {
			t.Errorf("%q.IsGlob() = %v, want %v", tt.m, got, tt.glob)
		}
		if got, ok := tt.m.Exact(); ok == tt.glob || got != tt.exact {
			t.Errorf("%q.Exact() = %q, %v, want %q, %v", tt.m, got, ok, tt.exact, !tt.glob)
		}
		if got := tt.m.Match(tt.name); got != tt.want {
			t.Errorf("%q.Match(%q) = %v, want %v", tt.m, tt.name, got, tt.want)
		}
	}
}

// TestNameMatcherAgrees: a NameMatcher says it is a glob exactly when
// IsGlob does, and then matches as Glob does.
func TestNameMatcherAgrees(t *testing.T) {
	names := []string{"", "f", "vfs_read", "vfs_*", "*", "a?", "[a-c]*", `x\?`, "a\x00?"}
	for _, pat := range names {
		m := NewNameMatcher(pat)
		if m.IsGlob() != IsGlob(pat) || m.String() != pat {
			t.Errorf("NewNameMatcher(%q) = %q glob %v, IsGlob says %v", pat, m, m.IsGlob(), IsGlob(pat))
		}
		for _, s := range names {
			want := s == pat
			if IsGlob(pat) {
				want = Glob(s, pat)
			}
			if m.Match(s) != want {
				t.Errorf("NewNameMatcher(%q).Match(%q) = %v, want %v", pat, s, !want, want)
			}
		}
	}
}
