package probegen

import (
	"fmt"
	"strconv"
	"strings"
)

// Kernel 6.1 limits on a dynamic event line.
const (
	// maxMaxActive is KRETPROBE_MAXACTIVE_MAX.
	maxMaxActive = 4096
	// maxFetchArgLen is MAX_ARGSTR_LEN: a fetcharg body (after NAME=)
	// longer than this is refused with ARG_TOO_LONG.
	maxFetchArgLen = 63
	// maxDefLen is what one write to a *probe_events file can hold
	// (WRITE_BUFSIZE - 2, for '\n' and '\0'); perf's MAX_CMDLEN.
	maxDefLen = 4094
)

// Def is one line of kprobe_events or uprobe_events, in the syntax of the
// kernel's Documentation/trace/kprobetrace.rst and uprobetracer.rst:
//
//	p[:[GRP/]EVENT] [MOD:]SYM[+offs]|MEMADDR [FETCHARGS]    (kprobe)
//	r[MAXACTIVE][:[GRP/]EVENT] [MOD:]SYM[+0] [FETCHARGS]    (kretprobe)
//	p[:[GRP/]EVENT] PATH:OFFSET [FETCHARGS]                 (uprobe)
//	r[:[GRP/]EVENT] PATH:OFFSET [FETCHARGS]                 (uretprobe)
type Def struct {
	Return       bool
	Group, Event string
	Target       string   // "vfs_read+114", "_text+123", "0xffffffff81000000", or for uprobes "/path/bin:0x1234"
	MaxActive    int      // 0 = not written; only for return probes
	Args         []string // already formatted fetchargs, e.g. "name=%di:u64"
}

// String renders d as perf's synthesize_probe_trace_command does, e.g.
// "p:probe/vfs_read_L12 vfs_read+114 a=%di:u64". It does not check d; call
// Validate before writing the line anywhere.
func (d Def) String() string {
	var b strings.Builder
	if d.Return {
		b.WriteByte('r')
	} else {
		b.WriteByte('p')
	}
	if d.MaxActive != 0 {
		b.WriteString(strconv.Itoa(d.MaxActive))
	}
	if d.Event != "" || d.Group != "" {
		b.WriteByte(':')
		if d.Group != "" {
			b.WriteString(d.Group)
			b.WriteByte('/')
		}
		b.WriteString(d.Event)
	}
	b.WriteByte(' ')
	b.WriteString(d.Target)
	for _, a := range d.Args {
		b.WriteByte(' ')
		b.WriteString(a)
	}
	return b.String()
}

// Validate checks that the kernel will read String() as exactly this one
// probe: names are valid (an empty Group means the kernel's default group),
// and no field holds whitespace (which would split it; byte 0xa0 counts), a control character
// (a newline starts a new command) or '#' (which starts a comment and would
// silently drop the rest of the line). It also applies the kernel's limits
// on MAXACTIVE, argument count, names and lengths. Errors wrap
// ErrBadEventName, ErrBadGroupName, ErrBadArgName or ErrBadDefinition.
func (d Def) Validate() error {
	if err := ValidateName(d.Event); err != nil {
		return err
	}
	if d.Group != "" {
		if err := ValidateGroup(d.Group); err != nil {
			return err
		}
	}
	switch {
	case d.MaxActive < 0 || d.MaxActive > maxMaxActive:
		return fmt.Errorf("%w: MAXACTIVE %d out of range 1..%d", ErrBadDefinition, d.MaxActive, maxMaxActive)
	case d.MaxActive > 0 && !d.Return:
		return fmt.Errorf("%w: MAXACTIVE is only for return probes", ErrBadDefinition)
	case d.Target == "":
		return fmt.Errorf("%w: empty target", ErrBadDefinition)
	case len(d.Args) > MaxProbeArgs:
		return fmt.Errorf("%w: %d arguments, at most %d", ErrBadDefinition, len(d.Args), MaxProbeArgs)
	}
	if msg := fieldProblem(d.Target); msg != "" {
		return fmt.Errorf("%w: target %q: %s", ErrBadDefinition, d.Target, msg)
	}
	names := make(map[string]bool, len(d.Args))
	for i, a := range d.Args {
		if msg := fieldProblem(a); msg != "" {
			return fmt.Errorf("%w: argument %q: %s", ErrBadDefinition, a, msg)
		}
		// The kernel names an unnamed argument "arg<N>" (1-based) and
		// takes the part before the first '=' as the name otherwise.
		name, body := "arg"+strconv.Itoa(i+1), a
		if j := strings.IndexByte(a, '='); j >= 0 {
			name, body = a[:j], a[j+1:]
			if err := validateArgName(name); err != nil {
				return err
			}
		}
		if names[name] {
			return fmt.Errorf("%w %q: used twice", ErrBadArgName, name)
		}
		names[name] = true
		if body == "" {
			return fmt.Errorf("%w: argument %q: empty fetcharg", ErrBadDefinition, a)
		}
		if len(body) > maxFetchArgLen {
			return fmt.Errorf("%w: argument %q: fetcharg longer than %d bytes", ErrBadDefinition, a, maxFetchArgLen)
		}
	}
	if n := len(d.String()); n > maxDefLen {
		return fmt.Errorf("%w: line is %d bytes, at most %d", ErrBadDefinition, n, maxDefLen)
	}
	return nil
}

// fieldProblem says why s can't be one whitespace-separated field of a
// probe definition line, or "" if it can.
func fieldProblem(s string) string {
	if s == "" {
		return "empty"
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ':
			return "contains a space"
		case isControl(c):
			return "contains control character " + strconv.QuoteRune(rune(c))
		case c == '#':
			return "contains '#', which starts a comment"
		case c == 0xa0:
			// The kernel's ctype table counts Latin-1 NBSP as a space,
			// so argv_split would cut a UTF-8 "à" (c3 a0) in two.
			return "contains byte 0xa0, which the kernel reads as a space"
		}
	}
	return ""
}
