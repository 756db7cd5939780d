package main

import "os"

// debuginfodSystem is --debuginfod without URLS: the servers of
// $DEBUGINFOD_URLS, as perf's "system".
const debuginfodSystem = "system"

const debuginfodUsage = "fetch debuginfo and sources from the debuginfod servers URLS (space-separated; default: $DEBUGINFOD_URLS, which is used without this option too)"

// stderrIsTerminal reports whether progress lines can be shown.
func stderrIsTerminal() bool {
	st, err := os.Stderr.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
