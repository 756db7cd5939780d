package main

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cilium/ebpf/btf"

	"github.com/dwprobe/dwprobe/dwarfres"
	kbtf "github.com/dwprobe/dwprobe/dwarfres/btf"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
)

// btfDisagree are the functions of the Debian vmlinux whose definitions
// from BTF differ from DWARF's though DWARF puts every parameter in its
// ABI register at the entry, and why. Keyed "ARCH FUNC".
var btfDisagree = map[string]string{}

// TestBTFAgreesWithDWARF is issue 16's cross-check on the Debian 6.1
// vmlinux, which has both DWARF and .BTF: for every sampled function
// whose DWARF puts each parameter where the calling convention does at
// the entry (one out-of-line point, no inlined copies), the definitions
// of "FUNC p1 p2... p->first p->last" from BTF equal DWARF's.
//
// It runs beside the other parallel tests (the QEMU boots): two and a half
// minutes of one core, mostly confirming by a scan that a name is no
// global, which make test's time cannot take in series.
func TestBTFAgreesWithDWARF(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		arch         string
		sample, want int
	}{{"amd64", 420, 300}, {"arm64", 140, 100}} {
		t.Run(c.arch, func(t *testing.T) {
			vml := dwarftest.NeedCorpus(t, c.arch+"/vmlinux")
			f, err := dwarfres.Open(vml)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			types, err := kbtf.FromFile(kbtf.ELF{Object: f.Object, Image: f.Image})
			if err != nil {
				t.Fatal(err)
			}
			major, minor, _ := f.KernelVersion()
			k := &probegen.BTFTarget{Types: types, Machine: f.Machine, Major: major, Minor: minor, Syms: kbtf.ELFSyms{F: kbtf.ELF{Object: f.Object, Image: f.Image}}}
			agree, eligible, differ := 0, 0, []string{}
			tally := map[string][]string{}
			for _, fn := range btfSample(types, c.sample) {
				spec, nparams, ok := btfCrossSpec(types, fn)
				if !ok {
					tally["no spec (unnamed or too many parameters, several FUNCs)"] = append(tally["no spec (unnamed or too many parameters, several FUNCs)"], fn)
					continue
				}
				dw, bt := crossDefs(t, f, k, spec)
				if why := notEligible(dw, bt, fn, nparams); why != "" {
					tally[why] = append(tally[why], fn)
					if strings.HasPrefix(why, "BTF refuses") {
						t.Errorf("%s: %q: DWARF %s\nBTF %s", c.arch, spec, dw, bt)
					}
					continue
				}
				eligible++
				if dw == bt {
					agree++
					continue
				}
				key := c.arch + " " + fn
				if _, ok := btfDisagree[key]; !ok {
					differ = append(differ, fmt.Sprintf("%s: %q\n\tDWARF: %s\n\tBTF:   %s", key, spec, dw, bt))
				}
			}
			for _, why := range slices.Sorted(maps.Keys(tally)) {
				t.Logf("%s: %d sampled functions left out: %s: %s", c.arch, len(tally[why]), why, strings.Join(tally[why], " "))
			}
			t.Logf("%s: %d of %d functions whose parameters DWARF puts in their ABI registers agree", c.arch, agree, eligible)
			if len(differ) > 0 {
				t.Errorf("BTF and DWARF disagree:\n%s", strings.Join(differ, "\n"))
			}
			if agree < c.want {
				t.Errorf("only %d functions agree, want at least %d", agree, c.want)
			}
		})
	}
}

// btfSample is every n-th function of BTF, in name order, about want of
// them.
func btfSample(types *kbtf.Types, want int) []string {
	names := types.FuncNames()
	step := max(1, len(names)/want)
	var out []string
	for i := 0; i < len(names); i += step {
		out = append(out, names[i])
	}
	return out
}

// btfCrossSpec is "FUNC p1 p2... p->first p->last", the members the
// first and last scalar or pointer members of the first parameter that
// points to a structure; nparams counts the parameters.
func btfCrossSpec(types *kbtf.Types, fn string) (spec string, nparams int, ok bool) {
	fns := types.Funcs(fn)
	if len(fns) != 1 {
		return "", 0, false
	}
	proto := fns[0].Type.(*btf.FuncProto)
	var params, members []string
	for _, p := range proto.Params {
		if p.Name == "" {
			return "", 0, false
		}
		params = append(params, p.Name)
		if members == nil {
			members = structMembers(p)
		}
	}
	if len(params) == 0 || len(params)+len(members) > tracefs.MaxArgs {
		return "", 0, false
	}
	return fn + " " + strings.Join(append(params, members...), " "), len(params), true
}

// notEligible says why a function does not count: DWARF does not resolve
// the spec, resolves it to several points or not at the entry, or puts
// a parameter elsewhere than the calling convention (BTF's fetch).
func notEligible(dw, bt, fn string, nparams int) string {
	switch {
	case strings.HasPrefix(dw, "error") && !strings.HasPrefix(bt, "error"):
		return "DWARF refuses what BTF resolves at the entry (inlined copies past --max-probes or with a constant parameter, a structure DWARF's unit only declares)"
	case strings.HasPrefix(dw, "error"):
		return "DWARF refuses the spec"
	case strings.Contains(dw, "\n"):
		return "DWARF has several points (inlined copies, or a name of several symbols)"
	case !strings.Contains(dw, " "+fn+"+"):
		return "DWARF's point is not FUNC+OFFS"
	case strings.HasPrefix(bt, "error"):
		return "BTF refuses the spec DWARF resolves"
	}
	dwa, bta := strings.Fields(dw)[2:], strings.Fields(bt)[2:]
	for i := 0; i < nparams; i++ {
		if i >= len(dwa) || i >= len(bta) || fetchOf(dwa[i]) != fetchOf(bta[i]) {
			return "DWARF has a parameter elsewhere than its ABI register or slot at the entry"
		}
	}
	return ""
}

// fetchOf is the FETCH of NAME=FETCH:TYPE.
func fetchOf(arg string) string {
	_, v, _ := strings.Cut(arg, "=")
	if i := strings.LastIndexByte(v, ':'); i >= 0 {
		return v[:i]
	}
	return v
}

// structMembers reads the first and last named members of the structure p
// points to, if it does.
func structMembers(p btf.FuncParam) []string {
	ptr, ok := btf.UnderlyingType(p.Type).(*btf.Pointer)
	if !ok {
		return nil
	}
	st, ok := btf.UnderlyingType(ptr.Target).(*btf.Struct)
	if !ok {
		return nil
	}
	var named []string
	for _, m := range st.Members {
		if m.Name != "" && !btfIsAggregate(m.Type) {
			named = append(named, p.Name+"->"+m.Name)
		}
	}
	if len(named) == 0 {
		return nil
	}
	if len(named) == 1 {
		return named
	}
	return []string{named[0], named[len(named)-1]}
}

// crossDefs resolves raw from DWARF and from BTF, each as -D prints it;
// "" for a spec that does not resolve.
func crossDefs(t *testing.T, f *dwarfres.File, k *probegen.BTFTarget, raw string) (dw, bt string) {
	spec, err := grammar.ParseSpec(raw)
	if err != nil {
		t.Fatal(err)
	}
	o := probegen.ResolveOptions{MaxProbes: 128}
	return joinDefs(probegen.Definitions(f, spec, "", o)), joinDefs(probegen.BTFDefinitions(k, spec, o))
}

func joinDefs(defs []tracefs.Event, _ []string, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	var lines []string
	for _, d := range defs {
		lines = append(lines, d.String())
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func btfIsAggregate(t btf.Type) bool {
	switch btf.UnderlyingType(t).(type) {
	case *btf.Struct, *btf.Union, *btf.Array:
		return true
	}
	return false
}
