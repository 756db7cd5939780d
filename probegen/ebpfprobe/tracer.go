package ebpfprobe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/ringbuf"

	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// Tracer is CollectionSpec's programs loaded into the running kernel and
// attached at their points, with a reader of their records.
type Tracer struct {
	// Probes are the points, Probes[i] the one of a record with Cookie
	// i, whose layout is Layouts[i].
	Probes  []answer.Probe
	Layouts []Layout

	// Symbols print the kernel points' arguments of type symbol; nil
	// where none has one (or the running kernel hides its addresses:
	// they print as addresses then).
	Symbols *KernelSymbols

	coll  *ebpf.Collection
	links []link.Link
	rd    *ringbuf.Reader
}

// readsSymbol reports whether a kernel point has an argument of type
// symbol.
func readsSymbol(probes []answer.Probe) bool {
	for _, p := range probes {
		for _, a := range p.Args {
			if !p.User && a.Type.Fetch == "symbol" {
				return true
			}
		}
	}
	return false
}

// Trace loads CollectionSpec(a, probes, o) (with the running kernel's
// KASLR offset found where o leaves it 0 and a kernel global is read) and attaches each point's
// program there with its index as cookie (AttachCookie), a uprobe for
// o.PID only when it is set. It needs root
// (or CAP_BPF and CAP_PERFMON); on an error what was loaded is closed.
func Trace(a *arch.Arch, probes []answer.Probe, o ProgramOptions) (*Tracer, error) {
	if o.KernelOffset == 0 && readsKernelGlobal(probes) {
		off, err := RunningKernelOffset(probes)
		if err != nil {
			return nil, err
		}
		o.KernelOffset = off
	}
	cs, layouts, err := CollectionSpec(a, probes, o)
	if err != nil {
		return nil, err
	}
	same := shareIdentical(cs, len(probes))
	coll, err := ebpf.NewCollection(cs)
	if err != nil {
		return nil, err
	}
	t := &Tracer{Probes: probes, Layouts: layouts, coll: coll}
	if readsSymbol(probes) {
		t.Symbols, _ = RunningKernelSymbols()
	}
	for i, p := range probes {
		lk, err := attach(p, coll.Programs[same[i]], uint64(i), o.PID)
		if err != nil {
			t.Close()
			return nil, err
		}
		t.links = append(t.links, lk)
	}
	if t.rd, err = ringbuf.NewReader(coll.Maps[RingBufMap]); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// shareIdentical leaves one program of cs for each set of the n points'
// programs with the same instructions (the points of a spec reading the
// same registers, say: the record's cookie tells them apart), so that
// each is verified and loaded once; it returns the program each point is
// attached with.
func shareIdentical(cs *ebpf.CollectionSpec, n int) []string {
	first := map[string]string{} // instructions -> program
	out := make([]string, n)
	for i := range out {
		name := PointProgram(i)
		key := fmt.Sprintf("%v", cs.Programs[name].Instructions)
		if f, ok := first[key]; ok {
			out[i] = f
			delete(cs.Programs, name)
			continue
		}
		first[key], out[i] = name, name
	}
	return out
}

// Read waits for the next record and decodes it by its point's layout.
// After Close it returns ringbuf.ErrClosed; past a deadline
// (SetDeadline), os.ErrDeadlineExceeded; for a record too short for its
// header or layout, an error wrapping ErrShort.
func (t *Tracer) Read() (Record, error) {
	raw, err := t.rd.Read()
	if err != nil {
		return Record{}, err
	}
	b := raw.RawSample
	if len(b) < HeaderSize {
		return Record{}, fmt.Errorf("%d bytes, header of %d: %w", len(b), HeaderSize, ErrShort)
	}
	i := binary.LittleEndian.Uint64(b[8:])
	if i >= uint64(len(t.Layouts)) {
		return Record{}, fmt.Errorf("record of point %d of %d: %w", i, len(t.Layouts), ErrShort)
	}
	rec, err := t.Layouts[i].Record(b)
	if err == nil && t.Symbols != nil && !t.Probes[i].User {
		for j, v := range rec.Values {
			if v.Field.Type.Fetch == "symbol" && !v.Fault {
				rec.Values[j].Symbol = t.Symbols.Format(v.Raw)
			}
		}
	}
	return rec, err
}

// SetDeadline makes Read return os.ErrDeadlineExceeded once the ring
// buffer is empty past d; the zero time waits forever.
func (t *Tracer) SetDeadline(d time.Time) { t.rd.SetDeadline(d) }

// Close detaches the programs and unloads them.
func (t *Tracer) Close() error {
	var errs []error
	if t.rd != nil {
		errs = append(errs, t.rd.Close())
	}
	for _, l := range t.links {
		errs = append(errs, l.Close())
	}
	t.coll.Close()
	return errors.Join(errs...)
}
