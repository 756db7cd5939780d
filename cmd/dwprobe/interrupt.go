package main

import (
	"context"
	"errors"
	"io"
	"os"
)

// errInterrupted: a signal (SIGINT, SIGTERM, SIGHUP) ended the run
// before it was done and before it printed anything; what it would have
// printed or saved is not.
var errInterrupted = errors.New("interrupted: nothing was printed or saved")

// errInterruptedPrinted: a signal ended the run after it had printed
// some of its output (the verdicts of the specs before it, say).
var errInterruptedPrinted = errors.New("interrupted: the output above is incomplete, and nothing was saved")

// interrupted words err as errInterrupted, or errInterruptedPrinted when
// printed says stdout has had some of the run's output, when it is the
// run's context ending it; other errors, and the tracefs loop's own
// wording of a signal, stay as they are.
func interrupted(ctx context.Context, err error, printed bool) error {
	if err == nil || ctx.Err() == nil || !errors.Is(err, context.Canceled) {
		return err
	}
	if printed {
		return errInterruptedPrinted
	}
	return errInterrupted
}

// countingWriter is a writer that notes whether anything went through.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// ctxReader reads r until ctx is done: a read from a terminal or an idle
// pipe (@-, --apply -, @/dev/tty) blocks in the kernel, deaf to the
// context, so it runs on its own goroutine and is abandoned at a signal.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	type result struct {
		n   int
		err error
	}
	buf := make([]byte, len(p)) // the abandoned read must not write into p later
	done := make(chan result, 1)
	go func() {
		n, err := c.r.Read(buf)
		done <- result{n, err}
	}()
	select {
	case r := <-done:
		return copy(p, buf[:r.n]), r.err
	case <-c.ctx.Done():
		return 0, c.ctx.Err()
	}
}

// interruptibleStdin is os.Stdin read through ctxReader.
func interruptibleStdin(ctx context.Context) io.Reader {
	return ctxReader{ctx, os.Stdin}
}
