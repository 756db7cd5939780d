package tracefs

import (
	"strconv"
	"strings"
)

// The fetch forms Linux 7.3 reads by itself (Table: BTFCasts,
// CurrentTask, PerCPUReads), as 7.3's trace_probe.c parses them
// (handle_typecast, parse_this_cpu, parse_probe_var_current) and its
// README lists them:
//
//	(STRUCT[,FIELD])VAR->FIELD[->F|.F…]       a BTF typecast; with FIELD,
//	(STRUCT[,FIELD])(FETCHARG)->FIELD…         container_of: VAR points at
//	(STRUCT[,FIELD])+|-OFFS(…)->FIELD…         STRUCT's FIELD
//	$current[->FIELD…]                         the current task (a
//	                                           task_struct without a cast)
//	this_cpu_read(FETCHARG), this_cpu_ptr(FETCHARG)
//	                                           this CPU's copy of the
//	                                           per-CPU variable at FETCHARG
//	                                           (@VAR), or its address
//
// VAR is a BTF argument name, $argN, $retval, $current, %REG or @SYM
// (without an offset: TYPECAST_SYM_OFFSET). A typecast needs a field
// access after its operand (TYPECAST_REQ_FIELD), so casts nest through
// parentheses: ((file)x->f_path.dentry)... is (STRUCT)((T)x->y)->z.

// maxNested is TRACEPROBE_MAX_NESTED_LEVEL: how deep dereferences,
// typecasts and this_cpu_*() nest in one fetcharg.
const maxNested = 8

// FetchForm parses s as one of Linux 7.3's fetch forms: ok is false when
// s is none of them (another fetcharg, or no fetcharg), needs lists the
// Features it uses, and problem says what is wrong with a form that
// starts like one ("" when it is well formed).
func FetchForm(s string) (needs []Feature, ok bool, problem string) {
	if !formStart(s) {
		return nil, false, ""
	}
	p := formParser{s: s}
	p.form(0)
	if p.problem == "" && p.i != len(s) {
		p.fail("unexpected " + strconv.Quote(s[p.i:]) + " after " + strconv.Quote(s[:p.i]))
	}
	if strings.Contains(s, "$current") {
		p.need(CurrentTask)
	}
	if strings.Contains(s, "this_cpu_read(") || strings.Contains(s, "this_cpu_ptr(") {
		p.need(PerCPUReads)
	}
	return p.needs, true, p.problem
}

// formStart reports a fetcharg that starts as one of the forms.
func formStart(s string) bool {
	return strings.HasPrefix(s, "(") || strings.HasPrefix(s, "$current") ||
		strings.HasPrefix(s, "this_cpu_read(") || strings.HasPrefix(s, "this_cpu_ptr(")
}

// formParser reads a fetch form from s, left to right.
type formParser struct {
	s       string
	i       int
	needs   []Feature
	problem string
}

func (p *formParser) need(f Feature) {
	for _, x := range p.needs {
		if x == f {
			return
		}
	}
	p.needs = append(p.needs, f)
}

func (p *formParser) fail(msg string) {
	if p.problem == "" {
		p.problem = msg
	}
}

// form reads one form at p.i, nested depth deep.
func (p *formParser) form(depth int) {
	if depth >= maxNested {
		p.fail("fetchargs nest " + strconv.Itoa(maxNested) + " levels deep at most")
		return
	}
	rest := p.s[p.i:]
	switch {
	case strings.HasPrefix(rest, "("):
		p.cast(depth)
	case strings.HasPrefix(rest, "$current"):
		p.i += len("$current")
		p.members(false)
	case strings.HasPrefix(rest, "this_cpu_read("), strings.HasPrefix(rest, "this_cpu_ptr("):
		p.i += strings.IndexByte(rest, '(')
		if !p.inner(depth, "this_cpu_read and this_cpu_ptr take the fetcharg of a per-CPU variable's address: this_cpu_read(@VAR)") {
			return
		}
	}
}

// cast reads (STRUCT[,FIELD[.FIELD…]])OPERAND->FIELD… at p.i.
func (p *formParser) cast(depth int) {
	p.need(BTFCasts)
	p.i++ // '('
	if p.ident() == "" {
		p.fail("a typecast names a structure: (STRUCT)VAR->FIELD or (STRUCT,FIELD)VAR->FIELD")
		return
	}
	if p.eat(",") {
		if p.ident() == "" {
			p.fail("container_of's typecast names the field the pointer points at: (STRUCT,FIELD)VAR->FIELD")
			return
		}
		for p.eat(".") {
			if p.ident() == "" {
				p.fail("bad field in the typecast of " + strconv.Quote(p.s))
				return
			}
		}
	}
	if !p.eat(")") {
		p.fail("missing ')' in the typecast of " + strconv.Quote(p.s))
		return
	}
	rest := p.s[p.i:]
	switch {
	case strings.HasPrefix(rest, "("), strings.HasPrefix(rest, "this_cpu_read("), strings.HasPrefix(rest, "this_cpu_ptr("):
		if !strings.HasPrefix(rest, "(") {
			p.i += strings.IndexByte(rest, '(')
		}
		if !p.inner(depth, "bad parenthesized fetcharg after the typecast in "+strconv.Quote(p.s)) {
			return
		}
	case strings.HasPrefix(rest, "+"), strings.HasPrefix(rest, "-") && !strings.HasPrefix(rest, "->"):
		open := strings.IndexByte(rest, '(')
		if open < 0 {
			p.fail("a dereference after a typecast needs (FETCHARG): " + strconv.Quote(p.s))
			return
		}
		p.i += open
		if !p.inner(depth, "bad dereference after the typecast in "+strconv.Quote(p.s)) {
			return
		}
	default:
		p.atom()
	}
	if p.problem == "" {
		p.members(true)
	}
}

// atom reads the VAR of (STRUCT)VAR->FIELD: a name, $argN, $retval,
// $current, %REG or @SYM without an offset.
func (p *formParser) atom() {
	start := p.i
	switch {
	case p.eat("$"), p.eat("%"), p.eat("@"):
	}
	if p.ident() == "" {
		p.fail("a typecast applies to a name, $argN, $retval, $current, %REG, @SYM or (FETCHARG), not " + strconv.Quote(p.s[start:]))
		return
	}
	if p.s[start] == '@' && strings.HasPrefix(p.s[p.i:], "+") || p.s[start] == '@' && strings.HasPrefix(p.s[p.i:], "-") && !strings.HasPrefix(p.s[p.i:], "->") {
		p.fail("@SYM+OFFS after a typecast needs parentheses: (STRUCT)(@SYM+OFFS)->FIELD")
	}
}

// inner reads (FETCHARG) at p.i, the '(' first, up to its matching ')':
// a form is parsed in turn, any other fetcharg taken as written.
func (p *formParser) inner(depth int, why string) bool {
	close := matchedParen(p.s, p.i)
	if close < 0 || close == p.i+1 {
		p.fail(why)
		return false
	}
	in := p.s[p.i+1 : close]
	if formStart(in) {
		q := formParser{s: in}
		q.form(depth + 1)
		if q.problem == "" && q.i != len(in) {
			q.fail("unexpected " + strconv.Quote(in[q.i:]) + " in " + strconv.Quote(in))
		}
		for _, f := range q.needs {
			p.need(f)
		}
		if q.problem != "" {
			p.fail(q.problem)
			return false
		}
	}
	p.i = close + 1
	return true
}

// matchedParen is the index of the ')' that closes the '(' at s[open],
// or -1.
func matchedParen(s string, open int) int {
	n := 0
	for j := open; j < len(s); j++ {
		switch s[j] {
		case '(':
			n++
		case ')':
			n--
			if n == 0 {
				return j
			}
		}
	}
	return -1
}

// members reads [->F|.F…]; required, a typecast's first is '->'.
func (p *formParser) members(required bool) {
	if required && !strings.HasPrefix(p.s[p.i:], "->") {
		p.fail("a typecast needs a field access after its operand: (STRUCT)VAR->FIELD")
		return
	}
	for p.problem == "" {
		if !p.eat("->") && !p.eat(".") {
			return
		}
		if p.ident() == "" {
			p.fail("bad field in " + strconv.Quote(p.s))
		}
	}
}

// ident reads a C identifier (or a number, for $argN's N) at p.i.
func (p *formParser) ident() string {
	j := p.i
	for j < len(p.s) {
		c := p.s[j]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c)) {
			break
		}
		j++
	}
	id := p.s[p.i:j]
	p.i = j
	return id
}

func (p *formParser) eat(tok string) bool {
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}
