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
		{"+8(@init_task+16)", Fetch{Base: BaseSymbol, Symbol: "init_task", Addr: 16, Loads: []Load{{}, {Offset: 8}}}},
		{"@_stext-4", Fetch{Base: BaseSymbol, Symbol: "_stext", Addr: -4, Loads: []Load{{}}}},
		{"@0xffff0000", Fetch{Base: BaseAddress, Addr: 0xffff0000, Loads: []Load{{}}}},
		{"@+12352", Fetch{Base: BaseFileOffset, Addr: 12352, Loads: []Load{{}}}},
		{"$stack3", Fetch{Base: BaseStack, N: 3}},
		{"$stack", Fetch{Base: BaseStackPointer}},
		{"$retval", Fetch{Base: BaseRetval}},
		{"$arg2", Fetch{Base: BaseArg, N: 2}},
		{"$comm", Fetch{Base: BaseComm}},
		{`\0xdeade12d`, Fetch{Base: BaseImmediate, Imm: 0xdeade12d}},
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
	for _, bad := range []string{"", "%", "%DI", "+8(%di", "+x(%di)", "@", "$arg0", "$arg*", "$foo", `\deade12d`, "1abc", "@sym+x"} {
		if f, err := ParseFetch(bad); !errors.Is(err, ErrFetch) {
			t.Errorf("ParseFetch(%q) = %+v, %v; want ErrFetch", bad, f, err)
		}
	}
}

// FuzzParseFetch: whatever parses writes back as text that parses to the
// same fetcharg.
func FuzzParseFetch(f *testing.F) {
	for _, s := range []string{"%di", "+0(+8(%di))", "@jiffies+8", "@+4096", "$stack2", `\-3`, `\"x"`, "a->b.c", "+u4(-8(%sp))"} {
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
