package qemutest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/tracefs"
)

// Guest is what one boot of a corpus kernel printed on its console, split
// at the DWPROBE-* markers of testdata/scripts/guest-init.sh.
type Guest struct {
	Console string // the whole console, with \r\n turned into \n
	// Rejected holds one entry per definition kprobe_events refused: the
	// line, the shell's write error (naming the errno) and the kernel's
	// error_log, separated by newlines.
	Rejected []string
	// Setup and SetupExit are the output and exit status of /setup.sh,
	// run before the definitions are written (SetupPath in Boot's extra).
	Setup        string
	SetupExit    int
	Workload     string // stdout and stderr of /workload.sh
	WorkloadExit int    // its exit status
	// Listed is kprobe_events (and the f: and t: lines of dynamic_events)
	// as the guest listed them after the workload,
	// with the probes the workload added.
	Listed []string
	// ListedComments are the '#' lines of that listing (Linux 7.3's
	// fetch-program dump), which Listed leaves out.
	ListedComments []string
	Trace          []Record
	// Overwritten counts the events the ring buffer dropped to make room:
	// entries-written minus entries-in-buffer in the trace header.
	Overwritten int
}

// ParseConsole splits a guest console at the markers of guest-init.sh.
func ParseConsole(console string) (*Guest, error) {
	g := &Guest{Console: console}
	events := Events{}
	var section string // the marker whose section is open
	var body []string  // its lines so far
	var rej string     // the rejected line, in a REJECT section
	for _, line := range strings.Split(console, "\n") {
		switch {
		case strings.HasPrefix(line, "DWPROBE-REJECT "):
			section, rej, body = "REJECT", strings.TrimPrefix(line, "DWPROBE-REJECT "), nil
		case line == "DWPROBE-REJECT-END" && section == "REJECT":
			g.Rejected = append(g.Rejected, strings.Join(append([]string{rej}, body...), "\n"))
			section = ""
		case line == "DWPROBE-EVENTS-BEGIN", line == "DWPROBE-SETUP-BEGIN", line == "DWPROBE-WORKLOAD-BEGIN", line == "DWPROBE-TRACE-BEGIN":
			section, body = strings.TrimSuffix(strings.TrimPrefix(line, "DWPROBE-"), "-BEGIN"), nil
		case line == "DWPROBE-EVENTS-END" && section == "EVENTS":
			g.Listed, g.ListedComments = nil, nil // the last listing counts
			for _, def := range body {
				if tracefs.ListingComment(def) {
					g.ListedComments = append(g.ListedComments, def)
					continue
				}
				events.Add(def)
				g.Listed = append(g.Listed, def)
			}
			section = ""
		case strings.HasPrefix(line, "DWPROBE-"+section+"-END ") && (section == "WORKLOAD" || section == "SETUP"):
			code, err := strconv.Atoi(strings.TrimPrefix(line, "DWPROBE-"+section+"-END "))
			if err != nil {
				return nil, fmt.Errorf("bad marker %q", line)
			}
			// The init wrote a newline after the script's output:
			// the last line of body is what followed the output's
			// last newline.
			out := strings.Join(body, "\n")
			if section == "SETUP" {
				g.Setup, g.SetupExit = out, code
			} else {
				g.Workload, g.WorkloadExit = out, code
			}
			section = ""
		case line == "DWPROBE-TRACE-END" && section == "TRACE":
			var err error
			g.Trace, g.Overwritten, err = ParseTrace(body, events)
			if err != nil {
				return nil, err
			}
			return g, nil
		case section != "":
			body = append(body, line)
		}
	}
	if section != "" {
		return nil, fmt.Errorf("console ends inside the %s section", section)
	}
	return nil, fmt.Errorf("console has no DWPROBE-TRACE-END")
}
