package tracefs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// undo deletes the probes of ours from the kernel, last event first, and
// returns the "GROUP:EVENT" of the events it touched. written says all of
// ours were written (a rollback); otherwise (a journal's batch) only some
// may have been.
//
// An event whose listed probes are all ours is deleted whole
// ("-:GROUP/EVENT", disabled first). One that also holds somebody else's
// probes (perf probe takes no lock, so it can append to an event of ours
// or create one a moment before we append to it) keeps them: each probe
// of ours is deleted on its own with "-:GROUP/EVENT TARGET ARGS" as the
// kernel lists it, which deletes exactly that probe (dyn_event_release
// matches the rest of the command against each probe; the kernel refuses
// two identical probes in one event, so there is no twin to take along).
func (t *FS) undo(paths map[Kind]string, ours []Event, written bool) ([]string, error) {
	listed := map[Kind][]Event{}
	for kind, path := range paths {
		if l, err := t.list(kind, path); err == nil {
			listed[kind] = l
		}
	}
	type key struct {
		kind Kind
		id   string
	}
	var order []key
	byID := map[key][]Event{}
	for _, ev := range ours {
		k := key{ev.Kind, ev.Group + "/" + ev.Name}
		if _, ok := byID[k]; !ok {
			order = append(order, k)
		}
		byID[k] = append(byID[k], ev)
	}
	var removed []string
	var errs []error
	for i := len(order) - 1; i >= 0; i-- {
		k := order[i]
		mine := byID[k]
		probes, ok := listed[k.kind]
		if ok {
			probes = probesOf(probes, mine[0].Group, mine[0].Name)
			if len(probes) == 0 {
				continue
			}
		}
		var err error
		switch matched := matchProbes(probes, mine); {
		case !ok, len(matched) == len(probes), written && len(probes) <= len(mine):
			// Not listable, or nobody else's probe in it: the whole event.
			err = t.deleteEvent(paths[k.kind], mine[0])
		case len(matched) == 0:
			continue
		default:
			err = t.deleteProbes(paths[k.kind], matched)
			if err == nil && written && len(matched) < len(mine) {
				err = fmt.Errorf("%s: %d of its %d probes of this batch not found in the listing", mine[0].PerfName(), len(mine)-len(matched), len(mine))
			}
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, mine[0].PerfName())
	}
	return removed, errors.Join(errs...)
}

// probesOf returns the probes of GROUP/EVENT in listed.
func probesOf(listed []Event, group, name string) []Event {
	var out []Event
	for _, e := range listed {
		if e.Group == group && e.Name == name {
			out = append(out, e)
		}
	}
	return out
}

// matchProbes returns the probes of listed that are one of ours each.
func matchProbes(listed, ours []Event) []Event {
	used := make([]bool, len(ours))
	var out []Event
	for _, l := range listed {
		for j, o := range ours {
			if !used[j] && sameProbe(l, o) {
				used[j] = true
				out = append(out, l)
				break
			}
		}
	}
	return out
}

// deleteEvent deletes every probe of e's event, disabling it first.
func (t *FS) deleteEvent(path string, e Event) error {
	if err := t.disable(e.Group, e.Name); err != nil {
		return err
	}
	if err := t.writeFile(path, appendFlag, deleteCommand(e)); err != nil {
		return fmt.Errorf("deleting %s: %w", e.PerfName(), err)
	}
	return nil
}

// deleteProbes deletes the listed probes one by one.
func (t *FS) deleteProbes(path string, listed []Event) error {
	for _, l := range listed {
		cmd := "-:" + l.Group + "/" + l.Name + " " + strings.Join(strings.Fields(l.Raw)[1:], " ") + "\n"
		if err := t.writeFile(path, appendFlag, []byte(cmd)); err != nil {
			return fmt.Errorf("deleting the probe %q of %s: %w", l.Raw, l.PerfName(), err)
		}
	}
	return nil
}

// sameProbe reports whether the listing line l is the probe o was written
// as: the kernel prints uprobe offsets in full, drops a kprobe's "+0" and
// names unnamed arguments argN (BTF arguments after themselves).
func sameProbe(l, o Event) bool {
	if l.Kind != o.Kind || l.Type != o.Type || l.Group != o.Group || l.Name != o.Name ||
		normTarget(l.Kind, l.Target) != normTarget(o.Kind, o.Target) {
		return false
	}
	for _, a := range o.Args {
		if a.Fetch == "$arg*" {
			return true // the kernel lists the arguments it stands for
		}
	}
	if len(l.Args) != len(o.Args) {
		return false
	}
	for i, a := range o.Args {
		if a.Name == "" && strings.HasPrefix(a.Fetch, "$arg") {
			continue // a kernel with BTF arguments lists it by its BTF name ("file=file")
		}
		a.Name = kernelArgName(i, a)
		if a.String() != l.Args[i].String() {
			return false
		}
	}
	return true
}

// normTarget writes a target's numbers one way: uprobe PATH:OFFSET(REF)
// with hex offsets, kprobe SYM+OFFSET in decimal without "+0".
func normTarget(kind Kind, s string) string {
	num := func(n string) string {
		v, err := strconv.ParseUint(n, 0, 64)
		if err != nil {
			return n
		}
		return strconv.FormatUint(v, 16)
	}
	if kind == UProbe {
		main, ref, hasRef := strings.Cut(s, "(")
		i := strings.LastIndexByte(main, ':')
		if i < 0 {
			return s
		}
		out := main[:i+1] + num(main[i+1:])
		if hasRef {
			out += "(" + num(strings.TrimSuffix(ref, ")")) + ")"
		}
		return out
	}
	sym, off, ok := strings.Cut(s, "+")
	if !ok {
		return num(s)
	}
	if off = num(off); off == "0" {
		return sym
	}
	return sym + "+" + off
}
