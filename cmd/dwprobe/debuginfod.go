package main

import (
	"os"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/debuginfod"
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

// stderrIsTerminal reports whether progress lines can be shown.
func stderrIsTerminal() bool {
	st, err := os.Stderr.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
