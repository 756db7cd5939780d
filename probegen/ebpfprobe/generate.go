package ebpfprobe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/cilium/ebpf/asm"

	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// Options are how Generate reads arguments.
type Options struct {
	// User reads memory with bpf_probe_read_user (a uprobe's program);
	// otherwise a load reads user memory only where the plan says so
	// (tracefs.Load.User, a ustring) and kernel memory elsewhere.
	User bool
	// MaxString is a string's bytes in the record, its NUL included;
	// longer strings are cut. 0 is DefaultMaxString; less than 8 is 8
	// (the field holds a pointer on the way).
	MaxString int
	// SkipUnreadable leaves an argument that is not readable at its
	// point (answer.LocUnreadable, LocKernel) zero in every record,
	// with Field.Unreadable saying why, instead of failing.
	SkipUnreadable bool
	// Offset is where the fault mask starts in the buffer (a multiple
	// of 8): the bytes before it are the caller's.
	Offset int
	// FileOffset is the uprobe's file offset (answer.Probe.Attach.FileOffset)
	// for a global read by file offset (@+OFFS, a position-independent
	// binary's), which is found from it and the probe's address. Leave it
	// 0 for a return probe, whose instruction pointer is the caller's:
	// such a global is then refused (ErrUnsupported).
	FileOffset uint64
	// KernelOffset is the running kernel's KASLR offset (where its text
	// is minus where the vmlinux links it; KernelOffset finds it), added
	// to a kernel global's link-time address (answer.LocAddress). The
	// kprobe event's @SYMBOL is resolved by the kernel; a program's
	// address is an immediate, so without it a KASLR kernel (Debian's
	// default) would be read at the wrong place.
	KernelOffset int64
	// Module is set for a kernel module's point: a module's global has
	// no address until the kernel loads it, so its read is refused
	// (ErrUnsupported) rather than made at its link-time address.
	Module bool
}

func (o Options) maxString() int {
	switch {
	case o.MaxString <= 0:
		return DefaultMaxString
	case o.MaxString < 8:
		return 8
	}
	return o.MaxString
}

// Registers of the calling convention of Generate's instructions.
const (
	// RegContext holds the program's context (struct pt_regs *), as the
	// caller saved it from R1.
	RegContext = asm.R6
	// RegBuffer points to the output buffer, Layout.Size bytes the
	// program may write (a ring buffer reservation, a map value, the
	// stack).
	RegBuffer = asm.R7
)

// Generate returns instructions that read args on machine a (the probed
// binary's or kernel's, never this host's) into the buffer at RegBuffer,
// where Layout says, from the context at RegContext. They use R0-R5 (the
// helpers' registers), keep R6-R9 and have no labels, and jump only
// forward within themselves, so that they can be put anywhere in a
// program. Each read goes through bpf_probe_read_user or
// bpf_probe_read_kernel (the _str variants for strings;
// bpf_get_current_comm for $comm), chosen as the kernel's own fetch of
// the same definition chooses (readSplit); a read that faults zeroes its
// field and sets its bit in the fault mask. A pointer load is made into
// the argument's own field, then loaded from there, so no stack is used.
// Errors are *ArgError (ErrUnreadable, ErrKernelOnly, ErrUnsupported,
// ErrBitfield), ErrTooMany or a *RecordSizeError (ErrTooLarge: a record
// past MaxRecord bytes).
func Generate(a *arch.Arch, args []answer.ArgRead, o Options) (asm.Instructions, Layout, error) {
	if len(args) > 64 {
		return nil, Layout{}, fmt.Errorf("%d arguments: %w", len(args), ErrTooMany)
	}
	if o.Offset < 0 || o.Offset%8 != 0 || o.Offset > MaxRecord {
		return nil, Layout{}, &RecordSizeError{Offset: o.Offset}
	}
	l := layoutOf(args, o)
	if l.Size > MaxRecord {
		return nil, Layout{}, &RecordSizeError{Size: l.Size, Offset: o.Offset}
	}
	insns := zero(l.Mask)
	for i, arg := range args {
		g := gen{a: a, o: o, f: l.Fields[i], bit: i, mask: l.Mask}
		if err := g.arg(arg); err != nil {
			var ae *ArgError
			if o.SkipUnreadable && errors.As(err, &ae) && (ae.Err == ErrUnreadable || ae.Err == ErrKernelOnly) {
				g.insns = zero(g.f.Offset)
			} else {
				return nil, Layout{}, withIndex(err, i, arg.Name)
			}
		}
		insns = append(insns, g.insns...)
	}
	return insns, l, nil
}

// zero stores a zero uint64 at off in the buffer (BPF_ST has no 64-bit
// immediate form: asm.StoreImm refuses DWord).
func zero(off int) asm.Instructions {
	return asm.Instructions{asm.Mov.Imm(asm.R1, 0), asm.StoreMem(RegBuffer, int16(off), asm.R1, asm.DWord)}
}

// withIndex names argument i in err.
func withIndex(err error, i int, name string) error {
	var ae *ArgError
	if errors.As(err, &ae) {
		ae.Index, ae.Name = i, name
	}
	return err
}

// gen builds one argument's instructions.
type gen struct {
	a     *arch.Arch
	o     Options
	f     Field
	bit   int
	mask  int
	insns asm.Instructions
}

func (g *gen) emit(ins ...asm.Instruction) { g.insns = append(g.insns, ins...) }

// arg reads arg into the field: its base value into R3, then its loads.
func (g *gen) arg(arg answer.ArgRead) error {
	loc := arg.Loc
	switch loc.Kind {
	case answer.LocUnreadable:
		return &ArgError{Reason: loc.Reason, Err: ErrUnreadable}
	case answer.LocKernel:
		return &ArgError{Reason: loc.Text, Err: ErrKernelOnly}
	case answer.LocComm:
		g.dst()
		g.emit(asm.Mov.Imm(asm.R2, commSize), asm.FnGetCurrentComm.Call())
		g.fault()
		return nil
	case answer.LocConst:
		if g.f.String {
			g.constString(loc.Text)
			return nil
		}
		g.emit(asm.LoadImm(asm.R3, loc.Const, asm.DWord), asm.StoreMem(RegBuffer, int16(g.f.Offset), asm.R3, asm.DWord))
		return nil
	case answer.LocRegister:
		off, ok := g.a.PtRegsOffset(loc.Register)
		if !ok {
			return &ArgError{Reason: fmt.Sprintf("register %s is not in %s's pt_regs", loc.Register, g.a.Name), Err: ErrUnsupported}
		}
		g.emit(asm.LoadMem(asm.R3, RegContext, int16(off), asm.DWord))
	case answer.LocAddress:
		if err := g.address(loc); err != nil {
			return err
		}
	default:
		return &ArgError{Reason: loc.Kind.String(), Err: ErrUnsupported}
	}
	if arg.Type.Array > 0 && (arg.Type.String || len(loc.Loads) == 0) {
		// The kernel too takes an array only through a dereference.
		return &ArgError{Reason: "an array of strings or without a load", Err: ErrUnsupported}
	}
	return g.loads(arg)
}

// constString writes text (a \"STRING" argument) into the field, cut to
// leave room for its NUL, four bytes per store.
func (g *gen) constString(text string) {
	b := []byte(text)
	if len(b) > g.f.Size-1 {
		b = b[:g.f.Size-1]
	}
	b = append(b, 0)
	for i := 0; i < len(b); i += 4 {
		off := int16(g.f.Offset + i)
		if i+4 <= len(b) {
			g.emit(asm.StoreImm(RegBuffer, off, int64(int32(binary.LittleEndian.Uint32(b[i:]))), asm.Word))
			continue
		}
		for j, c := range b[i:] {
			g.emit(asm.StoreImm(RegBuffer, off+int16(j), int64(c), asm.Byte))
		}
	}
}

// address puts into R3 the address of loc (a LocAddress): a uprobe's
// global by file offset, a user binary's at its link-time address, or a
// kernel global relocated by Options.KernelOffset.
func (g *gen) address(loc answer.Location) error {
	switch {
	case loc.FileOffset:
		return g.fileOffset(loc.Address)
	case g.o.User:
		g.emit(asm.LoadImm(asm.R3, int64(loc.Address), asm.DWord))
	case g.o.Module:
		return &ArgError{Reason: "a module's global (" + loc.String() + "): its address is known only to the kernel that loaded it", Err: ErrUnsupported}
	default:
		g.emit(asm.LoadImm(asm.R3, int64(loc.Address)+g.o.KernelOffset, asm.DWord))
	}
	return nil
}

// fileOffset puts into R3 the address at which the probed binary's file
// offset off (a uprobe's @+OFFS) is mapped, as the kernel's
// translate_user_vaddr finds it: the probe's address (the context's
// instruction pointer, which handle_swbp sets to the breakpoint's address
// before the handlers run) minus the probe's file offset, plus off.
func (g *gen) fileOffset(off uint64) error {
	if g.o.FileOffset == 0 {
		return &ArgError{Reason: "a global by file offset (@+OFFS) with no probe file offset (Options.FileOffset)", Err: ErrUnsupported}
	}
	ip := "ip"
	if !g.a.HasRegister(ip) {
		ip = "pc" // arm64
	}
	at, ok := g.a.PtRegsOffset(ip)
	if !ok {
		return &ArgError{Reason: "no instruction pointer in " + g.a.Name + "'s pt_regs", Err: ErrUnsupported}
	}
	g.emit(asm.LoadMem(asm.R3, RegContext, int16(at), asm.DWord),
		asm.LoadImm(asm.R1, int64(off-g.o.FileOffset), asm.DWord),
		asm.Add.Reg(asm.R3, asm.R1))
	return nil
}

// loads follows arg's loads from the value in R3 (the source argument of
// the read helpers) into the field.
func (g *gen) loads(arg answer.ArgRead) error {
	loads, t := arg.Loc.Loads, arg.Type.FetchType
	if arg.Type.Fetch == "symstr" || arg.Type.Fetch == "%pd" || arg.Type.Fetch == "%pD" {
		// The kernel prints these from what it looks up at the hit.
		return &ArgError{Reason: "type " + arg.Type.Fetch, Err: ErrUnsupported}
	}
	if err := checkBitfield(t, elemSize(arg.Type)); err != nil {
		return err
	}
	if t.String {
		// The kernel does not make a string's last load: value+Offset
		// is the string.
		off, user := int64(0), g.o.User || t.User
		if n := len(loads); n > 0 {
			off, user = loads[n-1].Offset, user || loads[n-1].User
			loads = loads[:n-1]
		}
		if err := g.pointers(loads); err != nil {
			return err
		}
		if err := g.add(off); err != nil {
			return err
		}
		g.readSplit(asm.FnProbeReadKernelStr, asm.FnProbeReadUserStr, user, g.f.Size)
		return nil
	}
	size := elemSize(arg.Type)
	if len(loads) == 0 {
		// The register's value (or a global's address) itself.
		g.shift(asm.R3, t, size)
		g.emit(asm.StoreMem(RegBuffer, int16(g.f.Offset), asm.R3, asm.DWord))
		return nil
	}
	last := loads[len(loads)-1]
	if err := g.pointers(loads[:len(loads)-1]); err != nil {
		return err
	}
	if err := g.add(last.Offset); err != nil {
		return err
	}
	if t.Array > 0 {
		// The elements as they are in memory: Decode extends each.
		g.readMem(last.User, size*t.Array)
		return nil
	}
	g.readMem(last.User, size)
	g.extend(t, size)
	return nil
}

// pointers makes loads of pointers: each reads 8 bytes at R3+Offset into
// the field and loads them into R3.
func (g *gen) pointers(loads []tracefs.Load) error {
	for _, l := range loads {
		if err := g.add(l.Offset); err != nil {
			return err
		}
		g.readMem(l.User, 8)
		g.emit(asm.LoadMem(asm.R3, RegBuffer, int16(g.f.Offset), asm.DWord))
	}
	return nil
}

// readMem reads size bytes of memory at R3 into the field, as the
// kernel's fetch of the same load reads them: user memory for a uprobe's
// program or a load of user memory (+u, ustring); otherwise as a
// kprobe's fetch does (readSplit).
func (g *gen) readMem(user bool, size int) {
	g.readSplit(asm.FnProbeReadKernel, asm.FnProbeReadUser, user, size)
}

// readSplit reads size bytes at R3 into the field with userFn when the
// load is of user memory (or the program a uprobe's); otherwise as the
// kernel's kprobe fetches do on machines whose user and kernel address
// spaces do not overlap (x86_64, arm64: probe_mem_read and
// fetch_store_string in kernel/trace/trace_kprobe.c and
// trace_probe_kernel.h): an address below TASK_SIZE is read as user
// memory, any other as kernel memory. A kernel address has its top bit
// set on both machines and a user address has not (TASK_SIZE is at most
// 2^56), so the sign of R3 chooses: addresses between the two halves
// fault either way, as they do in the kernel.
func (g *gen) readSplit(kernelFn, userFn asm.BuiltinFunc, user bool, size int) {
	if g.o.User || user {
		g.read(userFn, size)
		return
	}
	at := len(g.insns)
	g.read(userFn, size)
	userRead := append(asm.Instructions(nil), g.insns[at:]...)
	g.insns = g.insns[:at]
	g.read(kernelFn, size)
	kernelRead := append(asm.Instructions(nil), g.insns[at:]...)
	g.insns = g.insns[:at]
	// if (s64)R3 < 0 goto kernel; user read; goto end; kernel: kernel read; end:
	g.emit(asm.Instruction{OpCode: asm.JSLT.Op(asm.ImmSource), Dst: asm.R3, Constant: 0, Offset: int16(slots(userRead) + 1)})
	g.emit(userRead...)
	g.emit(asm.Instruction{OpCode: asm.Ja.Op(asm.ImmSource), Offset: int16(slots(kernelRead))})
	g.emit(kernelRead...)
}

// slots is the count of 8-byte instruction slots insns take (a 64-bit
// immediate load takes two), what a jump's offset counts.
func slots(insns asm.Instructions) int {
	n := 0
	for _, ins := range insns {
		n += int(ins.Size() / asm.InstructionSize)
	}
	return n
}

// checkBitfield refuses a bitfield that does not fit its container of
// size bytes, as the kernel's parse_probe_arg does ("bw + bo >
// BYTES_TO_BITS(size)"): shift would make shift counts past 63 or below
// 0 of it, and the program would load garbage.
func checkBitfield(t tracefs.FetchType, size int) error {
	if t.BitWidth == 0 && t.BitOffset == 0 {
		return nil
	}
	if t.BitWidth <= 0 || t.BitOffset < 0 || t.BitOffset+t.BitWidth > 8*size {
		return &ArgError{Reason: fmt.Sprintf("b%d@%d/%d", t.BitWidth, t.BitOffset, 8*size), Err: ErrBitfield}
	}
	return nil
}

// add adds off to R3.
func (g *gen) add(off int64) error {
	switch {
	case off == 0:
		return nil
	case off < math.MinInt32 || off > math.MaxInt32:
		return &ArgError{Reason: fmt.Sprintf("offset %d", off), Err: ErrUnsupported}
	}
	g.emit(asm.Add.Imm(asm.R3, int32(off)))
	return nil
}

// dst puts the field's address into R1, the helpers' destination.
func (g *gen) dst() {
	g.emit(asm.Mov.Reg(asm.R1, RegBuffer))
	if g.f.Offset != 0 {
		g.emit(asm.Add.Imm(asm.R1, int32(g.f.Offset)))
	}
}

// read calls fn(field, size, R3) and records its fault.
func (g *gen) read(fn asm.BuiltinFunc, size int) {
	g.dst()
	g.emit(asm.Mov.Imm(asm.R2, int32(size)), fn.Call())
	g.fault()
}

// fault sets the argument's bit in the mask when the helper's result in
// R0 is negative (an error), without a jump: its sign bit, shifted.
func (g *gen) fault() {
	g.emit(asm.Mov.Reg(asm.R1, asm.R0), asm.RSh.Imm(asm.R1, 63))
	if g.bit > 0 {
		g.emit(asm.LSh.Imm(asm.R1, int32(g.bit)))
	}
	g.emit(asm.LoadMem(asm.R2, RegBuffer, int16(g.mask), asm.DWord),
		asm.Or.Reg(asm.R2, asm.R1),
		asm.StoreMem(RegBuffer, int16(g.mask), asm.R2, asm.DWord))
}

// extend makes the field's low size bytes (a bitfield's container) a
// 64-bit value as shift does.
func (g *gen) extend(t tracefs.FetchType, size int) {
	off := int16(g.f.Offset)
	at := len(g.insns)
	g.emit(asm.LoadMem(asm.R1, RegBuffer, off, asm.DWord))
	if !g.shift(asm.R1, t, size) {
		g.insns = g.insns[:at]
		return
	}
	g.emit(asm.StoreMem(RegBuffer, off, asm.R1, asm.DWord))
}

// shift makes reg's low size bytes (a bitfield's container) a 64-bit
// value, sign-extended when t.Signed, as the kernel's fetch types do: the
// value's bits shifted to the top, then back. It reports whether it
// emitted anything.
func (g *gen) shift(reg asm.Register, t tracefs.FetchType, size int) bool {
	shl, shr := 64-8*size, 64-8*size
	if t.BitWidth > 0 {
		shl, shr = 64-t.BitOffset-t.BitWidth, 64-t.BitWidth
	}
	if shr <= 0 {
		return false
	}
	if shl > 0 {
		g.emit(asm.LSh.Imm(reg, int32(shl)))
	}
	op := asm.RSh
	if t.Signed {
		op = asm.ArSh
	}
	g.emit(op.Imm(reg, int32(shr)))
	return true
}
