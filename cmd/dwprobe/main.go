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

	"github.com/dwprobe/dwprobe/probegen"
)

func main() {
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

// oneLine keeps an error to one line, whatever wrapped it.
func oneLine(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ")
}

// runFaultGuarded is run, with a fault on a mapped input turned into its
// error (probegen.GuardFault).
func runFaultGuarded(ctx context.Context, args []string) (err error) {
	defer probegen.GuardFault(&err)
	return run(ctx, args, os.Stdout, os.Stderr)
}
