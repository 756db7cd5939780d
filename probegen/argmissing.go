package probegen

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/dwprobe/dwprobe/tracefs"
)

// placeholder is the immediate written for an argument at the points of a
// probe where its variable does not exist, so that every point of one
// event has the same arguments: perf's probe_conf.magic_num, 0xdeade12d.
// perf writes it as "\deade12d", which the kernel's str_to_immediate
// refuses (a number must start with a digit or a sign), failing the whole
// event; written as a number, the probe works and records the filler.
const placeholder = `\0xdeade12d`

// fillMissing is perf's fill_empty_trace_arg over the points of one spec:
// an argument missing at some points is written there as placeholder with
// the type it has elsewhere; missing at every point, it is an error.
func (e *argEnv) fillMissing(points [][]argSlot, descr []string) error {
	type have struct {
		typ   string
		found bool
		err   error
	}
	byOrig := map[int]*have{}
	for _, slots := range points {
		for _, sl := range slots {
			if sl.orig < 0 {
				continue
			}
			h := byOrig[sl.orig]
			if h == nil {
				h = &have{}
				byOrig[sl.orig] = h
			}
			if sl.missing == nil && !h.found {
				h.typ, h.found = sl.res.Type, true
			}
			if sl.missing != nil && h.err == nil {
				h.err = sl.missing
			}
		}
	}
	for p, slots := range points {
		for k := range slots {
			sl := &slots[k]
			if sl.missing == nil {
				continue
			}
			h := byOrig[sl.orig]
			if !h.found {
				return errors.Unwrap(h.err)
			}
			sl.res.Fetch, sl.res.Type = placeholder, h.typ
			why := errors.Unwrap(sl.missing).Error()
			var se *SyntaxError
			if errors.As(sl.missing, &se) {
				why = se.Msg
			}
			e.note(fmt.Sprintf("%s: at %s, %s; written as %s there (perf writes \\deade12d, which the kernel refuses)", e.spec, descr[p], why, placeholder))
		}
	}
	return nil
}

// renderArgs names the arguments of one point (a repeated name gets _1,
// _2: the kernel refuses duplicates).
func renderArgs(slots []argSlot) []tracefs.Arg {
	var out []tracefs.Arg
	used := map[string]bool{}
	for _, sl := range slots {
		r := sl.res
		if r.Name != "" {
			base := r.Name
			for n := 1; used[r.Name]; n++ {
				r.Name = base + "_" + strconv.Itoa(n)
			}
			used[r.Name] = true
		}
		out = append(out, r)
	}
	return out
}
