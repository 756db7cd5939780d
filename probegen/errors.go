package probegen

import (
	"fmt"
	"strings"
)

// MemberError: a structure or union has no member of the name asked for.
type MemberError struct {
	Var     string   // the variable or member whose type was searched
	Type    string   // "struct file"
	Member  string   // the name asked for
	Closest []string // the type's member names nearest to Member
}

// Error formats as `f (type struct file) has no member f_nosuch; did you
// mean f_mode?`.
func (e *MemberError) Error() string {
	msg := fmt.Sprintf("%s (type %s) has no member %s", e.Var, e.Type, e.Member)
	if len(e.Closest) > 0 {
		msg += "; did you mean " + strings.Join(e.Closest, ", ") + "?"
	}
	return msg
}

// VarError: no variable of the name asked for is declared where the probe
// is (its function, the blocks around the point, or the unit's globals).
type VarError struct {
	Name     string   // the name asked for
	Function string   // the function searched
	Closest  []string // the names visible there nearest to Name
}

// Error formats as `no variable "fil" in vfs_read or its unit; did you
// mean file?`.
func (e *VarError) Error() string {
	msg := fmt.Sprintf("no variable %q in %s or its unit", e.Name, e.Function)
	if len(e.Closest) > 0 {
		msg += "; did you mean " + strings.Join(e.Closest, ", ") + "?"
	}
	return msg
}
