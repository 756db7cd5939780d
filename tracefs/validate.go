package tracefs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Validate checks that the kernel reads e.String() as exactly this one
// probe and accepts it, with Linux 6.1's rules (kernel/trace/trace_probe.c,
// trace_kprobe.c, trace_uprobe.c): an explicit GROUP/EVENT (ValidateName),
// MAXACTIVE 1..4096 on kretprobes only, a uprobe target PATH:OFFSET with a
// '/' in PATH, at most 128 arguments with distinct names the kernel
// accepts, each fetcharg in the kernel's grammar (see fetchProblem) and at
// most 63 bytes, no field that whitespace, a control character or '#'
// would split, end or cut, and a line of at most 4094 bytes. Types and
// register names differ between kernels: Dialect.Check checks those.
// Errors are *DefError (wrapping ErrBadDefinition), or wrap
// ErrNotSupported for an unknown kind.
func (e Event) Validate() error {
	if _, err := e.Kind.file(); err != nil {
		return err
	}
	if err := e.validateHead(); err != nil {
		return err
	}
	if err := e.validateTarget(); err != nil {
		return err
	}
	if len(e.Args) > MaxArgs {
		return &DefError{Field: 2 + MaxArgs, Pos: -1, Msg: fmt.Sprintf("%d arguments, at most %d", len(e.Args), MaxArgs)}
	}
	names := make(map[string]bool, len(e.Args))
	all := false
	for i, a := range e.Args {
		if err := e.CheckArg(i, a); err != nil {
			return err
		}
		if a.Fetch == "$arg*" {
			if all {
				return &DefError{Field: 2 + i, Pos: -1, Msg: "$arg* used twice"}
			}
			all = true
			continue
		}
		name := kernelArgName(i, a)
		if names[name] {
			return &DefError{Field: 2 + i, Pos: -1, Err: ErrBadArgName, Msg: fmt.Sprintf("argument name %q used twice", name)}
		}
		names[name] = true
	}
	if n := len(e.String()); n > maxDefLen {
		return &DefError{Pos: -1, Msg: fmt.Sprintf("%d bytes, at most %d", n, maxDefLen)}
	}
	return nil
}

// funcNameRE is a function symbol as an fprobe takes it: a C name,
// perhaps with GCC's suffixes (".isra.0", ".cold").
var funcNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`)

// kernelArgName is the name the kernel gives argument i, a: its NAME, or
// for an unnamed one the fetcharg itself if it is a plain name (a BTF
// argument, generate_probe_arg_name), else arg<i+1>.
func kernelArgName(i int, a Arg) string {
	switch {
	case a.Name != "":
		return a.Name
	case isName(a.Fetch, false):
		return a.Fetch
	}
	return "arg" + strconv.Itoa(i+1)
}

// headProblem says what is wrong with e's type letter for its kind.
func (e Event) headProblem() string {
	switch e.Kind {
	case FProbe:
		if e.Type != 'f' {
			return "an fprobe starts with f:"
		}
	case TProbe:
		if e.Type != 't' {
			return "a tracepoint probe starts with t:"
		}
	default:
		if e.Type != 'p' && e.Type != 'r' {
			return "must start with p: or r:"
		}
	}
	return ""
}

// validateHead checks "p:GROUP/EVENT", "rN:GROUP/EVENT", "fN:GROUP/EVENT"
// and "t:GROUP/EVENT".
func (e Event) validateHead() error {
	bad := func(off int, sentinel error, format string, v ...any) error {
		return &DefError{Off: off, Pos: -1, Err: sentinel, Msg: fmt.Sprintf(format, v...)}
	}
	switch {
	case e.headProblem() != "":
		return bad(0, nil, "%s", e.headProblem())
	case e.MaxActive != 0 && e.Type == 'f' && !e.Return():
		return bad(1, nil, "MAXACTIVE is only for return probes (fN:GROUP/EVENT SYM%%return)")
	case e.MaxActive != 0 && (e.Type == 'p' || e.Type == 't'):
		return bad(1, nil, "MAXACTIVE is only for return probes (rN:)")
	case e.MaxActive != 0 && e.Kind == UProbe:
		return bad(1, nil, "uprobes take no MAXACTIVE")
	case e.MaxActive < 0 || e.MaxActive > maxMaxActive:
		return bad(1, nil, "MAXACTIVE must be a decimal number from 1 to %d", maxMaxActive)
	}
	off := 2
	if e.MaxActive != 0 {
		off += len(strconv.Itoa(e.MaxActive))
	}
	if msg := nameProblem(GroupName, e.Group); msg != "" {
		return bad(off, ErrBadGroupName, "group %q: %s", e.Group, msg)
	}
	if msg := nameProblem(EventName, e.Name); msg != "" {
		return bad(off+len(e.Group)+1, ErrBadEventName, "event %q: %s", e.Name, msg)
	}
	return nil
}

// validateTarget checks the probe point field.
func (e Event) validateTarget() error {
	bad := func(format string, v ...any) error {
		return &DefError{Field: 1, Pos: -1, Msg: fmt.Sprintf(format, v...)}
	}
	if e.Target == "" {
		return bad("no probe point")
	}
	if msg := fieldProblem(e.Target); msg != "" {
		return bad("target %q: %s", e.Target, msg)
	}
	switch e.Kind {
	case FProbe:
		// parse_symbol_and_return: SYM, or SYM%return; no offset.
		sym := strings.TrimSuffix(e.Target, "%return")
		if !funcNameRE.MatchString(sym) {
			return bad("fprobe target %q is not a function name, optionally with %%return", e.Target)
		}
		return nil
	case TProbe:
		// BAD_TP_NAME: letters, digits and '_' only.
		if !isName(e.Target, false) {
			return bad("tracepoint %q is not a tracepoint name (letters, digits, '_')", e.Target)
		}
		return nil
	}
	if e.Kind == UProbe {
		// trace_uprobe_create ignores (ECANCELED) a target without '/' and
		// takes the offset after the last ':'.
		i := strings.LastIndexByte(e.Target, ':')
		if !strings.Contains(e.Target, "/") || i < 0 || i+1 == len(e.Target) || !isDigit(e.Target[i+1]) {
			return bad("uprobe target %q is not PATH:OFFSET with a '/' in PATH", e.Target)
		}
	}
	return nil
}

// CheckArg checks argument i of e, a, as Validate does (all but the
// uniqueness of its name), so a caller building e can point at the input
// an argument came from.
func (e Event) CheckArg(i int, a Arg) error {
	bad := func(off int, sentinel error, format string, v ...any) error {
		return &DefError{Field: 2 + i, Off: off, Pos: -1, Err: sentinel,
			Msg: fmt.Sprintf("argument %q: ", a.String()) + fmt.Sprintf(format, v...)}
	}
	body := 0
	if a.Name != "" {
		if msg := nameProblem(ArgName, a.Name); msg != "" {
			return bad(0, ErrBadArgName, "name %s", msg)
		}
		body = len(a.Name) + 1
	}
	if a.Fetch == "" {
		return bad(body, nil, "no fetch expression")
	}
	if msg := fieldProblem(a.String()); msg != "" {
		return bad(body, nil, "%s", msg)
	}
	if n := len(a.String()) - body; n > maxFetchArgLen {
		return bad(body, nil, "fetcharg of %d bytes, at most %d", n, maxFetchArgLen)
	}
	if msg, off := e.fetchProblem(a.Fetch); msg != "" {
		return bad(body+off, nil, "%s", msg)
	}
	if strings.Contains(a.Fetch, "$arg*") && (a.Name != "" || a.Fetch != "$arg*") {
		// argv_has_var_arg finds it only as a whole argument.
		return bad(0, nil, "$arg* stands for all the function's arguments: write it alone, without NAME= or a dereference")
	}
	if a.Type != "" && !validType(a.Type) {
		return bad(body+len(a.Fetch)+1, nil, "unknown type %q", a.Type)
	}
	if msg := typeProblem(a); msg != "" {
		return bad(body+len(a.Fetch)+1, nil, "%s", msg)
	}
	return nil
}

// typeProblem checks a type against what it fetches, as
// traceprobe_parse_probe_arg does: $comm and an immediate string are
// strings and nothing else; string and ustring read memory (a
// dereference, @ADDR, @SYM, an immediate; BAD_STRING otherwise); symstr
// names an address held in a register, a stack slot, $retval, $argN or
// memory (BAD_SYMSTRING); an array is read from memory, and symstr has
// none.
func typeProblem(a Arg) string {
	base, _, array := strings.Cut(a.Type, "[")
	f := a.Fetch
	memory := strings.ContainsAny(f[:1], "+-@")
	switch {
	case f == "$comm" || f == "$COMM" || strings.HasPrefix(f, `\"`):
		if a.Type != "" && a.Type != "string" {
			return fmt.Sprintf("%s is a string: its type is string or none, not %s", f, a.Type)
		}
	case base == "string" || base == "ustring":
		// A BTF argument of type char * is read as a string
		// (check_prepare_btf_string_fetch); the kernel checks its type.
		if _, form, _ := FetchForm(f); !memory && f[0] != '\\' && !btfName(f) && !form {
			return fmt.Sprintf("a %s is read from memory: write +0(%s):%s", base, f, a.Type)
		}
	case base == "symstr" && (array || f[0] == '\\' || f == "$stack"):
		return fmt.Sprintf("symstr is the name of an address in a register, a stack slot, $retval, $argN or memory, one at a time, not %s:%s", f, a.Type)
	case array && !memory:
		return fmt.Sprintf("an array is read from memory: write +0(%s):%s", f, a.Type)
	}
	return ""
}
