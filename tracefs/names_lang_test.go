package tracefs

import "testing"

// TestSymbolEventName pins upstream perf's replacement of the bytes an
// event name can't hold, for C++, Rust and Go symbols (issue 15).
func TestSymbolEventName(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"geo::Box::grow", "geo_Box_grow"},
		{"cro3::cmd::servo::run_show", "cro3_cmd_servo_run_show"}, // upstream's example
		{"main.(*Server).poll", "main_Server_poll"},               // upstream's example
		{"add<long>", "add_long_"},
		{"geo::Box::operator<", "geo_Box_operator_"},
		{"example.com/gofix/shapes.(*Rect).Scale", "example_com_gofix_shapes_Rect_Scale"},
		{"__x__y", "x_y"},
		{"plain", "plain"},
	} {
		if got := SymbolEventName(tt.in); got != tt.want {
			t.Errorf("SymbolEventName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestShortEventName pins upstream perf's hashed name for a symbol of 64
// bytes or more, with the example of its commit message.
func TestShortEventName(t *testing.T) {
	long := "_Z62this_is_a_very_very_long_print_data_abcdefghijklmnopqrstuvwxyzi"
	if got, want := ShortEventName(long), "_Z62this_is_a_very_very_long_print_data_abcdef_91f40679"; got != want {
		t.Errorf("ShortEventName(%q) = %q, want %q", long, got, want)
	}
	if got := ShortEventName("vfs_read"); got != "vfs_read" {
		t.Errorf("ShortEventName(vfs_read) = %q", got)
	}
	n63 := "a23456789012345678901234567890123456789012345678901234567890123"
	if got := ShortEventName(n63); got != n63 {
		t.Errorf("63 bytes: %q, want it unchanged", got)
	}
	if got := ShortEventName(n63 + "4"); len(got) > hashedNameLen+9 || ValidateName(EventName, got+"__return") != nil {
		t.Errorf("64 bytes: %q is too long for a return probe's name", got)
	}
}
