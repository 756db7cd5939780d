package tracefs

import "testing"

func TestValidType(t *testing.T) {
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{"u8", true}, {"u8[64]", true}, {"string[2]", true}, {"u8[65]", false}, {"u8[0]", false}, {"s64", true}, {"x16", true}, {"string", true}, {"ustring", true}, {"symbol", true},
		{"u", false}, {"char", true}, {"%pd", true}, {"b3@0/32", true}, {"b6@26/32", true}, {"u32[4]", true},
		{"u7", false}, {"foo", false}, {"b33@0/32", false}, {"b4@30/32", false}, {"b3@0/24", false}, {"", false}, {"x128", false},
	} {
		if got := validType(tt.in); got != tt.ok {
			t.Errorf("validType(%q) = %v, want %v", tt.in, got, tt.ok)
		}
	}
}
