package main

import (
	"context"
	"errors"
	"io"
	"os"
)

// errInterrupted: a signal (SIGINT, SIGTERM, SIGHUP) ended the run
// before it was done; what it would have printed or saved is not.
var errInterrupted = errors.New("interrupted: nothing was printed or saved")

// interrupted words err as errInterrupted when it is the run's context
// ending it; other errors, and the tracefs loop's own wording of a
// signal, stay as they are.
func interrupted(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return errInterrupted
	}
	return err
}

// ctxStdin reads os.Stdin until ctx is done: a read from a terminal or
// an idle pipe (@-, --apply -) blocks in the kernel, deaf to the
// context, so it runs on its own goroutine and is abandoned at a signal.
type ctxStdin struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxStdin) Read(p []byte) (int, error) {
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

// interruptibleStdin is os.Stdin read through ctxStdin.
func interruptibleStdin(ctx context.Context) io.Reader {
	return ctxStdin{ctx, os.Stdin}
}
