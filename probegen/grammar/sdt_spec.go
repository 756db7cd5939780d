package grammar

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/tracefs"
)

// parseSDTPoint parses perf's %[GROUP:]EVENT and sdt_PROVIDER:NAME
// (parse_perf_probe_point's SDT branch): GROUP and EVENT are globs, the
// group an event group ("sdt_python"), not a provider. perf's @TARGET is
// refused: the binary is given as for any uprobe.
func parseSDTPoint(spec, s string, base int) (*Point, error) {
	p := &Point{SDT: true}
	i := 0
	if strings.HasPrefix(s, "%") {
		i = 1
	}
	if j := findUnescaped(s, i, ";=@+%"); j < len(s) {
		msg := fmt.Sprintf("%s must be an SDT name, [%%][GROUP:]EVENT", s[i:])
		if s[j] == '@' {
			msg = fmt.Sprintf("%s: an SDT marker is read from the binary probed, not from @TARGET", s[i:])
		}
		return nil, synErr(spec, base+j+1, msg)
	}
	name := s[i:]
	if j := findUnescaped(name, 0, ":"); j < len(name) {
		p.Group, name = unescape(name[:j]), name[j+1:]
	}
	p.Event = unescape(name)
	if p.Event == "" {
		return nil, synErr(spec, base+len(s)+1, "SDT event name missing")
	}
	return p, nil
}

// SDTString renders an SDT point as it parses: %GROUP:EVENT.
func (p *Point) SDTString() string {
	if p.Group == "" {
		return "%" + escape(p.Event)
	}
	return "%" + escape(p.Group) + ":" + escape(p.Event)
}

// CheckSDTArgs checks the arguments of an SDT spec: [NAME=]argN[:TYPE],
// the note's arguments picked, renamed or read as another type.
func CheckSDTArgs(spec *Spec) error {
	for _, a := range spec.Args {
		if _, ok := SDTArgIndex(a.Expr); !ok || a.User {
			return synErr(spec.Raw, a.Col, fmt.Sprintf("%s: an SDT marker's arguments are its note's: [NAME=]argN[:TYPE]", a.Raw))
		}
	}
	return nil
}

// SDTArgIndex reads argN (N from 1) as the 0-based index N-1.
func SDTArgIndex(s string) (int, bool) {
	d, ok := strings.CutPrefix(s, "arg")
	n, err := strconv.Atoi(d)
	if !ok || err != nil || n < 1 || n > tracefs.MaxArgs || d[0] == '+' {
		return 0, false
	}
	return n - 1, true
}
