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
)

func main() {
	if os.Getenv("GOGC") == "" {
		// A short run over mapped debuginfo: a tighter heap keeps the
		// peak below perf's for the symbol-table-heavy -F, for little CPU.
		debug.SetGCPercent(40)
	}
	// SIGTERM and SIGHUP (kill, a closed terminal) stop a command as
	// Ctrl-C does: an add or --apply rolls back what it wrote.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	stdin = interruptibleStdin(ctx)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
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
