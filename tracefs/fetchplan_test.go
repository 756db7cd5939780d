package tracefs

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseFetch(t *testing.T) {
	tests := []struct {
		in   string
		want Fetch
	}{
		{"%di", Fetch{Base: BaseRegister, Register: "di"}},
		{"+68(%bp)", Fetch{Base: BaseRegister, Register: "bp", Loads: []Load{{Offset: 68}}}},
		{"+0(+8(%di))", Fetch{Base: BaseRegister, Register: "di", Loads: []Load{{Offset: 8}, {Offset: 0}}}},
		{"-16(%sp)", Fetch{Base: BaseRegister, Register: "sp", Loads: []Load{{Offset: -16}}}},
		{"+u8(%x0)", Fetch{Base: BaseRegister, Register: "x0", Loads: []Load{{Offset: 8, User: true}}}},
		{"@jiffies", Fetch{Base: BaseSymbol, Symbol: "jiffies", Loads: []Load{{}}}},
		{"+8(@init_task+16)", Fetch{Base: BaseSymbol, Symbol: "init_task", Addr: 16, Loads: []Load{{}, {Offset: 8}}, SymOffset: true}},
		{"@_stext-4", Fetch{Base: BaseSymbol, Symbol: "_stext", Addr: -4, Loads: []Load{{}}, SymOffset: true}},
		{"@0xffff0000", Fetch{Base: BaseAddress, Addr: 0xffff0000, Loads: []Load{{}}}},
		{"@+12352", Fetch{Base: BaseFileOffset, Addr: 12352, Loads: []Load{{}}}},
		{"$stack3", Fetch{Base: BaseStack, N: 3}},
		{"$stack", Fetch{Base: BaseStackPointer}},
		{"$retval", Fetch{Base: BaseRetval}},
		{"$arg2", Fetch{Base: BaseArg, N: 2}},
		{"$comm", Fetch{Base: BaseComm}},
		{`\0xdeade12d`, Fetch{Base: BaseImmediate, Imm: 0xdeade12d, Hex: true}},
		{`\3735937325`, Fetch{Base: BaseImmediate, Imm: 0xdeade12d}},
		{"@jiffies+0", Fetch{Base: BaseSymbol, Symbol: "jiffies", Loads: []Load{{}}, SymOffset: true}},
		{"@+0x4010", Fetch{Base: BaseFileOffset, Addr: 0x4010, Loads: []Load{{}}, Hex: true}},
		{"this_cpu_read(@runqueues)", Fetch{Base: BasePerCPU, Symbol: "runqueues", Loads: []Load{{}}}},
		{"+8(this_cpu_ptr(@runqueues))", Fetch{Base: BasePerCPU, Symbol: "runqueues", Loads: []Load{{Offset: 8}}}},
		{`\-1`, Fetch{Base: BaseImmediate, Imm: -1}},
		{`\"hi"`, Fetch{Base: BaseString, Name: "hi"}},
		{"file->f_mode", Fetch{Base: BaseBTF, Name: "file->f_mode"}},
		{"$retval->pid", Fetch{Base: BaseBTF, Name: "$retval->pid"}},
	}
	for _, tt := range tests {
		got, err := ParseFetch(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseFetch(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			continue
		}
		again, err := ParseFetch(got.String())
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("ParseFetch(%q).String() = %q, which parses as %+v, %v", tt.in, got.String(), again, err)
		}
	}
	for _, bad := range []string{"", "%", "%DI", "+8(%di", "+x(%di)", "@", "$arg0", "$arg*", "$foo", `\deade12d`, "1abc", "@sym+x", "this_cpu_read(x)", "(task_struct)$current->pid"} {
		if f, err := ParseFetch(bad); !errors.Is(err, ErrFetch) {
			t.Errorf("ParseFetch(%q) = %+v, %v; want ErrFetch", bad, f, err)
		}
	}
}

// FuzzParseFetch: whatever parses writes back as text that parses to the
// same fetcharg.
func FuzzParseFetch(f *testing.F) {
	for _, s := range []string{"%di", "+0(+8(%di))", "@jiffies+8", "@jiffies+0", "@+4096", "@+0x1000", "$stack2", `\-3`, `\0xdeade12d`, `\"x"`, "a->b.c", "+u4(-8(%sp))", "this_cpu_read(@x)", "+8(this_cpu_ptr(@x))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseFetch(s)
		if err != nil {
			return
		}
		again, err := ParseFetch(got.String())
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("ParseFetch(%q) = %+v; its String %q parses as %+v, %v", s, got, got.String(), again, err)
		}
	})
}

// TestFetchString: what the builders make is written as perf writes it,
// and reads back as itself.
func TestFetchString(t *testing.T) {
	for _, tt := range []struct {
		f    Fetch
		want string
	}{
		{Fetch{Base: BaseSymbol, Symbol: "init_task", Addr: 2416, Loads: []Load{{}}, SymOffset: true}, "@init_task+2416"},
		{Fetch{Base: BaseSymbol, Symbol: "jiffies", Loads: []Load{{}, {Offset: 8}}, SymOffset: true}, "+8(@jiffies+0)"},
		{Fetch{Base: BaseSymbol, Symbol: "jiffies", Loads: []Load{{}}}, "@jiffies"},
		{Fetch{Base: BaseFileOffset, Addr: 0x4010, Loads: []Load{{}}, Hex: true}, "@+0x4010"},
		{Fetch{Base: BaseFileOffset, Addr: 16808, Loads: []Load{{}}}, "@+16808"},
		{Fetch{Base: BaseImmediate, Imm: 0xdeade12d, Hex: true}, `\0xdeade12d`},
		{Fetch{Base: BaseImmediate, Imm: -100}, `\-100`},
		{Fetch{Base: BasePerCPU, Symbol: "rq", Loads: []Load{{}}}, "this_cpu_read(@rq)"},
		{Fetch{Base: BasePerCPU, Symbol: "rq", Loads: []Load{{Offset: 8}, {}}}, "+0(+8(this_cpu_ptr(@rq)))"},
		{Fetch{Base: BasePerCPU, Symbol: "rq", Loads: []Load{{}, {Offset: 16}}}, "+16(this_cpu_read(@rq))"},
		{Fetch{Base: BaseRegister, Register: "si", Loads: []Load{{Offset: -8, User: true}}}, "-u8(%si)"},
		{Fetch{Base: BaseArg, N: 1, Loads: []Load{{Offset: 24}}}, "+24($arg1)"},
	} {
		got := tt.f.String()
		if got != tt.want {
			t.Errorf("%+v: String() = %q, want %q", tt.f, got, tt.want)
			continue
		}
		if back, err := ParseFetch(got); err != nil || !reflect.DeepEqual(back, tt.f) {
			t.Errorf("%q parses as %+v, %v; want %+v", got, back, err, tt.f)
		}
	}
}

// TestReadFetch: outside text is read once; what the model does not
// break down is kept as written, with ParseFetch's reason.
func TestReadFetch(t *testing.T) {
	if f := ReadFetch("+8(%di)"); f.Base != BaseRegister || f.String() != "+8(%di)" {
		t.Errorf("ReadFetch(+8(%%di)) = %+v", f)
	}
	f := ReadFetch("+8(foo bar)")
	if f.Base != BaseText || f.Name != "+8(foo bar)" || f.String() != "+8(foo bar)" || f.Why != "not a fetch argument\n\"foo bar\"" {
		t.Errorf("ReadFetch(+8(foo bar)) = %+v", f)
	}
	c := TextFetch("(task_struct)$current->pid")
	if c.String() != "(task_struct)$current->pid" || c.Why != "not a fetch argument\n\"(task_struct)$current->pid\"" {
		t.Errorf("TextFetch = %+v", c)
	}
}

func TestParseType(t *testing.T) {
	tests := map[string]FetchType{
		"":         {},
		"s32":      {Size: 4, Signed: true},
		"x64":      {Size: 8, Hex: true},
		"u8[4]":    {Size: 1, Array: 4},
		"string":   {String: true},
		"ustring":  {String: true, User: true},
		"b4@2/32":  {Size: 4, BitWidth: 4, BitOffset: 2},
		"char":     {Size: 1},
		"x16[2]":   {Size: 2, Hex: true, Array: 2},
		"b1@63/64": {Size: 8, BitWidth: 1, BitOffset: 63},
		"symbol":   {},
	}
	for in, want := range tests {
		if got, err := ParseType(in); err != nil || got != want {
			t.Errorf("ParseType(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"s33", "u8[0]", "b9@0/8", "int"} {
		if _, err := ParseType(bad); !errors.Is(err, ErrFetch) {
			t.Errorf("ParseType(%q): %v, want ErrFetch", bad, err)
		}
	}
}
