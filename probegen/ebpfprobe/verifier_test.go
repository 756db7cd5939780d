package ebpfprobe

import (
	"errors"
	"os"
	"testing"

	"github.com/cilium/ebpf"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// TestVerifierAccepts loads programs reading every kind of plan into the
// running kernel, whose verifier checks each helper call's buffer and the
// context's offsets: a user point's program and a kernel point's. It
// needs root (the BPF syscall); it skips without, failing under make test.
func TestVerifierAccepts(t *testing.T) {
	if os.Geteuid() != 0 {
		dwarftest.Skip(t, "BPF verifier test: needs root for the BPF syscall")
	}
	a, ok := arch.Host()
	if !ok {
		dwarftest.Skip(t, "BPF verifier test: no machine model of this host")
	}
	r0, r1, r2 := a.IntArgRegs[0], a.IntArgRegs[1], a.IntArgRegs[2]
	args := []answer.ArgRead{
		{Name: "name", Type: str, Loc: reg(r0, tracefs.Load{Offset: 8}, tracefs.Load{})},
		{Name: "local", Type: s64, Loc: reg(a.StackPointer, tracefs.Load{Offset: 16})},
		{Name: "scale", Type: s32, Loc: reg(r1)},
		{Name: "deep", Type: u16, Loc: reg(r2, tracefs.Load{Offset: 8}, tracefs.Load{Offset: -16}, tracefs.Load{Offset: 2, User: true})},
		{Name: "bits", Type: b3at5, Loc: reg(r0, tracefs.Load{Offset: 4})},
		{Name: "comm", Loc: answer.Location{Kind: answer.LocComm}},
		{Name: "k", Loc: answer.Location{Kind: answer.LocConst, Const: 7}},
		{Name: "g", Type: x64, Loc: answer.Location{Kind: answer.LocAddress, Address: 0x404040, Loads: []tracefs.Load{{}}}},
		{Name: "gone", Type: s32, Loc: answer.Location{Kind: answer.LocUnreadable, Reason: "optimized out"}},
		{Name: "text", Type: str, Loc: answer.Location{Kind: answer.LocConst, Text: "hello"}},
		{Name: "arr", Type: typ(tracefs.FetchType{Size: 2, Signed: true, Array: 3}), Loc: reg(r0, tracefs.Load{Offset: 16})},
	}
	pie := answer.ArgRead{Name: "calls", Type: s64, Loc: answer.Location{Kind: answer.LocAddress, FileOffset: true, Address: 0x4040, Loads: []tracefs.Load{{}}}}
	probes := []answer.Probe{
		{Kind: answer.ProbeLine, User: true, Attach: answer.Attach{FileOffset: 0x117a}, Args: append(args[:len(args):len(args)], pie)},
		{Kind: answer.ProbeLine, Args: args},
	}
	cs, layouts, err := CollectionSpec(a, probes, ProgramOptions{MaxString: 32, SkipUnreadable: true})
	if err != nil {
		t.Fatal(err)
	}
	coll, err := ebpf.NewCollection(cs)
	var verr *ebpf.VerifierError
	switch {
	case errors.As(err, &verr):
		t.Fatalf("verifier: %+v", verr)
	case errors.Is(err, ebpf.ErrNotSupported) || errors.Is(err, os.ErrPermission):
		dwarftest.Skip(t, "BPF verifier test: loading: %v", err)
	case err != nil:
		t.Fatal(err)
	}
	defer coll.Close()
	t.Logf("%d programs of %d instructions, records of %d bytes", len(coll.Programs), len(cs.Programs["point0"].Instructions), layouts[0].Size)
}

// TestVerifierRecordBound: a program whose record is MaxRecord bytes,
// the largest Program makes, is accepted by the running kernel's
// verifier; the bound is where the 16-bit store offsets end, not before.
// A byte more is ErrTooLarge from Program, not the verifier's "invalid
// access to memory" (issue 34).
func TestVerifierRecordBound(t *testing.T) {
	if os.Geteuid() != 0 {
		dwarftest.Skip(t, "BPF verifier test: needs root for the BPF syscall")
	}
	a, ok := arch.Host()
	if !ok {
		dwarftest.Skip(t, "BPF verifier test: no machine model of this host")
	}
	probes := []answer.Probe{{Kind: answer.ProbeLine, User: true, Attach: answer.Attach{FileOffset: 0x117a},
		Args: []answer.ArgRead{{Name: "s", Type: str, Loc: reg(a.IntArgRegs[0])}}}}
	room := MaxRecord - HeaderSize - 8 // the fault mask
	if _, _, err := CollectionSpec(a, probes, ProgramOptions{MaxString: room + 1}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a record of %d bytes: %v, want ErrTooLarge", MaxRecord+8, err)
	}
	cs, layouts, err := CollectionSpec(a, probes, ProgramOptions{MaxString: room})
	if err != nil {
		t.Fatalf("a record of %d bytes: %v", MaxRecord, err)
	}
	if layouts[0].Size != MaxRecord {
		t.Fatalf("record of %d bytes, want %d", layouts[0].Size, MaxRecord)
	}
	coll, err := ebpf.NewCollection(cs)
	var verr *ebpf.VerifierError
	switch {
	case errors.As(err, &verr):
		t.Fatalf("verifier: %+v", verr)
	case errors.Is(err, ebpf.ErrNotSupported) || errors.Is(err, os.ErrPermission):
		dwarftest.Skip(t, "BPF verifier test: loading: %v", err)
	case err != nil:
		t.Fatal(err)
	}
	coll.Close()
}
