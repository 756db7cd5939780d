package probegen

import (
	"strings"

	"github.com/dwprobe/dwprobe/probegen/grammar"
)

// PerfArg renders an argument as perf's synthesize_perf_probe_arg does
// after parsing it: NAME=VAR->FIELD…[:TYPE], where a member chain without
// a NAME= is named after its last member ("p->name:string" ->
// "name=p->name:string") and "@user" is dropped.
func PerfArg(a grammar.Arg) string {
	name := a.Name
	if name == "" && isCVarName(a.Expr) && strings.ContainsAny(a.Expr, "-.[") {
		if v, fs, err := splitFields(a.Expr); err == nil {
			name = v
			for _, f := range fs {
				if !f.isIdx {
					name = f.name
				}
			}
		}
	}
	s := a.Expr
	if name != "" {
		s = name + "=" + s
	}
	if a.Type != "" {
		s += ":" + a.Type
	}
	return s
}
