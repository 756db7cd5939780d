package ebpfprobe

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/dwprobe/dwprobe/probegen/answer"
)

// RunOptions say which records Tracer.Run delivers and when it stops.
type RunOptions struct {
	// PID delivers the hits of that process only; 0, every process's.
	PID uint32
	// Count stops after that many records were delivered; 0, no limit.
	Count int
	// Duration stops after that long; 0, no limit.
	Duration time.Duration
	// Done stops the run once it yields (a traced command's end, say),
	// after the records already in the ring buffer are delivered; Run
	// returns what it yielded. nil: nothing of the kind.
	Done <-chan error
}

// poll is how long Run waits on an empty ring buffer before it looks at
// its context, Duration and Done again.
const poll = 100 * time.Millisecond

// Run reads records and hands those o selects to fn, until ctx ends (nil:
// what was delivered stands), o.Count records were delivered, o.Duration
// passed, o.Done yielded, fn returns an error (which Run returns) or
// reading fails.
func (t *Tracer) Run(ctx context.Context, o RunOptions, fn func(Record) error) error {
	var deadline time.Time
	if o.Duration > 0 {
		deadline = time.Now().Add(o.Duration)
	}
	n, ended := 0, false
	var doneErr error
	for {
		if ctx.Err() != nil {
			return nil
		}
		t.SetDeadline(time.Now().Add(poll))
		rec, err := t.Read()
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			// The ring is empty: stop if it is time to.
			if ended {
				return doneErr
			}
			select {
			case doneErr = <-o.Done:
				ended = true // one more poll drains what it left
			default:
			}
			if !deadline.IsZero() && time.Now().After(deadline) {
				return nil
			}
			continue
		case err != nil:
			return err
		}
		if o.PID != 0 && rec.PID != o.PID {
			continue
		}
		if err := fn(rec); err != nil {
			return err
		}
		if n++; o.Count > 0 && n >= o.Count {
			return nil
		}
	}
}

// Line is r as the kernel's trace prints the hit of its point's event:
//
//	dd-100     [000]    12.345678: probe/vfs_read: (vfs_read+0x0) name="version"
//
// TASK-TID [CPU] SECONDS: GROUP/EVENT: (POINT) NAME=VALUE..., the kernel's
// columns but for its flags, and the event with its group.
func (t *Tracer) Line(r Record) string {
	var b strings.Builder
	p := t.Probes[r.Cookie]
	fmt.Fprintf(&b, "%16s-%-7d [%03d] %6d.%06d: %s/%s: (%s)", r.Comm, r.TID, r.CPU,
		r.Time/1e9, r.Time%1e9/1e3, p.Group, p.Name, PointText(p))
	for _, v := range r.Values {
		fmt.Fprintf(&b, " %s=%s", v.Field.Name, v.String())
	}
	return b.String()
}

// PointText names where p is as Line does: SYMBOL+0xOFF (a kprobe's
// symbol as written, else the ELF symbol covering the address), or the
// address of a point without a symbol.
func PointText(p answer.Probe) string {
	sym, off := p.ELFSymbol, p.ELFOffset
	if !p.User && p.Attach.Symbol != "" {
		sym, off = p.Attach.Symbol, p.Attach.Offset
	}
	if sym == "" {
		return fmt.Sprintf("%#x", p.Addr)
	}
	return fmt.Sprintf("%s+%#x", sym, off)
}
