package ebpfprobe

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cilium/ebpf/asm"

	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// listing prints insns one per line, as cilium/ebpf's asm prints them.
func listing(insns asm.Instructions) string {
	var b strings.Builder
	for _, ins := range insns {
		fmt.Fprintf(&b, "%v\n", ins)
	}
	return b.String()
}

// faulted is the listing of fault's instructions for bit, mask at 0.
func faulted(bit int) string {
	s := "MovReg dst: r1 src: r0\nRShImm dst: r1 imm: 63\n"
	if bit > 0 {
		s += fmt.Sprintf("LShImm dst: r1 imm: %d\n", bit)
	}
	return s + "LdXMemDW dst: r2 src: r7 off: 0 imm: 0\nOrReg dst: r2 src: r1\nStXMemDW dst: r7 src: r2 off: 0 imm: 0\n"
}

// kread is the listing of a kernel program's read of size bytes at R3
// into the field at off with helper fn (FnProbeReadKernel or its _Str
// twin), setting fault bit bit of the mask at mask: the user-memory read
// where R3 is a user address (its sign bit clear), the kernel one
// elsewhere, as the kernel's kprobe fetches choose.
func kread(off, size int, fn string, bit, mask int) string {
	one := func(fn string) string {
		s := "MovReg dst: r1 src: r7\n"
		if off != 0 {
			s += fmt.Sprintf("AddImm dst: r1 imm: %d\n", off)
		}
		s += fmt.Sprintf("MovImm dst: r2 imm: %d\nCall %s\n", size, fn)
		return s + strings.ReplaceAll(faulted(bit), "off: 0", fmt.Sprintf("off: %d", mask))
	}
	user, kernel := one(strings.Replace(fn, "Kernel", "User", 1)), one(fn)
	return fmt.Sprintf("JSLTImm dst: r3 off: %d imm: 0\n", strings.Count(user, "\n")+1) + user +
		fmt.Sprintf("Ja off: %d\n", strings.Count(kernel, "\n")) + kernel
}

const zeroMask = "MovImm dst: r1 imm: 0\nStXMemDW dst: r7 src: r1 off: 0 imm: 0\n"

func reg(name string, loads ...tracefs.Load) answer.Location {
	return answer.Location{Kind: answer.LocRegister, Register: name, Loads: loads}
}

func typ(t tracefs.FetchType) answer.CType { return answer.CType{FetchType: t} }

var (
	s32    = typ(tracefs.FetchType{Size: 4, Signed: true})
	s64    = typ(tracefs.FetchType{Size: 8, Signed: true})
	u16    = typ(tracefs.FetchType{Size: 2})
	str    = typ(tracefs.FetchType{String: true})
	b3at5  = typ(tracefs.FetchType{Size: 4, BitWidth: 3, BitOffset: 5})
	x64    = typ(tracefs.FetchType{Size: 8, Hex: true})
	kernel = answer.Location{Kind: answer.LocKernel, Text: "file->f_mode"}
)

// generateCases are the instructions of each kind of plan, per machine:
// the pt_regs offsets are the target's (x86_64's bp is 32, cx 88; arm64's
// x19 is 152, x2 16), whatever the host.
var generateCases = []struct {
	name string
	a    *arch.Arch
	o    Options
	args []answer.ArgRead
	want string
}{
	{"x86_64 local -8(%bp), user", arch.X86_64, Options{User: true},
		[]answer.ArgRead{{Name: "local", Type: s64, Loc: reg("bp", tracefs.Load{Offset: -8})}},
		zeroMask + "LdXMemDW dst: r3 src: r6 off: 32 imm: 0\nAddImm dst: r3 imm: -8\n" +
			"MovReg dst: r1 src: r7\nAddImm dst: r1 imm: 8\nMovImm dst: r2 imm: 8\nCall FnProbeReadUser\n" + faulted(0)},
	{"x86_64 int in %cx: sign-extended in the register", arch.X86_64, Options{User: true},
		[]answer.ArgRead{{Name: "scale", Type: s32, Loc: reg("cx")}},
		zeroMask + "LdXMemDW dst: r3 src: r6 off: 88 imm: 0\nLShImm dst: r3 imm: 32\nArShImm dst: r3 imm: 32\nStXMemDW dst: r7 src: r3 off: 8 imm: 0\n"},
	{"arm64 p->name:string from x19: one pointer load, then the string", arch.ARM64, Options{User: true, MaxString: 16},
		[]answer.ArgRead{{Name: "name", Type: str, Loc: reg("x19", tracefs.Load{Offset: 8}, tracefs.Load{})}},
		zeroMask + "LdXMemDW dst: r3 src: r6 off: 152 imm: 0\nAddImm dst: r3 imm: 8\n" +
			"MovReg dst: r1 src: r7\nAddImm dst: r1 imm: 8\nMovImm dst: r2 imm: 8\nCall FnProbeReadUser\n" + faulted(0) +
			"LdXMemDW dst: r3 src: r7 off: 8 imm: 0\n" +
			"MovReg dst: r1 src: r7\nAddImm dst: r1 imm: 8\nMovImm dst: r2 imm: 16\nCall FnProbeReadUserStr\n" + faulted(0)},
	{"arm64 second argument: its bit, its field after a string's", arch.ARM64, Options{User: true, MaxString: 12},
		[]answer.ArgRead{{Name: "s", Type: str, Loc: reg("x0")}, {Name: "n", Type: x64, Loc: reg("x2")}},
		zeroMask + "LdXMemDW dst: r3 src: r6 off: 0 imm: 0\n" +
			"MovReg dst: r1 src: r7\nAddImm dst: r1 imm: 8\nMovImm dst: r2 imm: 12\nCall FnProbeReadUserStr\n" + faulted(0) +
			"LdXMemDW dst: r3 src: r6 off: 16 imm: 0\nStXMemDW dst: r7 src: r3 off: 24 imm: 0\n"},
	{"x86_64 kernel probe: memory as the kprobe reads it, then user memory where the plan says", arch.X86_64, Options{},
		[]answer.ArgRead{{Name: "u", Type: u16, Loc: reg("di", tracefs.Load{Offset: 16}, tracefs.Load{Offset: 2, User: true})}},
		zeroMask + "LdXMemDW dst: r3 src: r6 off: 112 imm: 0\nAddImm dst: r3 imm: 16\n" +
			kread(8, 8, "FnProbeReadKernel", 0, 0) +
			"LdXMemDW dst: r3 src: r7 off: 8 imm: 0\nAddImm dst: r3 imm: 2\n" +
			"MovReg dst: r1 src: r7\nAddImm dst: r1 imm: 8\nMovImm dst: r2 imm: 2\nCall FnProbeReadUser\n" + faulted(0) +
			"LdXMemDW dst: r1 src: r7 off: 8 imm: 0\nLShImm dst: r1 imm: 48\nRShImm dst: r1 imm: 48\nStXMemDW dst: r7 src: r1 off: 8 imm: 0\n"},
	{"x86_64 bitfield b3@5/32: the container, then its bits", arch.X86_64, Options{},
		[]answer.ArgRead{{Name: "f", Type: b3at5, Loc: reg("si", tracefs.Load{Offset: 4})}},
		zeroMask + "LdXMemDW dst: r3 src: r6 off: 104 imm: 0\nAddImm dst: r3 imm: 4\n" +
			kread(8, 4, "FnProbeReadKernel", 0, 0) +
			"LdXMemDW dst: r1 src: r7 off: 8 imm: 0\nLShImm dst: r1 imm: 56\nRShImm dst: r1 imm: 61\nStXMemDW dst: r7 src: r1 off: 8 imm: 0\n"},
	{"$comm, a constant and a kernel global", arch.X86_64, Options{Offset: 16},
		[]answer.ArgRead{
			{Name: "comm", Type: str, Loc: answer.Location{Kind: answer.LocComm}},
			{Name: "k", Loc: answer.Location{Kind: answer.LocConst, Const: -5}},
			{Name: "j", Type: x64, Loc: answer.Location{Kind: answer.LocAddress, Symbol: "jiffies", Address: 0xffffffff82a05000, Loads: []tracefs.Load{{}}}}},
		"MovImm dst: r1 imm: 0\nStXMemDW dst: r7 src: r1 off: 16 imm: 0\n" +
			"MovReg dst: r1 src: r7\nAddImm dst: r1 imm: 24\nMovImm dst: r2 imm: 16\nCall FnGetCurrentComm\n" +
			strings.ReplaceAll(faulted(0), "off: 0", "off: 16") +
			"LdImmDW dst: r3 imm: -5\nStXMemDW dst: r7 src: r3 off: 40 imm: 0\n" +
			"LdImmDW dst: r3 imm: -2103422976\n" + kread(48, 8, "FnProbeReadKernel", 2, 16)},
	{"a kernel global under KASLR: its link-time address plus the kernel's offset", arch.X86_64, Options{KernelOffset: 0x1e000000},
		[]answer.ArgRead{{Name: "j", Type: x64, Loc: answer.Location{Kind: answer.LocAddress, Symbol: "jiffies", Address: 0xffffffff82a05000, Loads: []tracefs.Load{{}}}}},
		zeroMask + "LdImmDW dst: r3 imm: -1600106496\n" + kread(8, 8, "FnProbeReadKernel", 0, 0)},
	{"arm64 kernel string (a path a syscall passes): user memory below TASK_SIZE, kernel above", arch.ARM64, Options{MaxString: 16},
		[]answer.ArgRead{{Name: "filename", Type: str, Loc: reg("x1")}},
		zeroMask + "LdXMemDW dst: r3 src: r6 off: 8 imm: 0\n" + kread(8, 16, "FnProbeReadKernelStr", 0, 0)},
	{"x86_64 a PIE's global @+0x4040 at a probe at file offset 0x117a: ip-0x117a+0x4040", arch.X86_64, Options{User: true, FileOffset: 0x117a},
		[]answer.ArgRead{{Name: "calls", Type: s64, Loc: answer.Location{Kind: answer.LocAddress, FileOffset: true, Address: 0x4040, Loads: []tracefs.Load{{}}}}},
		zeroMask + "LdXMemDW dst: r3 src: r6 off: 128 imm: 0\nLdImmDW dst: r1 imm: 11974\nAddReg dst: r3 src: r1\n" +
			"MovReg dst: r1 src: r7\nAddImm dst: r1 imm: 8\nMovImm dst: r2 imm: 8\nCall FnProbeReadUser\n" + faulted(0)},
	{"arm64 the same from pc", arch.ARM64, Options{User: true, FileOffset: 0x117a},
		[]answer.ArgRead{{Name: "calls", Type: s64, Loc: answer.Location{Kind: answer.LocAddress, FileOffset: true, Address: 0x4040, Loads: []tracefs.Load{{}}}}},
		zeroMask + "LdXMemDW dst: r3 src: r6 off: 256 imm: 0\nLdImmDW dst: r1 imm: 11974\nAddReg dst: r3 src: r1\n" +
			"MovReg dst: r1 src: r7\nAddImm dst: r1 imm: 8\nMovImm dst: r2 imm: 8\nCall FnProbeReadUser\n" + faulted(0)},
	{"a string constant, cut to MaxString with its NUL", arch.X86_64, Options{MaxString: 10},
		[]answer.ArgRead{{Name: "s", Type: str, Loc: answer.Location{Kind: answer.LocConst, Text: "abcdefghijkl"}}},
		zeroMask + "StMemW dst: r7 src: r0 off: 8 imm: 1684234849\nStMemW dst: r7 src: r0 off: 12 imm: 1751606885\n" +
			"StMemB dst: r7 src: r0 off: 16 imm: 105\nStMemB dst: r7 src: r0 off: 17 imm: 0\n"},
	{"an array s16[3]: its elements' bytes in one read", arch.ARM64, Options{},
		[]answer.ArgRead{{Name: "a", Type: typ(tracefs.FetchType{Size: 2, Signed: true, Array: 3}), Loc: reg("x3", tracefs.Load{Offset: 16})}},
		zeroMask + "LdXMemDW dst: r3 src: r6 off: 24 imm: 0\nAddImm dst: r3 imm: 16\n" + kread(8, 6, "FnProbeReadKernel", 0, 0)},
	{"SkipUnreadable: a zero field", arch.ARM64, Options{SkipUnreadable: true},
		[]answer.ArgRead{{Name: "gone", Type: s32, Loc: answer.Location{Kind: answer.LocUnreadable, Reason: "optimized out"}}},
		zeroMask + "MovImm dst: r1 imm: 0\nStXMemDW dst: r7 src: r1 off: 8 imm: 0\n"},
}

func TestGenerate(t *testing.T) {
	for _, c := range generateCases {
		insns, _, err := Generate(c.a, c.args, c.o)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := listing(insns); got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

func TestGenerateLayout(t *testing.T) {
	args := []answer.ArgRead{
		{Name: "name", Type: str, Loc: reg("di")},
		{Name: "comm", Loc: answer.Location{Kind: answer.LocComm}},
		{Name: "gone", Type: s32, Loc: answer.Location{Kind: answer.LocUnreadable, Reason: "optimized out"}},
		{Name: "n", Type: s32, Loc: reg("si")},
	}
	_, l, err := Generate(arch.X86_64, args, Options{MaxString: 13, Offset: 16, SkipUnreadable: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range l.Fields {
		got = append(got, fmt.Sprintf("%s@%d+%d str=%v %q", f.Name, f.Offset, f.Size, f.String, f.Unreadable))
	}
	want := `name@24+13 str=true "" comm@40+16 str=true "" gone@56+8 str=false "optimized out" n@64+8 str=false ""`
	if l.Mask != 16 || l.Size != 72 || strings.Join(got, " ") != want {
		t.Errorf("mask %d size %d fields\n%s\nwant mask 16 size 72\n%s", l.Mask, l.Size, strings.Join(got, " "), want)
	}
}

func TestGenerateErrors(t *testing.T) {
	many := make([]answer.ArgRead, 65)
	for i := range many {
		many[i] = answer.ArgRead{Name: fmt.Sprint("a", i), Type: s64, Loc: reg("di")}
	}
	for _, c := range []struct {
		name string
		args []answer.ArgRead
		o    Options
		want error
	}{
		{"not readable here", []answer.ArgRead{{Name: "x", Type: s32, Loc: answer.Location{Kind: answer.LocUnreadable, Reason: "optimized out"}}}, Options{}, ErrUnreadable},
		{"read by the kernel's BTF", []answer.ArgRead{{Name: "f_mode", Type: s32, Loc: kernel}}, Options{}, ErrKernelOnly},
		{"an array not through a load", []answer.ArgRead{{Name: "a", Type: typ(tracefs.FetchType{Size: 4, Array: 3}), Loc: reg("di")}}, Options{SkipUnreadable: true}, ErrUnsupported},
		{"an array of strings", []answer.ArgRead{{Name: "a", Type: typ(tracefs.FetchType{String: true, Array: 3}), Loc: reg("di", tracefs.Load{})}}, Options{}, ErrUnsupported},
		{"a global of a PIE without the probe's file offset", []answer.ArgRead{{Name: "g", Type: s32, Loc: answer.Location{Kind: answer.LocAddress, FileOffset: true, Address: 0x4010, Loads: []tracefs.Load{{}}}}}, Options{}, ErrUnsupported},
		{"a module's global", []answer.ArgRead{{Name: "g", Type: s32, Loc: answer.Location{Kind: answer.LocAddress, Symbol: "nft_counters", Address: 0x4010, Loads: []tracefs.Load{{}}}}}, Options{Module: true}, ErrUnsupported},
		{"a register outside pt_regs", []answer.ArgRead{{Name: "r", Type: s32, Loc: reg("xmm0")}}, Options{}, ErrUnsupported},
		{"an offset beyond 32 bits", []answer.ArgRead{{Name: "o", Type: s32, Loc: reg("di", tracefs.Load{Offset: 1 << 40})}}, Options{}, ErrUnsupported},
		{"65 arguments", many, Options{}, ErrTooMany},
		// Issue 34: a record past 32 KB wrapped the 16-bit store offset,
		// and the verifier refused the program with "invalid access to
		// memory"; a bitfield past its container loaded garbage.
		{"a string of 40,000 bytes", []answer.ArgRead{{Name: "s", Type: str, Loc: reg("di")}}, Options{MaxString: 40000}, ErrTooLarge},
		{"64 strings of 600 bytes", longStrings(64, "di"), Options{MaxString: 600}, ErrTooLarge},
		{"an array of 5,000 longs", []answer.ArgRead{{Name: "a", Type: typ(tracefs.FetchType{Size: 8, Array: 5000}), Loc: reg("di", tracefs.Load{})}}, Options{}, ErrTooLarge},
		{"a buffer offset past 32 KB", []answer.ArgRead{{Name: "x", Type: s32, Loc: reg("di")}}, Options{Offset: 1 << 16}, ErrTooLarge},
		{"a buffer offset not 8-aligned", []answer.ArgRead{{Name: "x", Type: s32, Loc: reg("di")}}, Options{Offset: 12}, ErrTooLarge},
		{"a bitfield past 64 bits", []answer.ArgRead{{Name: "b", Type: typ(tracefs.FetchType{Size: 8, BitWidth: 8, BitOffset: 60}), Loc: reg("di", tracefs.Load{})}}, Options{}, ErrBitfield},
		{"a bitfield past its 32-bit container", []answer.ArgRead{{Name: "b", Type: typ(tracefs.FetchType{Size: 4, BitWidth: 3, BitOffset: 30}), Loc: reg("di", tracefs.Load{})}}, Options{}, ErrBitfield},
		{"a bitfield of a register past 64 bits", []answer.ArgRead{{Name: "b", Type: typ(tracefs.FetchType{Size: 8, BitWidth: 70}), Loc: reg("di")}}, Options{}, ErrBitfield},
		{"a bitfield at a negative offset", []answer.ArgRead{{Name: "b", Type: typ(tracefs.FetchType{Size: 4, BitWidth: 3, BitOffset: -2}), Loc: reg("di", tracefs.Load{})}}, Options{}, ErrBitfield},
	} {
		_, _, err := Generate(arch.X86_64, c.args, c.o)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
			continue
		}
		var ae *ArgError
		if c.want != ErrTooMany && c.want != ErrTooLarge && (!errors.As(err, &ae) || ae.Name != c.args[0].Name || ae.Index != 0) {
			t.Errorf("%s: %#v, want an *ArgError naming argument 0", c.name, err)
		}
	}
}

// longStrings is n string arguments read from register r.
func longStrings(n int, r string) []answer.ArgRead {
	args := make([]answer.ArgRead, n)
	for i := range args {
		args[i] = answer.ArgRead{Name: fmt.Sprint("s", i), Type: str, Loc: reg(r, tracefs.Load{})}
	}
	return args
}

// TestRecordSizeBound: the largest record Generate makes, MaxRecord
// bytes, has every store offset in 16 bits; a byte more is refused, and
// Program (whose header comes first) refuses it by the same bound.
func TestRecordSizeBound(t *testing.T) {
	maxString := func(n int) Options { return Options{MaxString: n} }
	one := []answer.ArgRead{{Name: "s", Type: str, Loc: reg("di")}}
	insns, l, err := Generate(arch.X86_64, one, maxString(MaxRecord-8))
	if err != nil || l.Size != MaxRecord {
		t.Fatalf("a record of %d bytes: size %d, %v", MaxRecord, l.Size, err)
	}
	for _, ins := range insns {
		if ins.Offset < 0 {
			t.Errorf("%v: a negative store offset", ins)
		}
	}
	_, _, err = Generate(arch.X86_64, one, maxString(MaxRecord-7))
	var re *RecordSizeError
	if !errors.As(err, &re) || re.Size != MaxRecord+8 || !strings.Contains(err.Error(), "at most 32768") {
		t.Errorf("a record of %d bytes: %v", MaxRecord+8, err)
	}
	if _, _, err := Program(arch.X86_64, one, maxString(MaxRecord-8)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Program with a record of %d bytes after its header: %v", MaxRecord, err)
	}
}
