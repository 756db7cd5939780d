package dwarfres

import (
	"fmt"
	"testing"
)

// flowInsn is one instruction of a hand-made flow: where it is, what can
// run after it, and the block it enters when it is a static branch.
type flowInsn struct {
	at     uint64
	to     []uint64
	static uint64
}

// testFlow builds the codeFlow of insns, the first being the entry.
func testFlow(insns []flowInsn) *codeFlow {
	fl := newCodeFlow()
	for _, in := range insns {
		fl.insn[in.at] = true
		for _, to := range in.to {
			fl.edge(in.at, to)
		}
		if in.static != 0 {
			fl.static[in.at] = in.static
		}
	}
	return fl
}

// TestOwnRun: a later row of a line is a point of its own only when
// control reaches it without passing one of the line's probes in the
// same pass (ownRun).
func TestOwnRun(t *testing.T) {
	for _, c := range []struct {
		what   string
		insns  []flowInsn
		points []uint64
		b      uint64
		want   bool
	}{
		{"straight line after the probe (another line's code between)",
			[]flowInsn{{at: 1, to: []uint64{2}}, {at: 2, to: []uint64{3}}, {at: 3, to: []uint64{4}}, {at: 4}},
			[]uint64{1}, 4, false},
		{"a branch around the probe",
			[]flowInsn{{at: 1, to: []uint64{2, 3}}, {at: 2, to: []uint64{3}}, {at: 3}},
			[]uint64{2}, 3, true},
		{"both arms through a probe",
			[]flowInsn{{at: 1, to: []uint64{2}}, {at: 2, to: []uint64{3, 4}}, {at: 3, to: []uint64{5}}, {at: 4, to: []uint64{5}}, {at: 5}},
			[]uint64{2}, 5, false},
		{"in a loop whose probe is before it: each time round",
			[]flowInsn{{at: 1, to: []uint64{2}}, {at: 2, to: []uint64{3}}, {at: 3, to: []uint64{4}}, {at: 4, to: []uint64{2, 5}}, {at: 5}},
			[]uint64{1}, 3, true},
		{"a loop of other lines between the probe and the row",
			[]flowInsn{{at: 1, to: []uint64{2}}, {at: 2, to: []uint64{3}}, {at: 3, to: []uint64{2, 4}}, {at: 4}},
			[]uint64{1}, 4, false},
		// for (init; cond; incr): init at 1 jumps to cond at 4; the
		// body (2) and incr (3) fall into cond, which jumps back.
		{"for: incr, after the body, is a run of its own",
			[]flowInsn{{at: 1, to: []uint64{4}}, {at: 2, to: []uint64{3}}, {at: 3, to: []uint64{4}}, {at: 4, to: []uint64{2, 5}}, {at: 5}},
			[]uint64{1}, 3, true},
		{"for: cond, after init's or incr's probe, is not",
			[]flowInsn{{at: 1, to: []uint64{4}}, {at: 2, to: []uint64{3}}, {at: 3, to: []uint64{4}}, {at: 4, to: []uint64{2, 5}}, {at: 5}},
			[]uint64{1, 3}, 4, false},
		// A static branch at 1 (probed after it, at 2) whose block
		// (10, 11) comes back to 2: a row in the block is the run
		// that goes on at the probe.
		{"a static branch's block that comes back to the probe",
			[]flowInsn{{at: 1, to: []uint64{2, 10}, static: 10}, {at: 2, to: []uint64{3}}, {at: 3}, {at: 10, to: []uint64{11}}, {at: 11, to: []uint64{2}}},
			[]uint64{2}, 11, false},
		{"a static branch's block that does not come back",
			[]flowInsn{{at: 1, to: []uint64{2, 10}, static: 10}, {at: 2, to: []uint64{3}}, {at: 3}, {at: 10, to: []uint64{11}}, {at: 11}},
			[]uint64{2}, 11, true},
		{"a block that comes back on one path only",
			[]flowInsn{{at: 1, to: []uint64{2, 10}, static: 10}, {at: 2, to: []uint64{3}}, {at: 3}, {at: 10, to: []uint64{11, 12}}, {at: 11, to: []uint64{2}}, {at: 12}},
			[]uint64{2}, 11, true},
		{"code nothing branches to (an indirect branch's target)",
			[]flowInsn{{at: 1, to: []uint64{2}}, {at: 2}, {at: 3, to: []uint64{4}}, {at: 4}},
			[]uint64{1}, 4, true},
		{"a row in a loop that holds the probe",
			[]flowInsn{{at: 1, to: []uint64{2}}, {at: 2, to: []uint64{3}}, {at: 3, to: []uint64{4}}, {at: 4, to: []uint64{2, 5}}, {at: 5}},
			[]uint64{2}, 3, false},
		// In a loop, if (c) skips the probe: b runs again without it.
		{"a loop's path around the probe",
			[]flowInsn{{at: 1, to: []uint64{2}}, {at: 2, to: []uint64{3, 4}}, {at: 3, to: []uint64{4}}, {at: 4, to: []uint64{2, 5}}, {at: 5}},
			[]uint64{3}, 4, true},
		{"not an instruction start",
			[]flowInsn{{at: 1, to: []uint64{3}}, {at: 3}},
			[]uint64{1}, 2, true},
	} {
		pts := map[uint64]bool{}
		for _, p := range c.points {
			pts[p] = true
		}
		if got := testFlow(c.insns).ownRun(pts, c.b); got != c.want {
			t.Errorf("%s: ownRun(%v, %d) = %v, want %v", c.what, c.points, c.b, got, c.want)
		}
	}
}

// TestLeaving: where a static branch's block leaves every way back to the
// probe after the branch (blockRuns' points).
func TestLeaving(t *testing.T) {
	for _, c := range []struct {
		what  string
		insns []flowInsn
		want  []uint64
	}{
		// The NOP at 1, probed at 2; the block at 10.
		{"a block that comes back", []flowInsn{{at: 1, to: []uint64{2, 10}, static: 10}, {at: 2, to: []uint64{3}}, {at: 3}, {at: 10, to: []uint64{11}}, {at: 11, to: []uint64{2}}}, nil},
		{"a block that does not", []flowInsn{{at: 1, to: []uint64{2, 10}, static: 10}, {at: 2, to: []uint64{3}}, {at: 3}, {at: 10, to: []uint64{11}}, {at: 11, to: []uint64{3}}}, []uint64{10}},
		// 6.1 arm64 kernel_clone:51: back to the probe when the CPU
		// is offline (11), else the tracepoint's call (12) and on.
		{"back on one path", []flowInsn{{at: 1, to: []uint64{2, 10}, static: 10}, {at: 2, to: []uint64{3}}, {at: 3}, {at: 10, to: []uint64{11, 12}}, {at: 11, to: []uint64{2}}, {at: 12, to: []uint64{3}}}, []uint64{12}},
	} {
		fl := testFlow(c.insns)
		got := fl.leaving(10, 2, fl.reaching(2))
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: leaving = %v, want %v", c.what, got, c.want)
		}
	}
}
