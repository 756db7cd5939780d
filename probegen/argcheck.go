package probegen

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
)

// isCVarName is perf's is_c_varname: a C variable (to look up in DWARF)
// rather than a register, a symbol or a special value.
func isCVarName(s string) bool {
	return s != "" && (s[0] == '_' || s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z')
}

// checkArgs refuses, before any DWARF work, what perf accepts but the
// kernel would not: C variables on return probes, $retval on entry probes,
// unknown types and registers the kernel has no name for.
func (e *argEnv) checkArgs(args []grammar.Arg) error {
	for _, a := range args {
		if err := e.checkArg(a); err != nil {
			return err
		}
	}
	return nil
}

func (e *argEnv) checkArg(a grammar.Arg) error {
	bad := func(format string, v ...any) error {
		return &grammar.SyntaxError{Spec: e.spec, Col: a.Col, Msg: fmt.Sprintf("argument %q: ", a.Raw) + fmt.Sprintf(format, v...)}
	}
	if d := e.dialect(); a.Type != "" && !perfCast(a.Type) && !d.HasType(a.Type) {
		return bad("unknown type %q (%s has %s; perf adds u/s/x)", a.Type, d.From, d.Types())
	}
	if needs, ok, problem := tracefs.FetchForm(a.Expr); ok {
		return e.checkForm(a, needs, problem)
	}
	switch {
	case a.Expr == "$vars" || a.Expr == "$params":
		if e.ret {
			return bad("%s is not available on a return probe (only $retval is)", a.Expr)
		}
	case a.Expr == "$retval" || btfRetvalPath(a.Expr):
		if !e.ret {
			return bad("$retval is only available on a return probe (FUNC%%return)")
		}
		if a.Expr != "$retval" {
			if _, _, err := splitFields("x" + a.Expr[len(retvalExpr):]); err != nil {
				return bad("%v", err)
			}
		}
	case isCVarName(a.Expr):
		if e.ret {
			return bad("local variables are not available on a return probe (only $retval is)")
		}
		if err := checkCExpr(a.Expr); err != nil {
			return bad("%v", err)
		}
	default:
		if err := e.checkRaw(a.Expr); err != nil {
			return bad("%v", err)
		}
	}
	return nil
}

// checkForm checks one of Linux 7.3's fetch forms (tracefs.FetchForm:
// typecasts, $current, this_cpu_read), which pass through as written to
// a kernel that reads them and are refused, with the version that does,
// for one that does not.
func (e *argEnv) checkForm(a grammar.Arg, needs []tracefs.Feature, problem string) error {
	bad := func(format string, v ...any) error {
		return &grammar.SyntaxError{Spec: e.spec, Col: a.Col, Msg: fmt.Sprintf("argument %q: ", a.Raw) + fmt.Sprintf(format, v...)}
	}
	if problem != "" {
		return bad("%s", problem)
	}
	if e.user {
		return bad("%s is read by kernel probes only (kprobes and fprobes), not by uprobes", a.Expr)
	}
	d := e.dialect()
	for _, f := range needs {
		if d.Has(f) {
			continue
		}
		if why, ok := d.Lacks(f); ok {
			return bad("this kernel does not read %s: %s", f, why)
		}
		return bad("%s does not read %s (%s added it)", d.From, f, f.Since())
	}
	return nil
}

// isFetchForm reports one of Linux 7.3's fetch forms, which the kernel
// reads by itself: passed through as written.
func isFetchForm(expr string) bool {
	_, ok, _ := tracefs.FetchForm(expr)
	return ok
}

// perfCast is perf's signedness cast: the size comes from debuginfo.
func perfCast(t string) bool { return t == "u" || t == "s" || t == "x" }

// checkCExpr checks the member/index syntax of VAR(->M|.M|[N])*.
func checkCExpr(s string) error {
	_, _, err := splitFields(s)
	return err
}

// field is one step of VAR->a.b[2]: a member through a pointer (arrow), a
// member of a structure, or an array index.
type field struct {
	name  string
	arrow bool
	index int64
	isIdx bool
}

// splitFields parses VAR and its chain as perf's parse_perf_probe_arg does.
func splitFields(s string) (string, []field, error) {
	i := strings.IndexAny(s, "-.[")
	if i < 0 {
		return s, nil, nil
	}
	v := s[:i]
	rest := s[i:]
	var fs []field
	for rest != "" {
		switch {
		case rest[0] == '[':
			j := strings.IndexByte(rest, ']')
			if j < 2 {
				return "", nil, errors.New("array index must be a number")
			}
			n, err := strconv.ParseInt(rest[1:j], 0, 64)
			if err != nil {
				return "", nil, errors.New("array index must be a number")
			}
			fs = append(fs, field{name: rest[:j+1], index: n, isIdx: true, arrow: true})
			rest = rest[j+1:]
			continue
		case strings.HasPrefix(rest, "->"):
			rest = rest[2:]
			fs = append(fs, field{arrow: true})
		case rest[0] == '.':
			rest = rest[1:]
			fs = append(fs, field{})
		default:
			return "", nil, fmt.Errorf("cannot parse %q", rest)
		}
		j := strings.IndexAny(rest, "-.[")
		if j < 0 {
			j = len(rest)
		}
		name := rest[:j]
		if !grammar.IsCIdent(name) {
			return "", nil, fmt.Errorf("bad member name %q", name)
		}
		fs[len(fs)-1].name = name
		rest = rest[j:]
	}
	return v, fs, nil
}

var reRawReg = regexp.MustCompile(`^%([a-z0-9_]+)$`)

// checkRaw checks a kprobe fetcharg passed through as written.
func (e *argEnv) checkRaw(s string) error {
	switch {
	case s == "$comm" || s == "$stack" || s == "$retval":
		return nil
	case strings.HasPrefix(s, "$stack"):
		if _, err := strconv.ParseUint(s[6:], 10, 32); err != nil {
			return fmt.Errorf("bad stack slot %q", s)
		}
		return nil
	case strings.HasPrefix(s, "$arg"):
		if n, err := strconv.ParseUint(s[4:], 10, 32); err != nil || n == 0 {
			return fmt.Errorf("bad function argument %q ($arg1, $arg2, ...)", s)
		}
		return nil
	case strings.HasPrefix(s, "$"):
		return fmt.Errorf("unknown special variable %q", s)
	case strings.HasPrefix(s, "%"):
		return checkRawReg(e.m, s)
	case strings.HasPrefix(s, `\`):
		if len(s) > 1 && s[1] == '"' {
			return nil
		}
		if _, err := strconv.ParseInt(s[1:], 0, 64); err != nil {
			if _, err := strconv.ParseUint(s[1:], 0, 64); err != nil {
				return fmt.Errorf("bad immediate %q", s)
			}
		}
		return nil
	case strings.HasPrefix(s, "@"):
		if len(s) == 1 {
			return errors.New("'@' needs a symbol or an address")
		}
		return nil
	case s[0] == '+' || s[0] == '-':
		i := strings.IndexByte(s, '(')
		if i < 0 || !strings.HasSuffix(s, ")") {
			return fmt.Errorf("bad dereference %q: want +|-OFFS(FETCHARG)", s)
		}
		off := strings.TrimPrefix(s[1:i], "u")
		if _, err := strconv.ParseInt(off, 0, 64); err != nil {
			return fmt.Errorf("bad offset in %q", s)
		}
		return e.checkRaw(s[i+1 : len(s)-1])
	}
	return fmt.Errorf("cannot parse %q", s)
}
