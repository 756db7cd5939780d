package answer

import (
	"reflect"
	"testing"

	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

func TestLocationOf(t *testing.T) {
	syms := func(name string) (uint64, bool) { return 0x1000, name == "jiffies" }
	tests := []struct {
		a    *arch.Arch
		in   string
		want Location
		str  string
	}{
		{arch.X86_64, "%di", Location{Kind: LocRegister, Register: "di", DWARFRegister: 5}, "%di"},
		{arch.X86_64, "+0(+8(%di))", Location{Kind: LocRegister, Register: "di", DWARFRegister: 5, Loads: []tracefs.Load{{Offset: 8}, {}}}, "*(*(%di+8))"},
		{arch.X86_64, "-24(%bp)", Location{Kind: LocRegister, Register: "bp", DWARFRegister: 6, Loads: []tracefs.Load{{Offset: -24}}}, "*(%bp-24)"},
		{arch.X86_64, "$stack2", Location{Kind: LocRegister, Register: "sp", DWARFRegister: 7, Loads: []tracefs.Load{{Offset: 16}}}, "*(%sp+16)"},
		{arch.X86_64, "$retval", Location{Kind: LocRegister, Register: "ax", DWARFRegister: 0}, "%ax"},
		{arch.X86_64, "$arg2", Location{Kind: LocRegister, Register: "si", DWARFRegister: 4}, "%si"},
		{arch.X86_64, "$arg7", Location{Kind: LocRegister, Register: "sp", DWARFRegister: 7, Loads: []tracefs.Load{{Offset: 8}}}, "*(%sp+8)"},
		{arch.ARM64, "$arg9", Location{Kind: LocRegister, Register: "sp", DWARFRegister: 31, Loads: []tracefs.Load{{Offset: 0}}}, "*(%sp)"},
		{arch.ARM64, "+u8(%x19)", Location{Kind: LocRegister, Register: "x19", DWARFRegister: 19, Loads: []tracefs.Load{{Offset: 8, User: true}}}, "*u(%x19+8)"},
		{arch.ARM64, "$retval", Location{Kind: LocRegister, Register: "x0", DWARFRegister: 0}, "%x0"},
		{arch.X86_64, "@jiffies+8", Location{Kind: LocAddress, Symbol: "jiffies", SymbolOffset: 8, Address: 0x1008, DWARFRegister: -1, Loads: []tracefs.Load{{}}}, "*(&jiffies)"},
		{arch.X86_64, "@+4096", Location{Kind: LocAddress, Address: 4096, FileOffset: true, DWARFRegister: -1, Loads: []tracefs.Load{{}}}, "*(@+0x1000)"},
		{arch.X86_64, `\0xdeade12d`, Location{Kind: LocConst, Const: 0xdeade12d, DWARFRegister: -1}, "3735937325"},
		{arch.X86_64, "$comm", Location{Kind: LocComm, DWARFRegister: -1}, "$comm"},
		{arch.X86_64, "file->f_mode", Location{Kind: LocKernel, Text: "file->f_mode", DWARFRegister: -1}, "file->f_mode"},
		{arch.X86_64, "@nosuch", Location{Kind: LocUnreadable, DWARFRegister: -1, Reason: "no address for symbol nosuch"}, "unreadable: no address for symbol nosuch"},
	}
	for _, tt := range tests {
		got := locationOf(tt.a, tracefs.ReadFetch(tt.in), syms)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: locationOf(%q) = %+v, want %+v", tt.a.Name, tt.in, got, tt.want)
		}
		if s := got.String(); s != tt.str {
			t.Errorf("%s: locationOf(%q).String() = %q, want %q", tt.a.Name, tt.in, s, tt.str)
		}
	}
}

func TestArgReadString(t *testing.T) {
	a := NewArgRead(arch.X86_64, tracefs.Arg{Name: "name", Fetch: "+0(+0(-24(%bp)))", Type: "string", Read: tracefs.ReadFetch("+0(+0(-24(%bp)))")}, CType{Name: "char*", Pointer: true}, "", nil, true)
	if got, want := a.String(), "name (char*) = string at *(*(%bp-24))"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if !a.Type.Pointer || !a.Type.String || a.Type.Fetch != "string" {
		t.Errorf("Type = %+v", a.Type)
	}
	m := NewArgRead(arch.X86_64, tracefs.Arg{Name: "n", Fetch: `\0xdeade12d`, Type: "s32"}, CType{Name: "int"}, "not in scope at this point", nil, true)
	if m.Loc.Kind != LocUnreadable || m.Type.Size != 4 || !m.Type.Signed {
		t.Errorf("missing argument = %+v", m)
	}
}
