package probegen

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/internal/ctype"
	"github.com/dwprobe/dwprobe/probegen/listing"
	"github.com/dwprobe/dwprobe/tracefs"
)

// retvalExpr is $retval, which the BTF path also reads members through:
// BTF types the return value.
const retvalExpr = "$retval"

// btfRetvalPath reports whether expr is $retval followed by members or
// indexes ($retval->f_path.dentry).
func btfRetvalPath(expr string) bool {
	return strings.HasPrefix(expr, retvalExpr) && len(expr) > len(retvalExpr) && strings.ContainsRune("-.[", rune(expr[len(retvalExpr)]))
}

// readsRetval reports whether an argument is $retval itself.
func readsRetval(args []grammar.Arg) bool {
	for _, a := range args {
		if a.Expr == retvalExpr {
			return true
		}
	}
	return false
}

// readsRetvalMembers reports whether an argument reads through $retval's
// members, which a return probe types from the function's DWARF.
func readsRetvalMembers(args []grammar.Arg) bool {
	for _, a := range args {
		if btfRetvalPath(a.Expr) {
			return true
		}
	}
	return false
}

// btfCheckArgs is checkArgs, which also lets a return probe read through
// $retval's members.
func btfCheckArgs(env *argEnv, args []grammar.Arg) error {
	for _, a := range args {
		if btfRetvalPath(a.Expr) {
			c := a
			c.Expr = retvalExpr
			if err := env.checkArg(c); err != nil {
				return err
			}
			if _, _, err := splitFields("x" + a.Expr[len(retvalExpr):]); err != nil {
				return env.causeErr(a, err)
			}
			continue
		}
		if err := env.checkArg(a); err != nil {
			return err
		}
	}
	return nil
}

// btfConvertArgs turns the arguments of a probe on fn into fetchargs,
// expanding $params (and $vars, which BTF can only answer with the
// parameters) as convertArgs does.
func btfConvertArgs(env *argEnv, fn btfFunc, args []grammar.Arg) ([]argSlot, error) {
	cc, _ := callConvFor(env.m)
	params := cc.place(fn.proto)
	var out []argSlot
	for i, a := range args {
		if a.Expr != "$vars" && a.Expr != "$params" {
			r, err := btfConvertArg(env, fn, params, a)
			if err != nil {
				return nil, err
			}
			out = append(out, argSlot{res: r, orig: i})
			continue
		}
		if a.Expr == "$vars" {
			env.note(answer.NoteArgSkipped, fmt.Sprintf("%s: BTF knows no local variables: $vars reads the parameters of %s only", env.spec, fn.name))
		}
		for _, p := range params {
			if p.name == "" {
				continue
			}
			r, err := btfConvertArg(env, fn, params, grammar.Arg{Raw: p.name, Expr: p.name, Col: a.Col})
			if err != nil {
				why := err.Error()
				var se *grammar.SyntaxError
				if errors.As(err, &se) {
					why = se.Msg
				}
				env.note(answer.NoteArgSkipped, fmt.Sprintf("%s: %s skips %s: %s", env.spec, a.Expr, p.name, why))
				continue
			}
			out = append(out, argSlot{res: r, orig: -1})
		}
	}
	if len(out) > tracefs.MaxArgs {
		return nil, fmt.Errorf("%s: %d arguments after expanding $vars/$params, the kernel takes at most %d", env.spec, len(out), tracefs.MaxArgs)
	}
	return out, nil
}

// btfConvertArg is convertArg for BTF: a parameter by name at the entry,
// or $retval at a return, and then its members.
func btfConvertArg(env *argEnv, fn btfFunc, params []paramLoc, a grammar.Arg) (tracefs.Arg, error) {
	ret := a.Expr == retvalExpr || btfRetvalPath(a.Expr)
	if !ret && !isCVarName(a.Expr) || isFetchForm(a.Expr) {
		return rawArg(a), nil
	}
	expr := a.Expr
	if ret {
		expr = "retval" + expr[len(retvalExpr):]
	}
	vname, fields, err := splitFields(expr)
	if err != nil {
		return tracefs.Arg{}, env.causeErr(a, err)
	}
	r := tracefs.Arg{Name: argName(a, vname, fields)}
	var f *fetch
	var cur ctype.Val
	if ret {
		if a.Name == "" && len(fields) == 0 {
			r.Name = "" // the kernel names $retval arg1... as perf leaves it
		}
		f, cur = &fetch{base: retvalBase}, ctype.BTFVal("the return value of "+fn.name, fn.proto.Return)
	} else {
		p, ok := btfParam(params, vname)
		if !ok {
			return tracefs.Arg{}, env.argErr(a, "%s has no parameter %s (its parameters: %s); BTF knows no local variables: %s", fn.name, vname, paramList(params), needDWARF)
		}
		if p.why != "" {
			return tracefs.Arg{}, env.argErr(a, "parameter %s of %s is not where a fetcharg can name it at the entry: %s (%s)", vname, fn.name, p.why, needDWARF)
		}
		f, cur = p.fetch(), ctype.BTFVal(vname, p.typ)
	}
	for _, fl := range fields {
		if cur, err = stepField(f, cur, fl, a.User); err != nil {
			return tracefs.Arg{}, env.valErr(a, cur, err)
		}
	}
	if r.Type, err = fetchType(f, cur, a.Type, a.User); err != nil {
		return tracefs.Arg{}, env.valErr(a, cur, err)
	}
	fe, err := fetchOf(f, cur)
	if err != nil {
		return tracefs.Arg{}, env.argErr(a, "%s: %v", a.Expr, err)
	}
	return tracefs.NewArg(r.Name, fe, r.Type), nil
}

func btfParam(params []paramLoc, name string) (paramLoc, bool) {
	for _, p := range params {
		if p.name == name {
			return p, true
		}
	}
	return paramLoc{}, false
}

func paramList(params []paramLoc) string {
	var names []string
	for _, p := range params {
		names = append(names, p.name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// BTFVars is -V from BTF: the parameters of each function of spec at its
// entry, with perf's "TYPE\tNAME" lines; parameters the calling
// convention cannot place are Unreadable.
func BTFVars(k *BTFTarget, spec *grammar.Spec, o ResolveOptions, filter string) ([]listing.VarList, error) {
	fns, err := k.resolve(&spec.Point, o)
	if err != nil {
		return nil, &PointError{Spec: spec.Raw, Err: err}
	}
	match := func(string) bool { return true }
	if filter != "" {
		flt, err := lazymatch.ParseFilter(filter)
		if err != nil {
			return nil, err
		}
		match = flt.Match
	}
	var out []listing.VarList
	cc, _ := callConvFor(k.Machine)
	for _, fn := range fns {
		vl := listing.VarList{Point: fn.name + "+0"}
		for _, p := range cc.place(fn.proto) {
			switch {
			case p.name == "" || !match(p.name):
			case p.why != "":
				vl.Unreadable = append(vl.Unreadable, listing.UnreadableVar{Name: p.name, Err: fmt.Errorf("%s", p.why)})
			default:
				vl.Lines = append(vl.Lines, ctype.BTFName(p.typ)+"\t"+p.name)
			}
		}
		sort.Strings(vl.Lines)
		out = append(out, vl)
	}
	return out, nil
}

// BTFFunctions is -F from BTF: its functions' names, sorted, filtered as
// Functions filters the symbol table's.
func BTFFunctions(k *BTFTarget, rules string) ([]string, error) {
	return listing.FilterFuncs(k.Types.FuncNames(), rules)
}
