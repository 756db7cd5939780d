package probegen

import (
	"debug/elf"
	"errors"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
)

func TestFetchArg(t *testing.T) {
	sym := func(a uint64) (string, uint64, bool) {
		switch {
		case a >= 0x1000 && a < 0x1008:
			return "jiffies", a - 0x1000, true
		case a >= 0x2000 && a < 0x3000:
			return "init_task", a - 0x2000, true
		}
		return "", 0, false
	}
	x86, arm := elf.EM_X86_64, elf.EM_AARCH64
	cases := []struct {
		m    elf.Machine
		loc  dwarfres.Loc
		want string
	}{
		{x86, dwarfres.Loc{Kind: dwarfres.LocReg, Reg: 5}, "%di"},
		{arm, dwarfres.Loc{Kind: dwarfres.LocReg, Reg: 1}, "%x1"},
		{x86, dwarfres.Loc{Kind: dwarfres.LocMem, Reg: 6, Derefs: []int64{-20}}, "-20(%bp)"},
		{x86, dwarfres.Loc{Kind: dwarfres.LocMem, Reg: 5, Derefs: []int64{8, 16}}, "+16(+8(%di))"},
		{arm, dwarfres.Loc{Kind: dwarfres.LocMem, Reg: 31, Derefs: []int64{24}}, "+24(%sp)"},
		{x86, dwarfres.Loc{Kind: dwarfres.LocMem, Addr: 0x1000, HasAddr: true, Derefs: []int64{0}}, "@jiffies"},
		{x86, dwarfres.Loc{Kind: dwarfres.LocMem, Addr: 0x2010, HasAddr: true, Derefs: []int64{0}}, "@init_task+16"},
		{x86, dwarfres.Loc{Kind: dwarfres.LocMem, Addr: 0x2010, HasAddr: true, Derefs: []int64{0, 8}}, "+8(@init_task+16)"},
		{x86, dwarfres.Loc{Kind: dwarfres.LocConst, Const: -3}, `\-3`},
		{x86, dwarfres.Loc{Kind: dwarfres.LocAddrValue, Addr: 4096}, `\4096`},
	}
	for _, c := range cases {
		got, err := FetchArg(c.m, c.loc, sym)
		if err != nil || got != c.want {
			t.Errorf("FetchArg(%v, %+v) = %q, %v; want %q", c.m, c.loc, got, err, c.want)
		}
	}
	for _, bad := range []dwarfres.Loc{
		{Kind: dwarfres.LocFrameBase, Offset: 8},
		{Kind: dwarfres.LocCFA},
		{Kind: dwarfres.LocEntryReg, Reg: 5},
		{Kind: dwarfres.LocReg, Reg: 40},
		{Kind: dwarfres.LocMem, Addr: 0x9999, HasAddr: true, Derefs: []int64{0}},
	} {
		if _, err := FetchArg(x86, bad, sym); !errors.Is(err, ErrNotSupported) {
			t.Errorf("FetchArg(%+v): want ErrNotSupported, got %v", bad, err)
		}
	}
}
