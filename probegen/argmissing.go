package probegen

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
)

// ArgPlaceholder is the immediate written for an argument at the points of a
// probe where its variable does not exist, so that every point of one
// event has the same arguments: perf's probe_conf.magic_num, 0xdeade12d.
// perf writes it as "\deade12d", which the kernel's str_to_immediate
// refuses (a number must start with a digit or a sign), failing the whole
// event; written as a number, the probe works and records the filler.
const ArgPlaceholder = `\0xdeade12d`

// placeholderFetch is ArgPlaceholder as a fetcharg.
var placeholderFetch = tracefs.Fetch{Base: tracefs.BaseImmediate, Imm: 0xdeade12d, Hex: true}

// IsArgPlaceholder reports whether f is ArgPlaceholder: the filler
// written for an argument missing at a point.
func IsArgPlaceholder(f tracefs.Fetch) bool {
	return f.Base == placeholderFetch.Base && f.Imm == placeholderFetch.Imm && f.Hex && len(f.Loads) == 0
}

// placeholderArg is the argument NAME=placeholder:TYPE.
func placeholderArg(name, typ string) tracefs.Arg { return tracefs.NewArg(name, placeholderFetch, typ) }

// fillMissing is perf's fill_empty_trace_arg over the points of one spec:
// an argument missing at some points is written there as ArgPlaceholder with
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
			sl.res = placeholderArg(sl.res.Name, h.typ)
			why := errors.Unwrap(sl.missing).Error()
			var se *grammar.SyntaxError
			if errors.As(sl.missing, &se) {
				why = se.Msg
			}
			sl.absent = why
			e.note(answer.NoteArgFilled, fmt.Sprintf("%s: at %s, %s; written as %s there (perf writes \\deade12d, which the kernel refuses)", e.spec, descr[p], why, ArgPlaceholder))
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

// alignVars gives every point of one event the same $vars/$params
// expansion, names, order and types alike: the kernel appends a point to
// an event only when its argument list matches the event's
// (trace_probe_compare_arg_type: "Argument type or name is different from
// existing probe"), while the variables in scope differ from point to
// point (fsnotify_access inlined in a dozen callers: file, file and mask
// at most, mask in another order at one, none at another). Each point
// carries the union, in the order the points list them; a variable a
// point lacks is written there as ArgPlaceholder with its type. perf 6.12
// writes each point's own list, which the kernel refuses.
func (e *argEnv) alignVars(defs []tracefs.Event, points [][]argSlot, descr []string) {
	byEvent := map[string][]int{}
	var events []string
	for i, d := range defs {
		ev := d.Group + "/" + d.Name
		if byEvent[ev] == nil {
			events = append(events, ev)
		}
		byEvent[ev] = append(byEvent[ev], i)
	}
	for _, ev := range events {
		e.alignEvent(byEvent[ev], points, descr)
	}
}

// alignEvent is alignVars for the points idx of one event, with one note
// per set of names lacking, listing the points that lack them.
func (e *argEnv) alignEvent(idx []int, points [][]argSlot, descr []string) {
	keys := make([][]slotKey, len(idx))
	for j, i := range idx {
		keys[j] = slotKeys(points[i])
	}
	union := unionKeys(keys)
	at := map[string][]string{}
	var sets []string
	for j, i := range idx {
		var lacks []string
		points[i], lacks = alignSlots(points[i], keys[j], union)
		if len(lacks) == 0 {
			continue
		}
		set := strings.Join(lacks, ", ")
		if at[set] == nil {
			sets = append(sets, set)
		}
		at[set] = append(at[set], descr[i])
	}
	for _, set := range sets {
		e.note(answer.NoteArgFilled, fmt.Sprintf("%s: at %s, $vars/$params finds no %s; written as %s there, as every point of one event takes the same arguments", e.spec, strings.Join(at[set], ", "), set, ArgPlaceholder))
	}
}

// slotKey identifies an argument across the points of one event: a
// spec argument by its index, an expanded variable by name, type and
// which of the variables of that name and type it is at its point.
type slotKey struct {
	orig       int
	name, typ  string
	occurrence int
}

func slotKeys(slots []argSlot) []slotKey {
	seen := map[slotKey]int{}
	keys := make([]slotKey, len(slots))
	for k, sl := range slots {
		if sl.orig >= 0 {
			keys[k] = slotKey{orig: sl.orig}
			continue
		}
		base := slotKey{orig: -1, name: sl.res.Name, typ: sl.res.Type}
		keys[k] = base
		keys[k].occurrence = seen[base]
		seen[base]++
	}
	return keys
}

// unionKeys is every key of the points in their order: a point's new
// key goes before the next key it shares with the points before it,
// else after the last it shared, else (it shares none) at the end.
func unionKeys(points [][]slotKey) []slotKey {
	var union []slotKey
	for _, keys := range points {
		pos, shared := 0, false
		for i, k := range keys {
			if at := slices.Index(union, k); at >= 0 {
				pos, shared = max(pos, at+1), true
				continue
			}
			ins := len(union)
			if shared {
				ins = pos
			}
			for _, next := range keys[i+1:] {
				if at := slices.Index(union, next); at >= 0 {
					ins = max(at, pos)
					break
				}
			}
			union = slices.Insert(union, ins, k)
			pos = ins + 1
		}
	}
	return union
}

// alignSlots is one point's slots in the union's order, placeholders
// where it lacks a key, and the names (as renderArgs writes them) it
// lacks.
func alignSlots(slots []argSlot, keys, union []slotKey) ([]argSlot, []string) {
	out := make([]argSlot, 0, len(union))
	var lacking []int
	for _, k := range union {
		if at := slices.Index(keys, k); at >= 0 {
			out = append(out, slots[at])
			continue
		}
		lacking = append(lacking, len(out))
		out = append(out, argSlot{res: placeholderArg(k.name, k.typ), orig: -1, absent: "not in scope at this point"})
	}
	var lacks []string
	if len(lacking) > 0 {
		named := renderArgs(out)
		for _, i := range lacking {
			lacks = append(lacks, named[i].Name)
		}
	}
	return out, lacks
}
