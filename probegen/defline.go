package probegen

import (
	"errors"
	"strings"

	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
)

// newDef is the definition of one resolved point, attached at at: a
// uprobe when user, a return probe when ret, without its arguments yet
// (setArgs).
func newDef(user, ret bool, group, name string, at answer.Attach) tracefs.Event {
	k := tracefs.KProbe
	if user {
		k = tracefs.UProbe
	}
	p := answer.Probe{EventKind: k, Return: ret, Group: group, Name: name, Attach: at}
	return p.Definition()
}

// finish gives the definitions of spec's points their arguments, the
// arguments missing at some points filled (fillMissing, where names the
// points) and the $vars expansions of one event's points made alike
// (alignVars), and validates each definition.
func (e *argEnv) finish(defs []tracefs.Event, slots [][]argSlot, where []string, spec *grammar.Spec) error {
	if len(spec.Args) > 0 {
		if err := e.fillMissing(slots, where); err != nil {
			return err
		}
		e.alignVars(defs, slots, where)
		if err := e.setArgs(defs, slots, spec.Args); err != nil {
			return err
		}
	}
	for _, d := range defs {
		if err := d.Validate(); err != nil {
			return &PointError{Spec: spec.Raw, Err: err}
		}
	}
	return nil
}

// setArgs gives each definition the arguments of its point, named and
// written (renderArgs), and checks each with the kernel's rules at that
// point (a $argN only at a function entry, say) and the target kernel's
// types and registers, blaming the argument of the spec it came from.
func (e *argEnv) setArgs(defs []tracefs.Event, points [][]argSlot, args []grammar.Arg) error {
	d := e.dialect()
	for i := range defs {
		defs[i].Args = renderArgs(points[i])
		for j, a := range defs[i].Args {
			err := defs[i].CheckArg(j, a)
			if err == nil {
				err = d.CheckArg(j, a)
			}
			if err == nil {
				// $argN on a return probe: Linux 6.9 and later.
				err = d.FeatureProblem(defs[i], j, a)
			}
			if err != nil {
				return e.defErr(err, points[i][j], args, defs[i].Target)
			}
		}
	}
	return nil
}

// defErr points a refused argument at the spec argument it came from
// (the first argument for a $vars/$params expansion).
func (e *argEnv) defErr(err error, slot argSlot, args []grammar.Arg, target string) error {
	var de *tracefs.DefError
	if !errors.As(err, &de) {
		return err
	}
	a := args[max(slot.orig, 0)]
	if slot.orig < 0 {
		for _, x := range args {
			if x.Expr == "$vars" || x.Expr == "$params" {
				a = x
				break
			}
		}
	}
	msg := de.Msg
	if !strings.Contains(msg, target) {
		msg += " (at " + target + ")"
	}
	return &grammar.SyntaxError{Spec: e.spec, Col: a.Col, Err: tracefs.ErrBadDefinition, Msg: msg}
}
