package tracefs

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// Dialect is what one kernel's probe language has beyond the grammar
// Validate checks: its fetch types, its register names and the features
// of the table below (return probes reading $argN, BTF argument names,
// f: and t: events). The zero Dialect checks nothing.
type Dialect struct {
	// Machine names the registers; 0 leaves register names unchecked.
	Machine elf.Machine
	// From says where the types come from, for messages: "Linux 6.1",
	// "the running kernel's README".
	From string
	// types holds the base types ("u8", "string", "b" for bitfields, "[]"
	// for arrays); nil leaves types unchecked.
	types map[string]bool
	// feats holds the Features the kernel has; nil leaves them unchecked.
	feats map[Feature]bool
	// built says why the kernel lacks a Feature its version has (its
	// configuration), for messages.
	built map[Feature]string
}

// Without is d less feature f, which the kernel's build lacks though its
// version has it; why says how that is known, for messages.
func (d Dialect) Without(f Feature, why string) Dialect {
	feats, built := map[Feature]bool{}, map[Feature]string{f: why}
	for k, v := range d.feats {
		feats[k] = v
	}
	for k, v := range d.built {
		if k != f {
			built[k] = v
		}
	}
	feats[f] = false
	d.feats, d.built = feats, built
	return d
}

// Feature is a part of the probe language that Linux 6.1 lacks and later
// kernels have (Table).
type Feature int

// The features of Table.
const (
	// FProbeEvents: "f:GRP/EV SYM[%return]" and "t:GRP/EV TRACEPOINT" in
	// dynamic_events (kernel/trace/trace_fprobe.c).
	FProbeEvents Feature = iota + 1
	// BTFArgs: arguments by their BTF name with members ("count",
	// "file->f_mode", "$retval->x"), and "$arg*" for all of them
	// (CONFIG_PROBE_EVENTS_BTF_ARGS).
	BTFArgs
	// ReturnArgs: $argN (and BTF names) on return probes, read at the
	// entry and kept until the return.
	ReturnArgs
	// SharedTracepoints: several t: events on one tracepoint. Before, each
	// registered the tracepoint's stub with the same data, so the second
	// got EEXIST from tracepoint.c's func_add, with no error_log entry.
	SharedTracepoints
	// BTFCasts: BTF typecasts on kprobe and fprobe events,
	// "(STRUCT)VAR->MEMBER" and container_of's
	// "(STRUCT,MEMBER)VAR->OTHER", nested up to two levels (FetchForm).
	BTFCasts
	// CurrentTask: "$current", the current task's address.
	CurrentTask
	// PerCPUReads: "this_cpu_read(VAR)" and "this_cpu_ptr(VAR)", this
	// CPU's copy of a per-CPU variable and its address.
	PerCPUReads
	// EprobeBareFields: an event probe (e:) names its event's fields
	// without '$'. dwprobe writes no event probes: the row says since when.
	EprobeBareFields
)

// String names f for messages.
func (f Feature) String() string {
	for _, r := range Table {
		if r.Feature == f {
			return r.What
		}
	}
	return "Feature(" + strconv.Itoa(int(f)) + ")"
}

// Row is one line of Table: a fetch type or a Feature, the Linux version
// that first accepts it, the README text by which a running kernel says it
// has it, and the source the version was read from.
type Row struct {
	What    string  // the type ("char") or a description of the feature
	Type    string  // the fetch type, or "" for a Feature
	Feature Feature // the feature, or 0 for a type
	Since   [2]int  // major, minor
	Readme  string  // the README's text for it; "": none (FS.Dialect asks the version)
	Source  string
}

// Table is what each kernel version accepts beyond Linux 6.1's base
// types (u8…x64, string, ustring, symbol, bitfields, arrays), which every
// version since 5.4 has. Versions were read in the kernel sources: 6.1
// and 6.12 in full (kernel/trace/trace.c readme_msg, trace_probe.c,
// trace_fprobe.c, Documentation/trace/{kprobe,fprobe}trace.rst), the ones
// between from the commits named.
var Table = []Row{
	{What: "symstr", Type: "symstr", Since: [2]int{6, 1}, Readme: "symstr",
		Source: "6.1 kernel/trace/trace.c readme_msg \"symstr, <type>\\[<array-size>\\]\" (Debian's 6.1; mainline since 6.2)"},
	{What: "char", Type: "char", Since: [2]int{6, 3}, Readme: "char,",
		Source: "\"tracing/probe: add a char type\" (Donglin Peng, v3 2022-12-15, after 6.2's merge window); not in 6.1's readme_msg, in 6.12's"},
	{What: "f: fprobe and t: tracepoint probe events", Feature: FProbeEvents, Since: [2]int{6, 5},
		Readme: "f[:[<group>/][<event>]] <func-name>[%return]",
		Source: "kernel/trace/trace_fprobe.c, Documentation/trace/fprobetrace.rst (docs.kernel.org from 6.5); 6.12 readme_msg under CONFIG_FPROBE_EVENTS"},
	{What: "BTF argument names, members and $arg*", Feature: BTFArgs, Since: [2]int{6, 5},
		Readme: "<argname>[->field[->field|.field...]]",
		Source: "trace_probe.c parse_btf_arg, traceprobe_expand_meta_args (6.5, with fprobe events); 6.12 readme_msg under CONFIG_PROBE_EVENTS_BTF_ARGS"},
	{What: "$argN on return probes", Feature: ReturnArgs, Since: [2]int{6, 9},
		Readme: "kernel return probes support: $retval, $arg<N>",
		Source: "25f00e40ce79 \"tracing/probes: Support $argN in return probe (kprobe and fprobe)\" (probes-v6.9); 6.12 readme_msg, trace_probe.c parse_probe_vars FETCH_OP_EDATA"},
	{What: "several t: events on one tracepoint", Feature: SharedTracepoints, Since: [2]int{6, 15},
		Source: "\"tracing: tprobe-events: Support multiple tprobes on the same tracepoint\" (probes-v6.15: a refcounted tracepoint_user); 6.12 trace_fprobe.c __regsiter_tracepoint_fprobe registers tpoint->probestub with NULL data per event. No README text: a running kernel's version says"},
	{What: "BTF typecasts ((STRUCT)VAR->MEMBER, (STRUCT,MEMBER)VAR->OTHER)", Feature: BTFCasts, Since: [2]int{7, 3},
		Readme: "[(structname[,field])]<argname>",
		Source: "7.3 trace_probe.c handle_typecast (TYPECAST_REQ_FIELD, TYPECAST_SYM_OFFSET, nesting to TRACEPROBE_MAX_NESTED_LEVEL 8), readme_msg under CONFIG_PROBE_EVENTS_BTF_ARGS; absent from 6.12. Versions between 6.12 and 7.3 not read: 7.3 is the first known"},
	{What: "$current", Feature: CurrentTask, Since: [2]int{7, 3}, Readme: "$current",
		Source: "7.3 trace_probe.c parse_probe_var_current (kernel probes only; $current->FIELD a task_struct through BTF), readme_msg; absent from 6.12. Versions between not read: 7.3 is the first known"},
	{What: "this_cpu_read(VAR) and this_cpu_ptr(VAR)", Feature: PerCPUReads, Since: [2]int{7, 3},
		Readme: "this_cpu_read(<fetcharg>), this_cpu_ptr(<fetcharg>)",
		Source: "7.3 trace_probe.c parse_this_cpu (FETCH_OP_CPU_PTR on @VAR's address; kernel probes only, not event probes), readme_msg; absent from 6.12. Versions between not read: 7.3 is the first known"},
	{What: "event probe fields without '$'", Feature: EprobeBareFields, Since: [2]int{7, 3},
		Source: "issue 32: Linux 7.3.4; 6.12's readme_msg has (%<register>|$<efield>) only. No README text: the version says"},
	{What: "%pd", Type: "%pd", Since: [2]int{6, 10}, Readme: "%pd",
		Source: "d9b15224dd8f \"tracing/probes: support '%pd' type for print struct dentry's name\" (v6.10-rc1); 6.12 readme_msg"},
	{What: "%pD", Type: "%pD", Since: [2]int{6, 10}, Readme: "%pD",
		Source: "20fe4d07bde6 \"tracing/probes: support '%pD' type for print struct file's name\" (v6.10-rc1); 6.12 readme_msg"},
}

// baseTypes are the fetch types of every kernel from 5.4 (ustring) on.
var baseTypes = []string{"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
	"x8", "x16", "x32", "x64", "string", "ustring", "symbol", "b", "[]"}

// types61 are the fetch types of Linux 6.1 (kernel/trace/trace_probe.c's
// probe_fetch_types, bitfields and arrays): no "char" and no "%pd"/"%pD",
// which later kernels added.
var types61 = KernelDialect(0, 6, 1).types

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// KernelDialect is the dialect of Linux major.minor on machine m: from
// 6.1 on, the types and features of Table up to that version; before,
// the registers only (the table starts at 6.1) and none of the features.
func KernelDialect(m elf.Machine, major, minor int) Dialect {
	d := Dialect{Machine: m, From: fmt.Sprintf("Linux %d.%d", major, minor), feats: map[Feature]bool{}}
	known := major > 6 || major == 6 && minor >= 1
	if known {
		d.types = set(baseTypes...)
	}
	for _, r := range Table {
		if major < r.Since[0] || major == r.Since[0] && minor < r.Since[1] {
			continue
		}
		if r.Type != "" && known {
			d.types[r.Type] = true
		} else if r.Feature != 0 {
			d.feats[r.Feature] = true
		}
	}
	return d
}

// HostDialect is what is known of the running kernel's dialect without
// its tracefs: the registers of the host's machine, types unchecked.
func HostDialect() Dialect {
	return Dialect{Machine: hostMachine(), From: "the running kernel"}
}

// Dialect is the running kernel's dialect: the types its README lists and
// the registers of the host's machine (the running kernel's). The features
// no README line tells are the kernel version's (KernelVersion), or taken
// as had when it is unknown.
func (t *FS) Dialect() Dialect {
	d := HostDialect()
	if b, err := os.ReadFile(filepath.Join(t.root, "README")); err == nil {
		d = ReadmeDialect(d.Machine, string(b))
		major, minor, ok := t.KernelVersion()
		for _, r := range Table {
			if r.Feature != 0 && r.Readme == "" {
				d.feats[r.Feature] = !ok || major > r.Since[0] || major == r.Since[0] && minor >= r.Since[1]
			}
		}
	}
	return d
}

// KernelVersion is the version of the kernel t belongs to: the one
// SetKernelVersion gave, else the running kernel's
// (/proc/sys/kernel/osrelease).
func (t *FS) KernelVersion() (major, minor int, ok bool) {
	if t.version != [2]int{} {
		return t.version[0], t.version[1], true
	}
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return 0, 0, false
	}
	return parseRelease(string(b))
}

// SetKernelVersion says which kernel t belongs to, for a tracefs that is
// not the running kernel's (a test's directory playing one).
func (t *FS) SetKernelVersion(major, minor int) { t.version = [2]int{major, minor} }

// parseRelease reads MAJOR.MINOR from a release ("6.12.118+deb13-cloud-amd64").
func parseRelease(rel string) (major, minor int, ok bool) {
	f := strings.SplitN(strings.TrimSpace(rel), ".", 3)
	if len(f) < 2 {
		return 0, 0, false
	}
	digits := len(f[1]) - len(strings.TrimLeft(f[1], "0123456789"))
	major, err1 := strconv.Atoi(f[0])
	minor, err2 := strconv.Atoi(f[1][:digits])
	return major, minor, err1 == nil && err2 == nil
}

// ReadmeDialect is the dialect a tracefs README describes (the running
// kernel's, on machine m): the types of its "type:" item and the features
// whose Table text it holds.
func ReadmeDialect(m elf.Machine, readme string) Dialect {
	d := Dialect{Machine: m, From: "the running kernel's README", types: readmeTypes(readme), feats: map[Feature]bool{}}
	flat := strings.Join(strings.Fields(readme), " ")
	for _, r := range Table {
		if r.Feature != 0 && r.Readme != "" && strings.Contains(flat, r.Readme) {
			d.feats[r.Feature] = true
		}
	}
	return d
}

// Has reports whether d's kernel has f (true if d does not know).
func (d Dialect) Has(f Feature) bool { return d.feats == nil || d.feats[f] }

// Lacks says why d's kernel lacks f, when its build (not its version) is
// the reason.
func (d Dialect) Lacks(f Feature) (why string, ok bool) {
	why, ok = d.built[f]
	return why, ok
}

// Since names the version that added f, for messages: "Linux 7.3".
func (f Feature) Since() string { return since(f) }

// since is the version that added f, for messages.
func since(f Feature) string {
	for _, r := range Table {
		if r.Feature == f {
			return fmt.Sprintf("Linux %d.%d", r.Since[0], r.Since[1])
		}
	}
	return "a later kernel"
}

// hostMachine is the ELF machine of the running kernel (arch.Host): the
// only place the host's architecture is the right answer.
func hostMachine() elf.Machine {
	if a, ok := arch.Host(); ok {
		return a.Machine
	}
	return 0
}

// readmeLabel starts a new item of the README's fetcharg help ("type:",
// "efield:").
var readmeLabel = regexp.MustCompile(`^\s*[a-z]+:`)

// readmeTypes reads the types of the README's "type:" item, e.g.
//
//	type: s8/16/32/64, u8/16/32/64, x8/16/32/64, char, string, symbol,
//	      b<bit-width>@<bit-offset>/<container-size>, ustring,
//	      symstr, %pd/%pD, <type>\[<array-size>\]
//
// or nil if there is none.
func readmeTypes(readme string) map[string]bool {
	var text []string
	in := false
	for _, l := range strings.Split(readme, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "type:"):
			in, t = true, strings.TrimPrefix(t, "type:")
		case in && (readmeLabel.MatchString(l) || t == ""):
			in = false
		}
		if in {
			text = append(text, t)
		}
	}
	if text == nil {
		return nil
	}
	types := map[string]bool{}
	for _, tok := range strings.FieldsFunc(strings.Join(text, " "), func(r rune) bool { return r == ',' || r == ' ' }) {
		switch {
		case strings.HasPrefix(tok, "b<"):
			types["b"] = true
		case strings.HasPrefix(tok, "<type>"):
			types["[]"] = true
		default:
			expandTypes(tok, types)
		}
	}
	return types
}

// expandTypes adds "s8/16/32/64" as s8, s16, s32, s64 and "%pd/%pD" as
// %pd, %pD.
func expandTypes(tok string, types map[string]bool) {
	parts := strings.Split(tok, "/")
	prefix := strings.TrimRight(parts[0], "0123456789")
	for _, p := range parts {
		if decimal(p) {
			p = prefix + p
		}
		types[p] = true
	}
}

// Check checks e against d: its kind (f: and t: need FProbeEvents), and
// each argument's type and registers (CheckArg) and the features it
// needs where it is (FeatureProblem). Errors are *DefError, as Validate's,
// with Pos in e.Raw for a parsed e.
func (d Dialect) Check(e Event) error {
	if (e.Kind == FProbe || e.Kind == TProbe) && !d.Has(FProbeEvents) {
		noun := map[Kind]string{FProbe: "an fprobe event", TProbe: "a tracepoint probe event"}[e.Kind]
		if why, ok := d.built[FProbeEvents]; ok {
			return &DefError{Pos: -1, Msg: fmt.Sprintf("%s:GROUP/EVENT is %s, which this kernel does not have: %s", string(e.Type), noun, why)}
		}
		return &DefError{Pos: -1, Msg: fmt.Sprintf("%s:GROUP/EVENT is %s, which %s does not have (%s added them)",
			string(e.Type), noun, d.From, since(FProbeEvents))}
	}
	for i, a := range e.Args {
		err := d.CheckArg(i, a)
		if err == nil {
			err = d.FeatureProblem(e, i, a)
		}
		if err != nil {
			if de := err.(*DefError); e.Raw != "" {
				de.Pos = fieldPos(e.Raw, de.Field, de.Off)
			}
			return err
		}
	}
	return nil
}

// FeatureProblem checks that d's kernel has what argument i of e, a,
// needs at e's probe point: a BTF name or $arg* needs BTFArgs, and on a
// return probe an argument of the function ($argN, a BTF name other than
// $retval's) needs ReturnArgs. Errors are *DefError, as CheckArg's.
func (d Dialect) FeatureProblem(e Event, i int, a Arg) error {
	body := 0
	if a.Name != "" {
		body = len(a.Name) + 1
	}
	need, what := fetchNeeds(a.Fetch, e.Return())
	for _, f := range need {
		if d.Has(f) {
			continue
		}
		msg := fmt.Sprintf("argument %q: %s is not in %s (%s added %s)", a.String(), what, d.From, since(f), f)
		if f == ReturnArgs {
			msg = fmt.Sprintf("argument %q: %s on a return probe: %s reads it at a function's entry only (return probes read it since %s)",
				a.String(), what, d.From, since(f))
		}
		return &DefError{Field: 2 + i, Off: body, Pos: -1, Msg: msg}
	}
	return nil
}

// fetchNeeds lists the Features a fetcharg needs, on a return probe if
// ret, and what of it needs them.
func fetchNeeds(fetch string, ret bool) ([]Feature, string) {
	inner := innerFetch(fetch)
	if forms, ok, _ := FetchForm(inner); ok {
		return forms, strconv.Quote(inner)
	}
	var need []Feature
	switch {
	case inner == "$arg*":
		need = []Feature{BTFArgs}
	case btfName(inner):
		need = []Feature{BTFArgs}
	case strings.HasPrefix(inner, "$retval") && inner != "$retval":
		return []Feature{BTFArgs}, inner
	case strings.HasPrefix(inner, "$arg"):
	default:
		return nil, ""
	}
	if ret {
		need = append(need, ReturnArgs)
	}
	if inner == "$arg*" || btfName(inner) {
		return need, strconv.Quote(inner) + " (a BTF argument)"
	}
	return need, inner
}

// innerFetch is the innermost fetcharg of +|-[u]OFFS(…) dereferences.
func innerFetch(s string) string {
	for len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		i := strings.IndexByte(s, '(')
		if i < 0 || !strings.HasSuffix(s, ")") {
			return s
		}
		s = s[i+1 : len(s)-1]
	}
	return s
}

// regRE finds the registers of a fetcharg.
var regRE = regexp.MustCompile(`%[a-z0-9_]+`)

// CheckArg checks argument i, a, as Check does.
func (d Dialect) CheckArg(i int, a Arg) error {
	body := 0
	if a.Name != "" {
		body = len(a.Name) + 1
	}
	bad := func(off int, format string, v ...any) error {
		return &DefError{Field: 2 + i, Off: off, Pos: -1,
			Msg: fmt.Sprintf("argument %q: ", a.String()) + fmt.Sprintf(format, v...)}
	}
	if a.Type != "" && !d.HasType(a.Type) {
		return bad(body+len(a.Fetch)+1, "type %q is not a fetch type of %s (%s)", a.Type, d.From, d.Types())
	}
	if d.Machine == 0 || strings.HasPrefix(a.Fetch, `\"`) {
		return nil
	}
	mach, known := arch.For(d.Machine)
	for _, at := range regRE.FindAllStringIndex(a.Fetch, -1) {
		reg := a.Fetch[at[0]:at[1]]
		if !known {
			return bad(body+at[0], "the kernel has no register %s on %s", reg, arch.MachineName(d.Machine))
		}
		if mach.HasRegister(reg[1:]) {
			continue
		}
		if hint := mach.RegisterHint(reg); hint != "" {
			return bad(body+at[0], "the kernel has no register %s on %s; it calls it %s", reg, mach.Name, hint)
		}
		return bad(body+at[0], "the kernel has no register %s on %s", reg, mach.Name)
	}
	return nil
}

// HasType reports whether t is a fetch type of d: in the grammar of some
// kernel (validType), and one of d's if d knows its types.
func (d Dialect) HasType(t string) bool {
	if !validType(t) {
		return false
	}
	if d.types == nil {
		return true
	}
	base := t
	if i := strings.IndexByte(t, '['); i > 0 {
		if !d.types["[]"] {
			return false
		}
		base = t[:i]
	}
	if strings.HasPrefix(base, "b") && strings.Contains(base, "@") {
		base = "b"
	}
	return d.types[base]
}

// Types lists d's types for a message, in a stable order.
func (d Dialect) Types() string {
	if d.types == nil {
		return "the types of its README"
	}
	var out []string
	for _, t := range []string{"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "x8", "x16", "x32", "x64",
		"char", "string", "ustring", "symstr", "symbol", "%pd", "%pD"} {
		if d.types[t] {
			out = append(out, t)
		}
	}
	if d.types["b"] {
		out = append(out, "b<width>@<offset>/<size>")
	}
	if d.types["[]"] {
		out = append(out, "TYPE[N]")
	}
	return strings.Join(out, ", ")
}
