package ebpfprobe

import (
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// TestShareIdentical: points whose programs are the same instructions
// share one; a different register, constant or address does not.
func TestShareIdentical(t *testing.T) {
	addr := func(a uint64) answer.Location {
		return answer.Location{Kind: answer.LocAddress, Address: a, Loads: []tracefs.Load{{}}}
	}
	pt := func(args ...answer.ArgRead) answer.Probe {
		return answer.Probe{Kind: answer.ProbeEntry, Attach: answer.Attach{Symbol: "f"}, Args: args}
	}
	probes := []answer.Probe{
		pt(answer.ArgRead{Name: "x", Type: s64, Loc: reg("di")}),
		pt(answer.ArgRead{Name: "x", Type: s64, Loc: reg("di")}),
		pt(answer.ArgRead{Name: "x", Type: s64, Loc: reg("si")}),
		pt(answer.ArgRead{Name: "x", Type: s64, Loc: addr(0xffffffff82000000)}),
		pt(answer.ArgRead{Name: "x", Type: s64, Loc: addr(0xffffffff82000008)}),
		pt(answer.ArgRead{Name: "x", Type: s64, Loc: addr(0xffffffff82000000)}),
		pt(),
		pt(),
	}
	cs, _, err := CollectionSpec(arch.X86_64, probes, ProgramOptions{KernelOffset: 1 << 21})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(shareIdentical(cs, len(probes)), " ")
	want := "point0 point0 point2 point3 point4 point3 point6 point6"
	if got != want || len(cs.Programs) != 5 {
		t.Errorf("shared: %s (%d programs), want %s (5)", got, len(cs.Programs), want)
	}
}
