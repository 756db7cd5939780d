package lazymatch

import "fmt"

// Filter is perf's strfilter: a boolean expression over Glob patterns, as
// taken by `perf probe --filter` (with --funcs, --vars, --del, --list).
//
// Grammar (perf has no formal one; this is what its parser accepts):
//
//	expr    = and { '|' and }
//	and     = unary { '&' unary }
//	unary   = { '!' } ( pattern | '(' expr ')' )
//
// so '!' binds tightest, then '&', then '|'. Whitespace separates tokens
// and is otherwise ignored. A pattern runs until whitespace or one of
// "!&|()", except that a byte after '\' is taken into the pattern
// (so "a\ b" and "a\|b" are single patterns) and "[!" does not end it.
//
// The zero value and a nil *Filter match nothing, like a NULL strfilter.
type Filter struct {
	rules string
	root  *node
}

// node is a strfilter_node: op is '|', '&', '!' or 0 for a pattern leaf.
type node struct {
	op   byte
	l, r *node
	pat  string
}

// ParseFilter parses rules into a Filter. A rejected filter yields a
// *SyntaxError whose Col is the column perf would report.
func ParseFilter(rules string) (*Filter, error) {
	src := cstr(rules)
	ps := parser{src: src}
	root, end, err := ps.parse(0, 0)
	if err == nil && at(src, end) != 0 {
		// perf's top level stops at a ')' it cannot pair and then
		// rejects the leftover.
		err = &parseErr{end, ErrUnmatchedParen.Error()}
	}
	if err != nil {
		col := err.pos + 1
		if col > len(src)+1 {
			// Only a trailing '\' makes perf step past the terminator;
			// report the end of the input instead of a column beyond it.
			col = len(src) + 1
		}
		return nil, &SyntaxError{Input: rules, Col: col, Msg: err.msg}
	}
	return &Filter{rules: rules, root: root}, nil
}

// Match reports whether s satisfies the filter.
func (f *Filter) Match(s string) bool {
	if f == nil {
		return false
	}
	return f.root.match(s)
}

// String returns the rules as given to ParseFilter.
func (f *Filter) String() string {
	if f == nil {
		return ""
	}
	return f.rules
}

func (n *node) match(s string) bool {
	// Iterate down '!' chains instead of recursing: "!!!!…a" is legal.
	neg := false
	for n != nil && n.op == '!' {
		neg = !neg
		n = n.r
	}
	if n == nil {
		return neg // perf: a NULL node compares false; unreachable when parsed
	}
	var v bool
	switch n.op {
	case '|':
		v = n.l.match(s) || n.r.match(s)
	case '&':
		v = n.l.match(s) && n.r.match(s)
	default:
		v = Glob(s, n.pat)
	}
	return v != neg
}

type parseErr struct {
	pos int // 0-based byte offset of the token perf stops at
	msg string
}

type parser struct{ src string }

func isOperator(c byte) bool  { return c == '|' || c == '&' || c == '!' }
func isSeparator(c byte) bool { return isOperator(c) || c == '(' || c == ')' }

// token is perf's get_token: it skips whitespace from i and returns the
// bounds of the next token. Operators and parentheses are one byte; a
// pattern extends as described on Filter. At the end start == end and
// src[start] reads as NUL. A trailing '\' makes end step one past the
// input, exactly as perf steps past the terminator.
func (ps *parser) token(i int) (start, end int) {
	s := ps.src
	for isSpace(at(s, i)) {
		i++
	}
	if at(s, i) == 0 {
		return i, i
	}
	p := i + 1
	if !isSeparator(s[i]) {
		for {
			for c := at(s, p); c != 0 && !isSeparator(c) && !isSpace(c); c = at(s, p) {
				p++
			}
			if at(s, p-1) == '\\' || (at(s, p) == '!' && at(s, p-1) == '[') {
				p++
				continue
			}
			break
		}
	}
	return i, p
}

// parse is perf's strfilter_node__new over src from i. It stops at the
// end or at a ')' and returns the tree and the offset it stopped at. The
// tree is built the way perf builds it — '&' takes over the operand most
// recently attached, '|' takes over the whole tree so far — which is what
// gives '!' > '&' > '|' precedence.
func (ps *parser) parse(i, depth int) (*node, int, *parseErr) {
	var root node // dummy holder: the tree hangs off root.r
	cur, lastOp := &root, &root
	s, e := ps.token(i)
	for c := at(ps.src, s); c != 0 && c != ')'; c = at(ps.src, s) {
		switch c {
		case '&', '|':
			if cur.r == nil {
				return nil, s, &parseErr{s, fmt.Sprintf("%s before '%c'", ErrMissingOperand, c)}
			}
			if c == '&' {
				cur = &node{op: '&', l: lastOp.r}
				lastOp.r = cur
			} else {
				cur = &node{op: '|', l: root.r}
				root.r = cur
			}
			lastOp = cur
		case '!':
			if cur.r != nil {
				return nil, s, &parseErr{s, fmt.Sprintf("%s before '!'", ErrMissingOperator)}
			}
			cur.r = &node{op: '!'}
			cur = cur.r
		case '(':
			if cur.r != nil {
				return nil, s, &parseErr{s, fmt.Sprintf("%s before '('", ErrMissingOperator)}
			}
			sub, end, err := ps.parse(s+1, depth+1)
			if err != nil {
				return nil, end, err
			}
			if at(ps.src, end) != ')' {
				return nil, end, &parseErr{end, ErrMissingParen.Error()}
			}
			cur.r = sub
			e = end + 1
		default:
			if cur.r != nil {
				return nil, s, &parseErr{s, fmt.Sprintf("%s before %q", ErrMissingOperator, ps.text(s, e))}
			}
			cur.r = &node{pat: ps.text(s, e)}
		}
		s, e = ps.token(e)
	}
	if cur.r == nil {
		var msg string
		switch {
		case at(ps.src, s) == ')':
			msg = fmt.Sprintf("%s before ')'", ErrMissingOperand)
		case root.r == nil && depth == 0:
			msg = ErrEmpty.Error()
		default:
			msg = fmt.Sprintf("%s at end of input", ErrMissingOperand)
		}
		return nil, s, &parseErr{s, msg}
	}
	return root.r, s, nil
}

// text is src[s:e] clamped to the input, as perf's strndup stops at NUL.
func (ps *parser) text(s, e int) string {
	e = min(e, len(ps.src))
	s = min(s, e)
	return ps.src[s:e]
}
