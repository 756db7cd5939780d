package ebpfprobe

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// A record Program writes: HeaderSize bytes, then Generate's fault mask
// and fields.
const (
	// HeaderSize is the record's header: the task's pid_tgid
	// (bpf_get_current_pid_tgid: the process in the high 32 bits, the
	// thread in the low) at 0; the attach cookie (AttachCookie: the
	// point's index in a Tracer) at 8; the time of the hit
	// (bpf_ktime_get_ns) at 16; the CPU (bpf_get_smp_processor_id, 4
	// bytes) at 24; the task's name (bpf_get_current_comm, 16 bytes) at
	// 32: what a trace line of the kernel's shows of a hit.
	HeaderSize = 48
	// RingBufMap is the name of the ring buffer map Program writes to,
	// as CollectionSpec declares it.
	RingBufMap = "events"
	// DefaultRingSize is the ring buffer's bytes when
	// ProgramOptions.RingSize is 0.
	DefaultRingSize = 1 << 18
)

// Record is one hit of a probe point, decoded.
type Record struct {
	// PID and TID are the process and the thread that hit the point.
	PID, TID uint32
	// Cookie is the point's attach cookie: its index in a Tracer.
	Cookie uint64
	// Time is when: nanoseconds of the kernel's monotonic clock
	// (CLOCK_MONOTONIC, bpf_ktime_get_ns). CPU is the CPU it ran on;
	// Comm the thread's name, as the kernel's trace shows them.
	Time   uint64
	CPU    uint32
	Comm   string
	Values []Value
}

// Record decodes a record Program wrote by l (from CollectionSpec or
// Program). The error wraps ErrShort.
func (l *Layout) Record(buf []byte) (Record, error) {
	if len(buf) < HeaderSize {
		return Record{}, fmt.Errorf("%d bytes, header of %d: %w", len(buf), HeaderSize, ErrShort)
	}
	vals, err := l.Decode(buf)
	if err != nil {
		return Record{}, err
	}
	id := binary.LittleEndian.Uint64(buf)
	comm := buf[32:48]
	if i := bytes.IndexByte(comm, 0); i >= 0 {
		comm = comm[:i]
	}
	return Record{PID: uint32(id >> 32), TID: uint32(id), Cookie: binary.LittleEndian.Uint64(buf[8:]),
		Time: binary.LittleEndian.Uint64(buf[16:]), CPU: binary.LittleEndian.Uint32(buf[24:]), Comm: string(comm), Values: vals}, nil
}

// Program returns a complete kprobe-type program (for a kprobe or a
// uprobe) that reads args on machine a at each hit into a record of the
// ring buffer map RingBufMap (which its first instruction references by
// that name): the header, then Generate's layout (o.Offset is
// HeaderSize). A hit finding the ring buffer full is lost. The attach
// cookie needs Linux 5.15.
func Program(a *arch.Arch, args []answer.ArgRead, o Options) (asm.Instructions, Layout, error) {
	o.Offset = HeaderSize
	reads, l, err := Generate(a, args, o)
	if err != nil {
		return nil, Layout{}, err
	}
	size := (l.Size + 7) &^ 7
	insns := asm.Instructions{
		asm.Mov.Reg(RegContext, asm.R1),
		asm.LoadMapPtr(asm.R1, 0).WithReference(RingBufMap),
		asm.Mov.Imm(asm.R2, int32(size)),
		asm.Mov.Imm(asm.R3, 0),
		asm.FnRingbufReserve.Call(),
		asm.JEq.Imm(asm.R0, 0, "exit"),
		asm.Mov.Reg(RegBuffer, asm.R0),
		asm.FnGetCurrentPidTgid.Call(),
		asm.StoreMem(RegBuffer, 0, asm.R0, asm.DWord),
		asm.Mov.Reg(asm.R1, RegContext),
		asm.FnGetAttachCookie.Call(),
		asm.StoreMem(RegBuffer, 8, asm.R0, asm.DWord),
		asm.FnKtimeGetNs.Call(),
		asm.StoreMem(RegBuffer, 16, asm.R0, asm.DWord),
		asm.FnGetSmpProcessorId.Call(),
		asm.StoreMem(RegBuffer, 24, asm.R0, asm.DWord),
		asm.Mov.Reg(asm.R1, RegBuffer),
		asm.Add.Imm(asm.R1, 32),
		asm.Mov.Imm(asm.R2, commSize),
		asm.FnGetCurrentComm.Call(),
	}
	insns = append(insns, reads...)
	insns = append(insns,
		asm.Mov.Reg(asm.R1, RegBuffer),
		asm.Mov.Imm(asm.R2, 0),
		asm.FnRingbufSubmit.Call(),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("exit"),
		asm.Return(),
	)
	return insns, l, nil
}

// ProgramOptions are CollectionSpec's.
type ProgramOptions struct {
	// MaxString and SkipUnreadable are Options'.
	MaxString      int
	SkipUnreadable bool
	// RingSize is the ring buffer's bytes, a power of 2 multiple of
	// the page size; 0 is DefaultRingSize.
	RingSize uint32
	// PID, when not 0, makes Trace's uprobes fire in that process only
	// (link.UprobeOptions.PID); kprobes fire in every process.
	PID int
	// KernelOffset is Options.KernelOffset, the running kernel's KASLR
	// offset, for the kernel's globals. Trace finds it (KernelOffset)
	// when it is 0 and a kernel point reads a global; a caller of
	// CollectionSpec loading into a KASLR kernel sets it.
	KernelOffset int64
}

// CollectionSpec returns a collection of one Program per point of
// probes ("point0", "point1", …, for probes[0], probes[1], …) reading
// their arguments on machine a (the target's), and the ring buffer
// RingBufMap they share; layouts[i] is point i's records' layout. (The
// points of one spec place their arguments alike; one may have an
// argument another cannot read, Field.Unreadable.) Errors are Program's,
// with the point's index.
func CollectionSpec(a *arch.Arch, probes []answer.Probe, o ProgramOptions) (cs *ebpf.CollectionSpec, layouts []Layout, err error) {
	size := o.RingSize
	if size == 0 {
		size = DefaultRingSize
	}
	cs = &ebpf.CollectionSpec{
		Maps:     map[string]*ebpf.MapSpec{RingBufMap: {Name: RingBufMap, Type: ebpf.RingBuf, MaxEntries: size}},
		Programs: map[string]*ebpf.ProgramSpec{},
	}
	for i, p := range probes {
		po := Options{User: p.User, MaxString: o.MaxString, SkipUnreadable: o.SkipUnreadable,
			KernelOffset: o.KernelOffset, Module: p.Attach.Module != ""}
		if p.User && !p.Return {
			po.FileOffset = p.Attach.FileOffset
		}
		insns, l, err := Program(a, p.Args, po)
		if err != nil {
			return nil, nil, fmt.Errorf("point %d (%s): %w", i, p.Group+":"+p.Name, err)
		}
		layouts = append(layouts, l)
		name := PointProgram(i)
		cs.Programs[name] = &ebpf.ProgramSpec{Name: name, Type: ebpf.Kprobe, License: "GPL", Instructions: insns}
	}
	return cs, layouts, nil
}

// PointProgram is the name of point i's program in CollectionSpec.
func PointProgram(i int) string { return fmt.Sprintf("point%d", i) }
