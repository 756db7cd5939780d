package main

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// eachResolved reads the specs of args as eachSpec does and calls fn with
// each and its resolution, in spec order. With workers > 1, up to workers
// specs resolve at once on other goroutines, read ahead of the one fn
// sees: a spec file of hundreds of specs uses every core (the specs are
// independent; what a run prints stays in order, and a run fn stops
// discards the specs resolved ahead). resolve must be safe for
// concurrent use then. Every resolution has ended when it returns (the
// caller may close the file they read).
func eachResolved(ctx context.Context, args []string, workers int, resolve func(specInput) resolved, fn func(specInput, resolved) error) error {
	if workers <= 1 {
		return eachSpec(ctx, args, func(in specInput) error { return fn(in, resolve(in)) })
	}
	q, stop := resolveAhead(ctx, args, workers, resolve)
	defer stop()
	for p := range q {
		if p.err != nil {
			return p.err
		}
		r := <-p.out
		if r.fault != nil {
			return r.fault
		}
		if err := fn(p.in, r.resolved); err != nil {
			return err
		}
	}
	return nil
}

// pendingSpec is a spec read ahead: its resolution arrives on out; err is
// the spec file's read error that ends the specs instead.
type pendingSpec struct {
	in  specInput
	out chan aheadResult
	err error
}

type aheadResult struct {
	resolved
	fault error // a fault reading a mapped input: it ends the run
}

var errStopAhead = errors.New("stopped")

// resolveAhead starts reading and resolving the specs of args; q yields
// them in order and closes after the last. stop starts no more
// resolutions and waits for those started; it does not wait for the
// reading, which may be blocked on stdin (@-) and touches no target.
func resolveAhead(ctx context.Context, args []string, workers int, resolve func(specInput) resolved) (q <-chan *pendingSpec, stop func()) {
	out := make(chan *pendingSpec, 4*workers)
	done := make(chan struct{})
	slots := make(chan struct{}, workers)
	var (
		mu      sync.Mutex
		stopped bool
		running sync.WaitGroup
	)
	start := func(p *pendingSpec) bool {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return false
		}
		running.Add(1)
		go func() {
			defer running.Done()
			defer func() { <-slots }()
			p.out <- resolveGuarded(resolve, p.in)
		}()
		return true
	}
	go func() {
		defer close(out)
		err := eachSpec(ctx, args, func(in specInput) error {
			p := &pendingSpec{in: in, out: make(chan aheadResult, 1)}
			select {
			case slots <- struct{}{}:
			case <-done:
				return errStopAhead
			}
			if !start(p) {
				return errStopAhead
			}
			select {
			case out <- p:
				return nil
			case <-done:
				return errStopAhead
			}
		})
		if err != nil && !errors.Is(err, errStopAhead) {
			select {
			case out <- &pendingSpec{err: err}:
			case <-done:
			}
		}
	}()
	return out, func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
		close(done)
		running.Wait()
	}
}

// resolveGuarded is resolve on a goroutine of its own: a fault reading a
// mapped input (a file truncated under the run) becomes the run's error,
// as runFaultGuarded makes it on the main goroutine; any other panic goes
// on, with its stack.
func resolveGuarded(resolve func(specInput) resolved, in specInput) (r aheadResult) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer elfobj.GuardFault(&r.fault)
	r.resolved = resolve(in)
	return r
}
