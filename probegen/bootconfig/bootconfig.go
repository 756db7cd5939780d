package bootconfig

import (
	"fmt"
	"strings"

	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
)

// Limits of boot-time kprobe events (Linux 6.1 kernel/trace/trace_boot.c
// and trace_kprobe.c's __kprobe_event_gen_cmd_start).
const (
	// bootEventNameMax: the command head "p:kprobes/EVENT" is printed into
	// a MAX_EVENT_NAME_LEN (64) buffer, so a longer EVENT is cut silently.
	bootEventNameMax = 64 - 1 - len("p:kprobes/")
	// bootCmdMax: "p:kprobes/EVENT PROBE" is built in trace_boot.c's
	// MAX_BUF_LEN (256) buffer, which also holds the NUL after PROBE and
	// the string's terminator.
	bootCmdMax = 256 - 2
)

// bootconfigKey is the key of a boot-time kprobe event's probes. perf 6.1
// writes "probe", which the kernel does not read (trace_boot.c reads
// "probes"), so its output defines nothing.
const bootconfigKey = "probes"

// Render renders kprobe definitions as the kernel's boot-time tracing
// reads them from a bootconfig (Documentation/trace/boottime-trace.rst),
// in the layout of perf 6.1's --bootconfig:
//
//	ftrace.event.kprobes.vfs_read_L12.probes = 'vfs_read+114 f_mode=+68(%di):x32'
//	ftrace.event.kprobes.getname_flags.probes = 'getname_flags+0', 'getname+5'
//
// one line per event, its probes joined with ", ". Boot-time events are all
// in group "kprobes", so each definition's group is dropped (notes say so
// for a group other than "probe", as perf warns). Unlike perf 6.1, the key
// is the "probes" the kernel reads (bootconfigKey), a return probe keeps its
// return-ness as "SYM+0%return" (perf drops it, making an entry probe), and
// the definitions of one event are joined even when they are not adjacent
// (a bootconfig may not define a key twice).
//
// It refuses uprobes and MAXACTIVE (the boot-time syntax has neither),
// event names the kernel would cut, and commands longer than its buffer.
// Errors wrap tracefs.ErrBadDefinition.
func Render(defs []tracefs.Event) (text string, notes []string, err error) {
	var order []string
	values := map[string][]string{}
	warned := map[string]bool{}
	for _, d := range defs {
		if err := d.Validate(); err != nil {
			return "", nil, err
		}
		switch {
		case d.Kind == tracefs.UProbe:
			return "", nil, fmt.Errorf("%w: %s: bootconfig defines kprobes only, not uprobes", tracefs.ErrBadDefinition, d)
		case d.MaxActive != 0:
			return "", nil, fmt.Errorf("%w: %s: bootconfig has no MAXACTIVE", tracefs.ErrBadDefinition, d)
		case len(d.Name) > bootEventNameMax:
			return "", nil, fmt.Errorf("%w: event name %q is %d bytes; boot-time tracing cuts it to %d", tracefs.ErrBadDefinition, d.Name, len(d.Name), bootEventNameMax)
		}
		if d.Group != "" && d.Group != grammar.DefaultGroup && !warned[d.Group] {
			warned[d.Group] = true
			notes = append(notes, fmt.Sprintf("group %s is ignored: boot-time kprobe events are all in group kprobes", d.Group))
		}
		v := d.Target
		if d.Return() {
			v += "%return"
		}
		for _, a := range d.Args {
			v += " " + a.String()
		}
		if n := len("p:kprobes/") + len(d.Name) + 1 + len(v); n > bootCmdMax {
			return "", nil, fmt.Errorf("%w: %s: the boot-time command is %d bytes, at most %d fit trace_boot.c's buffer", tracefs.ErrBadDefinition, d, n, bootCmdMax)
		}
		q, err := bootQuote(v)
		if err != nil {
			return "", nil, fmt.Errorf("%w: %s: %v", tracefs.ErrBadDefinition, d, err)
		}
		if _, ok := values[d.Name]; !ok {
			order = append(order, d.Name)
		}
		values[d.Name] = append(values[d.Name], q)
	}
	var b strings.Builder
	for _, ev := range order {
		fmt.Fprintf(&b, "ftrace.event.kprobes.%s.%s = %s\n", ev, bootconfigKey, strings.Join(values[ev], ", "))
	}
	return b.String(), notes, nil
}

// bootQuote quotes a bootconfig value: single quotes as perf writes them,
// double quotes if the value holds a single quote (bootconfig has no
// escapes inside quotes).
func bootQuote(v string) (string, error) {
	switch {
	case !strings.Contains(v, "'"):
		return "'" + v + "'", nil
	case !strings.Contains(v, `"`):
		return `"` + v + `"`, nil
	}
	return "", fmt.Errorf("a bootconfig value can't hold both ' and \"")
}
