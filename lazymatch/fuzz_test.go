package lazymatch

import (
	"errors"
	"strings"
	"testing"
)

var globSeeds = []string{
	"", "*", "**", "?", "a", "vfs_*", "*read", "a*b*c", "[abc]", "[a-z]",
	"[!abc]", "[]a]", "[!]]", "[a-]", "[z-a]", "[", "[!", "[a", "\\", "a\\",
	"\\*", "\\[", "a*\\", "[\x80-\xff]", "rq=cpu_rq*", " a b ", "a* ",
}

// escapeAll makes every byte of s literal.
func escapeAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte('\\')
		b.WriteByte(s[i])
	}
	return b.String()
}

func FuzzGlob(f *testing.F) {
	for _, p := range globSeeds {
		f.Add("vfs_read", p)
		f.Add(p, p)
	}
	f.Fuzz(func(t *testing.T, str, pat string) {
		got := Glob(str, pat)
		if !strings.ContainsAny(pat, "*?[\\") {
			if got != (cstr(str) == cstr(pat)) {
				t.Fatalf("Glob(%q, %q) = %v for a literal pattern", str, pat, got)
			}
		}
		if !strings.ContainsAny(str, "*?[\\") && !Glob(str, str) {
			t.Fatalf("Glob(s, s) false for literal %q", str)
		}
		if !Glob(str, escapeAll(cstr(str))) {
			t.Fatalf("Glob(%q, escaped self) false", str)
		}
		if !Glob(str, "*") {
			t.Fatalf("Glob(%q, \"*\") false", str)
		}
		if IsGlob(pat) != strings.ContainsAny(cstr(pat), "*?[") {
			t.Fatalf("IsGlob(%q) wrong", pat)
		}
		SourceTail(str, pat)
	})
}

// hasSpace reports whether the C string s contains bytes Lazy skips.
func hasSpace(s string) bool {
	s = cstr(s)
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) {
			return true
		}
	}
	return false
}

func FuzzLazy(f *testing.F) {
	for _, p := range globSeeds {
		f.Add("rq = cpu_rq(cpu);", p)
		f.Add(p, p)
	}
	f.Fuzz(func(t *testing.T, str, pat string) {
		got := Lazy(str, pat)
		if !hasSpace(str) && !hasSpace(pat) && got != Glob(str, pat) {
			t.Fatalf("Lazy(%q, %q) = %v differs from Glob without whitespace", str, pat, got)
		}
		if !Lazy(str, "*") {
			t.Fatalf("Lazy(%q, \"*\") false", str)
		}
		// Dropping the whitespace and closing with '*' always matches.
		if s := cstr(str); !strings.ContainsAny(s, "*?[\\") {
			var b strings.Builder
			for i := 0; i < len(s); i++ {
				if !isSpace(s[i]) {
					b.WriteByte(s[i])
				}
			}
			if !Lazy(str, b.String()+"*") {
				t.Fatalf("Lazy(%q, %q) false", str, b.String()+"*")
			}
		}
	})
}

func FuzzParseFilter(f *testing.F) {
	for _, r := range []string{
		"", " ", "a", "!_*", "!_* & !*@plt", "!__k???tab_* & !__crc_*",
		"a|b&c", "!(a|b)&c", "a|(b", "a)", "()", "a b", "a\\ b", "a\\",
		"(a\\", "[!_]*", "!!a", "((a)|(b))", "a&&b", "|",
	} {
		f.Add(r, "vfs_read")
		f.Add(r, "_x")
	}
	f.Fuzz(func(t *testing.T, rules, s string) {
		flt, err := ParseFilter(rules)
		if (err == nil) != (flt != nil) {
			t.Fatalf("ParseFilter(%q) = %v, %v", rules, flt, err)
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) {
				t.Fatalf("ParseFilter(%q): bad error %v", rules, err)
			}
			if se.Col < 1 || se.Col > len(cstr(rules))+1 || se.Input != rules {
				t.Fatalf("ParseFilter(%q): bad column in %v", rules, err)
			}
			n := 0
			for _, c := range causes {
				if errors.Is(err, c) {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("ParseFilter(%q): %v matches %d causes", rules, err, n)
			}
			_ = se.Error()
			return
		}
		if flt.String() != rules {
			t.Fatalf("String() = %q, want %q", flt.String(), rules)
		}
		got := flt.Match(s)
		// Wrapping a valid filter as "!( … )" must negate it.
		if neg, err := ParseFilter("!(" + rules + ")"); err == nil && neg.Match(s) == got {
			t.Fatalf("filter %q and its negation agree on %q", rules, s)
		}
	})
}
