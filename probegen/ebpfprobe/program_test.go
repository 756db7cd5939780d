package ebpfprobe

import (
	"errors"
	"strings"
	"testing"

	"github.com/cilium/ebpf"

	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

func TestCollectionSpec(t *testing.T) {
	ok := []answer.ArgRead{{Name: "n", Type: s32, Loc: reg("x1")}}
	gone := []answer.ArgRead{{Name: "n", Type: s32, Loc: answer.Location{Kind: answer.LocUnreadable, Reason: "optimized out"}}}
	probes := []answer.Probe{{Kind: answer.ProbeLine, User: true, Args: ok}, {Kind: answer.ProbeLine, User: true, Args: gone}}

	cs, layouts, err := CollectionSpec(arch.ARM64, probes, ProgramOptions{SkipUnreadable: true})
	if err != nil {
		t.Fatal(err)
	}
	m := cs.Maps[RingBufMap]
	if m == nil || m.Type != ebpf.RingBuf || m.MaxEntries != DefaultRingSize || len(cs.Programs) != 2 {
		t.Fatalf("maps %v, %d programs", cs.Maps, len(cs.Programs))
	}
	for _, name := range []string{"point0", "point1"} {
		p := cs.Programs[name]
		if p == nil || p.Type != ebpf.Kprobe || p.License != "GPL" {
			t.Errorf("%s: %+v", name, p)
			continue
		}
		// The record's reservation: the header, the mask, one field.
		if size := p.Instructions[2].Constant; size != HeaderSize+16 {
			t.Errorf("%s reserves %d bytes, want %d", name, size, HeaderSize+16)
		}
	}
	if len(layouts) != 2 || layouts[0].Fields[0].Unreadable != "" || layouts[1].Fields[0].Unreadable != "optimized out" || layouts[1].Mask != HeaderSize {
		t.Errorf("layouts %+v", layouts)
	}

	_, _, err = CollectionSpec(arch.ARM64, probes, ProgramOptions{})
	if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "point 1") {
		t.Errorf("an unreadable argument: %v, want ErrUnreadable at point 1", err)
	}
}
