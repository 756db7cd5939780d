package tracefs

import (
	"strconv"
	"strings"
)

// The fetch forms Linux 7.3 reads by itself (Table: BTFCasts,
// CurrentTask, PerCPUReads):
//
//	(STRUCT)OPERAND[->M|.M…]               a BTF typecast
//	(STRUCT,MEMBER[.MEMBER…])OPERAND[->M…] container_of: OPERAND points at
//	                                       STRUCT's MEMBER
//	$current                               the current task
//	this_cpu_read(SYM), this_cpu_ptr(SYM)  this CPU's copy of a per-CPU
//	                                       variable, or its address
//
// OPERAND is a BTF argument name, $argN, $retval, $current, %REG,
// this_cpu_ptr(SYM), this_cpu_read(SYM) or a typecast in parentheses:
// casts nest up to two levels, ((file)x->y)->z's inner one counting.

// maxCastDepth is how deep typecasts nest: a cast inside a cast.
const maxCastDepth = 2

// FetchForm parses s as one of Linux 7.3's fetch forms: ok is false when
// s is none of them (another fetcharg, or no fetcharg), needs lists the
// Features it uses, and problem says what is wrong with a form that
// starts like one ("" when it is well formed).
func FetchForm(s string) (needs []Feature, ok bool, problem string) {
	switch {
	case strings.HasPrefix(s, "("):
	case strings.HasPrefix(s, "$current"), strings.HasPrefix(s, "this_cpu_read("), strings.HasPrefix(s, "this_cpu_ptr("):
	default:
		return nil, false, ""
	}
	p := formParser{s: s}
	p.operand(0)
	if p.problem == "" && p.i != len(s) {
		p.problem = "unexpected " + strconv.Quote(s[p.i:]) + " after " + strconv.Quote(s[:p.i])
	}
	return p.needs, true, p.problem
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

// operand reads OPERAND[->M|.M…] at depth casts.
func (p *formParser) operand(depth int) {
	rest := p.s[p.i:]
	switch {
	case strings.HasPrefix(rest, "(("):
		// A parenthesized typecast, then its members.
		if depth >= maxCastDepth {
			p.fail("typecasts nest " + strconv.Itoa(maxCastDepth) + " levels deep at most")
			return
		}
		p.i++
		p.cast(depth + 1)
		if !p.eat(")") {
			p.fail("missing ')' after the typecast in " + strconv.Quote(p.s))
			return
		}
	case strings.HasPrefix(rest, "("):
		if depth >= maxCastDepth {
			p.fail("typecasts nest " + strconv.Itoa(maxCastDepth) + " levels deep at most")
			return
		}
		p.cast(depth + 1)
		return
	case strings.HasPrefix(rest, "$current"):
		p.i += len("$current")
		p.need(CurrentTask)
	case strings.HasPrefix(rest, "this_cpu_read("), strings.HasPrefix(rest, "this_cpu_ptr("):
		p.i += strings.IndexByte(rest, '(') + 1
		if p.ident() == "" || !p.eat(")") {
			p.fail("this_cpu_read and this_cpu_ptr take the name of a per-CPU variable: this_cpu_read(VAR)")
			return
		}
		p.need(PerCPUReads)
	case strings.HasPrefix(rest, "$arg"), strings.HasPrefix(rest, "$retval"):
		p.i++
		if p.ident() == "" {
			p.fail("bad variable in " + strconv.Quote(p.s))
			return
		}
	case strings.HasPrefix(rest, "%"):
		p.i++
		if p.ident() == "" {
			p.fail("bad register in " + strconv.Quote(p.s))
			return
		}
	default:
		if p.ident() == "" {
			p.fail("a typecast applies to a name, $argN, $retval, $current, a register or this_cpu_ptr(VAR), not " + strconv.Quote(rest))
			return
		}
		if depth == 0 {
			return // a plain name is no form of its own
		}
	}
	p.members()
}

// cast reads (STRUCT[,MEMBER[.MEMBER…]])OPERAND at p.i, the '(' first.
func (p *formParser) cast(depth int) {
	p.need(BTFCasts)
	p.i++ // '('
	if p.ident() == "" {
		p.fail("a typecast names a structure: (STRUCT)VAR->MEMBER or (STRUCT,MEMBER)VAR->MEMBER")
		return
	}
	if p.eat(",") {
		if p.ident() == "" {
			p.fail("container_of's typecast names the member the pointer points at: (STRUCT,MEMBER)VAR")
			return
		}
		for p.eat(".") {
			if p.ident() == "" {
				p.fail("bad member in the typecast of " + strconv.Quote(p.s))
				return
			}
		}
	}
	if !p.eat(")") {
		p.fail("missing ')' in the typecast of " + strconv.Quote(p.s))
		return
	}
	p.operand(depth)
}

// members reads [->M|.M…].
func (p *formParser) members() {
	for p.problem == "" {
		if !p.eat("->") && !p.eat(".") {
			return
		}
		if p.ident() == "" {
			p.fail("bad member in " + strconv.Quote(p.s))
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
