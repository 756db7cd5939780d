package tracefs

import (
	"errors"
	"strings"
	"testing"
)

func TestSanitizeName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"vfs_read", "vfs_read"},
		{"getname_flags.part.0", "getname_flags_part_0"},
		{"a--b", "a_b"},
		{"a-._b", "a__b"},
		{"__x", "__x"},
		{"-", "_"},
		{"...", "_"},
		{"1abc", "_1abc"},
		{"9-", "_9_"},
		{"main.(*T).M", "main_T_M"},
		{"malloc@GLIBC_2.2.5", "malloc_GLIBC_2_2_5"},
		{"héllo", "h_llo"},
		{strings.Repeat("a", 100), strings.Repeat("a", 63)},
		{"1" + strings.Repeat("a", 100), "_1" + strings.Repeat("a", 61)},
	}
	for _, tt := range tests {
		got := SanitizeName(EventName, tt.in)
		if got != tt.want {
			t.Errorf("SanitizeName(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if tt.in != "" {
			if err := ValidateName(EventName, got); err != nil {
				t.Errorf("SanitizeName(%q) = %q is not valid: %v", tt.in, got, err)
			}
		}
	}
}

func TestValidateName(t *testing.T) {
	tests := []struct {
		in  string
		msg string // "" means valid
	}{
		{"vfs_read", ""},
		{"_", ""},
		{"_1", ""},
		{"A9_z", ""},
		{strings.Repeat("a", 63), ""},
		{strings.Repeat("a", 64), "longer than 63 bytes"},
		{"", "empty"},
		{"1a", "must be a C identifier"},
		{"a-b", "must be a C identifier"},
		{"a.b", "must be a C identifier"},
		{"a b", "must be a C identifier"},
		{"a\n", "must be a C identifier"},
		{"é", "must be a C identifier"},
	}
	for _, tt := range tests {
		for _, v := range []struct {
			k   NameKind
			err error
		}{{EventName, ErrBadEventName}, {GroupName, ErrBadGroupName}} {
			err := ValidateName(v.k, tt.in)
			switch {
			case tt.msg == "" && err != nil:
				t.Errorf("%q: unexpected %v", tt.in, err)
			case tt.msg != "" && (err == nil || !errors.Is(err, v.err) || !strings.Contains(err.Error(), tt.msg)):
				t.Errorf("%q: got %v, want %v containing %q", tt.in, err, v.err, tt.msg)
			}
		}
	}
}

func TestValidateArgName(t *testing.T) {
	for _, c := range []struct{ in, msg string }{
		{"x", ""}, {strings.Repeat("a", 32), ""}, {"arg1", ""},
		{strings.Repeat("a", 33), "longer than 32 bytes"},
		{"", "empty"}, {"1a", "C identifier"}, {"a-b", "C identifier"},
		{"common_pid", "reserved"}, {"__probe_ip", "reserved"},
	} {
		err := ValidateName(ArgName, c.in)
		if c.msg == "" && err != nil || c.msg != "" && (!errors.Is(err, ErrBadArgName) || !strings.Contains(err.Error(), c.msg)) {
			t.Errorf("ValidateName(ArgName, %q) = %v, want %q", c.in, err, c.msg)
		}
	}
}

func TestSanitizeArgName(t *testing.T) {
	for in, want := range map[string]string{
		"count_u8":              "count_u8",
		"buf_u32[4]":            "buf_u32_4_",
		"x_b3@0/32":             "x_b3_0_32",
		strings.Repeat("a", 40): strings.Repeat("a", MaxArgNameLen),
		"common_pid":            "_common_pid",
		"1x":                    "_1x",
	} {
		if got := SanitizeName(ArgName, in); got != want {
			t.Errorf("SanitizeName(ArgName, %q) = %q, want %q", in, got, want)
		}
	}
}
