// Command dwprobe turns source-level probe specs into Linux dynamic-event
// definitions from DWARF debuginfo, like perf probe.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if err != errHelp {
			fmt.Fprintf(os.Stderr, "dwprobe: %s\n", oneLine(err.Error()))
			os.Exit(1)
		}
	}
}

// oneLine keeps an error to one line, whatever wrapped it.
func oneLine(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ")
}
