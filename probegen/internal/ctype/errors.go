package ctype

import "fmt"

// MemberError: a structure or union has no member of the name asked
// for. probegen gives it to its callers as probegen.MemberError, with
// the nearest of Names as suggestions.
type MemberError struct {
	Var    string   // the variable or member whose type was searched
	Type   string   // "struct file"
	Member string   // the name asked for
	Names  []string // the names the type's members can be found by
}

// Error formats as `f (type struct file) has no member f_nosuch`.
func (e *MemberError) Error() string {
	return fmt.Sprintf("%s (type %s) has no member %s", e.Var, e.Type, e.Member)
}
