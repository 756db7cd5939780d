// Command dwprobe turns source-level probe specs into Linux dynamic-event
// definitions from DWARF debuginfo, like perf probe.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

func main() {
	if os.Getenv("GOGC") == "" {
		// A short run over mapped debuginfo: a tighter heap keeps the
		// peak below perf's for the symbol-table-heavy -F, for little CPU
		// (a run of many specs relaxes it: collectForRun).
		debug.SetGCPercent(40)
	}
	// SIGTERM and SIGHUP (kill, a closed terminal) stop a command as
	// Ctrl-C does: an add or --apply rolls back what it wrote.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	// An input truncated while mapped (a vmlinux rebuilt under the run)
	// faults: an error naming it, exit 4, not a death by SIGBUS. The
	// query's worker goroutines ask for the same (dwarfres's parallel).
	debug.SetPanicOnFault(true)
	stdin = interruptibleStdin(ctx)
	err := runFaultGuarded(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "dwprobe: %s\n", oneLine(err.Error()))
		os.Exit(exitCode(err))
	}
}

// collectForRun collects garbage half as often in a run of many specs
// (dwarfres.ManySpecs, the index's rule), unless GOGC says otherwise:
// its live heap is mostly decoded units kept for the specs that share
// them, and with two specs resolving at once the collections at GOGC 40
// cost a tenth of the conformance specs' wall time (on the 6.1 vmlinux
// 0.57 s, now 0.52, against perf's 0.55 for one query).
func collectForRun(o *options) {
	if os.Getenv("GOGC") == "" && specCount(o) >= dwarfres.ManySpecs {
		debug.SetGCPercent(100)
	}
}

// oneLine keeps an error to one line, whatever wrapped it.
func oneLine(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ")
}

// runFaultGuarded is run, with a fault on a mapped input turned into its
// error (elfobj.FaultError).
func runFaultGuarded(ctx context.Context, args []string) (err error) {
	defer elfobj.GuardFault(&err)
	return run(ctx, args, os.Stdout, os.Stderr)
}
