package probegen

import (
	"errors"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
)

// Batches of specs: Stream resolves specs as they come and hands each
// answer on in spec order, on every core; ResolveAll is Stream over a
// slice. dwprobe's -D, -a and spec files run through Stream.

// SpecResult is one spec of a batch, resolved or not.
type SpecResult struct {
	Spec string
	// Parsed is the spec parsed; nil when it does not parse.
	Parsed *grammar.Spec
	// Resolution is the spec's answer; nil when Err is set.
	Resolution *answer.Resolution
	// Err is why the spec does not resolve.
	Err *SpecError
}

// SpecError is a spec that did not resolve: the spec, the 1-based byte
// column of what was wrong (0 when the error names no place in it) and
// the error.
type SpecError struct {
	Spec string
	Col  int
	Err  error
}

// Error is the error's: every error of a spec names it.
func (e *SpecError) Error() string { return e.Err.Error() }

func (e *SpecError) Unwrap() error { return e.Err }

// ResolveAll resolves every spec; a spec that fails does not stop the
// others (its SpecResult.Err says why). errors.Join of the failures is
// FirstError's business, for a caller that wants all or nothing. Against
// debuginfo, specs resolve on every core at once (they are independent);
// the results keep the specs' order (Stream). A fault reading a mapped
// input (a file truncated under the batch, elfobj.FaultError) ends the
// batch: the spec it hit and those after it fail with it.
func (r *Resolver) ResolveAll(specs []string) []SpecResult {
	out := make([]SpecResult, 0, len(specs))
	each := func(yield func(string) bool) error {
		for _, s := range specs {
			if !yield(s) {
				break
			}
		}
		return nil
	}
	err := r.Stream(each, func(sr SpecResult) error {
		out = append(out, sr)
		return nil
	})
	if err != nil {
		for _, s := range specs[len(out):] {
			out = append(out, SpecResult{Spec: s, Err: &SpecError{Spec: s, Err: err}})
		}
	}
	return out
}

// Stream resolves the specs specs yields, as they come, and calls fn with
// each result in the order they were yielded. Against debuginfo up to
// Workers specs (BatchWorkers when 0) resolve at once on other
// goroutines, read ahead of the one fn sees: a stream of any length uses
// every core and holds a bounded number of answers. From BTF specs
// resolve one at a time. specs stops when yield returns false; its error
// (a spec file that cannot be read on) ends the stream after the results
// of the specs it yielded before. fn's error ends the stream (the specs
// resolved ahead are dropped) and is Stream's; so is a fault reading a
// mapped input (elfobj.FaultError: a file truncated under the run), after
// the results before it. Every resolution has ended when Stream returns
// (the caller may close the target). Stream does not wait for specs
// itself when it stops early: it may be blocked reading stdin, and it
// touches no target.
func (r *Resolver) Stream(specs func(yield func(string) bool) error, fn func(SpecResult) error) error {
	n := r.Workers
	if n == 0 {
		n = BatchWorkers()
	}
	if r.BTF != nil || r.File == nil {
		n = 1 // BTF's types are not read from several goroutines
	}
	done := 0
	deliver := func(a aheadResult) error {
		if a.fault != nil {
			return a.fault
		}
		if done++; done%releaseEvery == 0 && r.File != nil {
			r.File.ReleasePages()
		}
		return fn(a.res)
	}
	if n <= 1 {
		var stop error
		err := specs(func(s string) bool {
			stop = deliver(r.resolveGuarded(s))
			return stop == nil
		})
		if stop != nil {
			return stop
		}
		return err
	}
	q, stop := r.ahead(specs, n)
	defer stop()
	for p := range q {
		if p.err != nil {
			return p.err
		}
		if err := deliver(<-p.out); err != nil {
			return err
		}
	}
	return nil
}

// releaseEvery is how many specs a stream resolves between giving back
// the pages of the debuginfo they read through the mapping: the 663 specs
// of the conformance suite otherwise peak at 90 MB of them (of 215 MB
// RSS).
const releaseEvery = 32

// BatchWorkers is how many specs a batch resolves at once (Stream,
// ResolveAll): one per core, up to 8. Each spec's own decoding already
// spreads over the cores (units decoded ahead), so more specs at once
// would only multiply the units held in flight.
func BatchWorkers() int { return min(runtime.NumCPU(), 8) }

// pendingSpec is a spec read ahead: its result arrives on out; err is
// the error of specs that ends them instead.
type pendingSpec struct {
	spec string
	out  chan aheadResult
	err  error
}

type aheadResult struct {
	res   SpecResult
	fault error // a fault reading a mapped input: it ends the stream
}

// ahead starts reading and resolving specs on up to workers goroutines; q
// yields them in order and closes after the last. stop starts no more
// resolutions and waits for those started; it does not wait for specs.
func (r *Resolver) ahead(specs func(yield func(string) bool) error, workers int) (q <-chan *pendingSpec, stop func()) {
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
			p.out <- r.resolveGuarded(p.spec)
		}()
		return true
	}
	go func() {
		defer close(out)
		halted := false
		err := specs(func(s string) bool {
			p := &pendingSpec{spec: s, out: make(chan aheadResult, 1)}
			select {
			case slots <- struct{}{}:
			case <-done:
				halted = true
				return false
			}
			if !start(p) {
				halted = true
				return false
			}
			select {
			case out <- p:
				return true
			case <-done:
				halted = true
				return false
			}
		})
		if err != nil && !halted {
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

// resolveGuarded resolves one spec of a stream: a fault reading a mapped
// input (a file truncated under the run) is returned apart, to end the
// stream, on whichever goroutine it resolves; any other panic goes on.
func (r *Resolver) resolveGuarded(s string) (a aheadResult) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer elfobj.GuardFault(&a.fault)
	a.res.Spec = s
	spec, res, err := r.Resolve(s)
	a.res.Parsed = spec
	if err != nil {
		a.res.Err = &SpecError{Spec: s, Col: errorColumn(err), Err: err}
		return a
	}
	a.res.Resolution = res
	return a
}

// FirstError is the first failure of a batch, nil if every spec resolved.
func FirstError(rs []SpecResult) error {
	for _, r := range rs {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
}

// errorColumn is the column a spec's error points at, 0 if none.
func errorColumn(err error) int {
	var se *grammar.SyntaxError
	if errors.As(err, &se) {
		return se.Col
	}
	return 0
}
