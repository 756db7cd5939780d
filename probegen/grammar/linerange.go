package grammar

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// LineRange is a parsed -L argument, perf's parse_line_range_desc:
//
//	FUNC[@SRC][:RLN[+NUM|-RLN2]] | SRC[:ALN[+NUM|-ALN2]]
type LineRange struct {
	Function string
	File     string
	Start    int // 0 when not given
	End      int // inclusive; math.MaxInt32 when not given
}

// ParseLineRange parses a -L argument. Errors are *SyntaxError with the
// column of the problem.
func ParseLineRange(s string) (*LineRange, error) {
	if err := CheckChars(s, s, 0, false); err != nil {
		return nil, err
	}
	lr := &LineRange{End: math.MaxInt32}
	head := s
	if i := rangeColon(s); i >= 0 {
		if i == 0 {
			return nil, synErr(s, 1, "no file or function name before ':'")
		}
		head = s[:i]
		p := i + 1
		neg := p < len(s) && s[p] == '-' // perf's strtol takes "vfs_read:-3"
		if neg {
			p++
		}
		n, l := leadingInt(s[p:])
		if l == 0 {
			return nil, synErr(s, p+1, "start line missing")
		}
		if neg {
			n = -n
		}
		lr.Start = n
		p += l
		if p < len(s) && (s[p] == '+' || s[p] == '-') {
			c := s[p]
			p++
			m, l := leadingInt(s[p:])
			if l == 0 {
				return nil, synErr(s, p+1, "end line missing")
			}
			p += l
			if c == '+' {
				if m == 0 {
					return nil, synErr(s, p, "the number of lines must be positive")
				}
				lr.End = lr.Start + m - 1
			} else {
				lr.End = m
			}
		}
		if p < len(s) {
			return nil, synErr(s, p+1, fmt.Sprintf("unexpected %q after the line range (write FUNC@SRC:RLN)", s[p:]))
		}
		if lr.Start > lr.End {
			return nil, synErr(s, i+2, "start line must not be after the end line")
		}
	}
	if i := indexUnescaped(head, '@'); i >= 0 {
		if f := head[i+1:]; f != "*" {
			lr.File = unescape(f)
		}
		lr.Function = unescape(head[:i])
		if lr.Function == "" && lr.File == "" {
			return nil, synErr(s, 1, "'@*' alone names nothing")
		}
	} else if q, ok := strings.CutPrefix(head, `"`); ok && len(q) > 1 && strings.HasSuffix(q, `"`) {
		lr.Function = q[:len(q)-1] // "ns::C::operator<" as upstream perf quotes it
	} else if strings.ContainsAny(head, "/.") && looksLikeFile(head) {
		lr.File = unescape(head)
	} else if IsCIdent(head) || langFuncName(head) {
		lr.Function = unescape(head)
	} else {
		return nil, synErr(s, 1, fmt.Sprintf("%q is not a valid function name", head))
	}
	return lr, nil
}

// rangeColon is the ':' that starts the line numbers: not escaped, not
// part of a C++ or Rust "::", not inside a quoted name.
func rangeColon(s string) int {
	i := nameEnd(s, 0)
	for i < len(s) && s[i] != ':' {
		i = nameEnd(s, i+1)
	}
	if i >= len(s) {
		return -1
	}
	return i
}

// langFuncName reports a C++, Rust or Go function name: scoped
// ("geo::Box::grow", "r::work"), or dotted and not a file ("main.fn",
// "example.com/app/shapes.(*Rect).Scale").
func langFuncName(s string) bool {
	return strings.Contains(s, "::") || strings.ContainsAny(s, "./") && !looksLikeFile(s)
}

func indexUnescaped(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] == c {
			return i
		}
	}
	return -1
}

// leadingInt parses the decimal digits at the start of s.
func leadingInt(s string) (int, int) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, 0
	}
	n, err := strconv.Atoi(s[:i])
	if err != nil || n > math.MaxInt32 {
		return math.MaxInt32, i
	}
	return n, i
}
