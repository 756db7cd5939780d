package lazymatch

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Every error returned by ParseFilter is a *SyntaxError;
// it unwraps to ErrSyntax and also matches (errors.Is) the one sentinel
// below that names its cause, so callers can react without parsing Msg.
var (
	// ErrSyntax is the class of every filter parse error.
	ErrSyntax = errors.New("syntax error")
	// ErrEmpty means the filter has no pattern at all ("" or only spaces).
	ErrEmpty = errors.New("empty filter")
	// ErrMissingOperand means '&', '|', ')' or the end of the rules came
	// where a pattern, '!' or '(' was required (e.g. "a|", "&a", "!", "()").
	ErrMissingOperand = errors.New("missing operand")
	// ErrMissingOperator means an operand directly follows another operand
	// (e.g. "a b", "a!b", "a(b)"); perf has no implicit operator.
	ErrMissingOperator = errors.New("expected '&' or '|'")
	// ErrMissingParen means a '(' is not closed before the end of the rules.
	ErrMissingParen = errors.New("missing ')'")
	// ErrUnmatchedParen means a ')' has no matching '('.
	ErrUnmatchedParen = errors.New("unmatched ')'")
)

// causes are the sentinels a SyntaxError's Msg can start with; Is keys on
// the prefix so a SyntaxError built by hand still classifies correctly.
var causes = []error{ErrEmpty, ErrMissingOperand, ErrMissingOperator, ErrMissingParen, ErrUnmatchedParen}

// SyntaxError reports where a filter failed to parse. Col is 1-based and is
// the column perf itself prints in "Filter parse error at N."
type SyntaxError struct {
	Input string // the rules as given to ParseFilter
	Col   int    // 1-based byte column of the offending token (len+1 at end)
	Msg   string // what was wrong; starts with the text of a cause sentinel
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("filter %q: column %d: %s", e.Input, e.Col, e.Msg)
}

// Unwrap returns ErrSyntax so errors.Is(err, ErrSyntax) holds for all
// filter parse errors.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// Is reports whether target is the sentinel naming this error's cause.
func (e *SyntaxError) Is(target error) bool {
	for _, c := range causes {
		if target == c {
			return strings.HasPrefix(e.Msg, c.Error())
		}
	}
	return false
}

// cstr cuts s at its first NUL, the end perf would see.
func cstr(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// at returns s[i], or NUL past the end. perf's matchers read the C
// terminator (and, on malformed patterns, a byte or two beyond it); reading
// NUL there keeps every such path well defined and failing.
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// isSpace is the kernel's isspace (tools/lib/ctype.c), which perf links
// instead of libc's: \t \n \v \f \r, space, and Latin-1 NBSP (0xA0).
func isSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xA0
}

// Glob reports whether str matches pat with perf's glob rules
// (strglobmatch): '*' matches any run, '?' any one byte, "[abc]", "[a-z]"
// and "[!abc]" are byte classes, and '\' makes the next byte literal.
// As in perf, a pattern with an unterminated '[' or a trailing '\' matches
// nothing, and a reversed range ("[z-a]") fails its class unless a member
// before it matched first.
func Glob(str, pat string) bool {
	m := matcher{str: cstr(str), pat: cstr(pat)}
	return m.match(0, 0)
}

// Lazy reports whether str matches pat with perf's lazy rules
// (strlazymatch, used for `perf probe 'func;pattern'` source lines):
// whitespace is skipped in both string and pattern while literal parts are
// compared, otherwise as Glob. As in perf, whitespace left over at the very
// end is not skipped: a string ending in whitespace matches only a pattern
// ending in '*' (Lazy("a ", "a") is false, Lazy("a ", "a*") true), and a
// pattern ending in whitespace matches nothing (Lazy("a", "a ") is false).
func Lazy(str, pat string) bool {
	m := matcher{str: cstr(str), pat: cstr(pat), lazy: true}
	return m.match(0, 0)
}

// IsGlob reports whether s contains '*', '?' or '[', the test perf's
// strisglob uses to decide between exact lookup and pattern search.
// Escapes are not considered: "a\*" counts as a glob, as in perf.
func IsGlob(s string) bool {
	return strings.ContainsAny(cstr(s), "*?[")
}
