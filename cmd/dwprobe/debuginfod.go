package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/debuginfod"
	"github.com/dwprobe/dwprobe/dwarfres/locate"
)

// debuginfodSystem is --debuginfod without URLS: the servers of
// $DEBUGINFOD_URLS, as perf's "system".
const debuginfodSystem = "system"

const debuginfodUsage = "fetch debuginfo and sources from the debuginfod servers URLS (space-separated; default: $DEBUGINFOD_URLS, which is used without this option too)"

// debuginfodOf is the debuginfod client of o: perf's --debuginfod=URLS
// stands for $DEBUGINFOD_URLS, which elfutils reads otherwise. nil when
// no server is named.
func debuginfodOf(o *options) *debuginfod.Client {
	d := debuginfod.FromEnv()
	if o.debuginfod != "" && o.debuginfod != debuginfodSystem {
		d = debuginfod.New(strings.Fields(o.debuginfod))
	}
	if d == nil || len(d.URLs) == 0 {
		return nil
	}
	d = d.WithContext(o.ctx)          // a signal ends a download, nothing cached
	d.Verify = dwarfres.CheckDownload // a download whose DWARF does not decode is not cached
	if stderrIsTerminal() {
		d.Progress = os.Stderr
	}
	return d
}

// addDebuginfod makes debuginfod the last place loc looks for debuginfo,
// as gdb and perf ask it after the local places.
func addDebuginfod(loc *dwarfres.Locator, o *options) {
	if d := debuginfodOf(o); d != nil {
		loc.Debug = append(loc.Debug, locate.Fetched{Fetcher: d})
	}
}

// fetchSource is probegen's Sources.Fetch: a source by the binary's
// build-id; a server's failure is named among the places tried.
func fetchSource(d *debuginfod.Client, buildID string) func(string) (string, []string) {
	return func(path string) (string, []string) {
		p, found, err := d.Fetch(buildID, debuginfod.KindSource, path)
		switch {
		case err != nil:
			return "", []string{err.Error()}
		case !found:
			shown := make([]string, len(d.URLs))
			for i, u := range d.URLs {
				shown[i] = debuginfod.Redact(u)
			}
			return "", []string{fmt.Sprintf("debuginfod (%s)", strings.Join(shown, " "))}
		}
		return p, nil
	}
}

// stderrIsTerminal reports whether progress lines can be shown.
func stderrIsTerminal() bool {
	st, err := os.Stderr.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
