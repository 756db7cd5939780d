package probegen

import "testing"

// TestAliasShown: a listing found through a symbol shows the name asked
// for a Rust or C++ function (perf's header), the DWARF name for a C
// alias.
func TestAliasShown(t *testing.T) {
	for _, tt := range []struct{ asked, fn, want string }{
		{"rust_begin_unwind", "kernel::panic", "rust_begin_unwind"},
		{"_ZN3geo3Box4growEl", "geo::Box::grow", "_ZN3geo3Box4growEl"},
		{"malloc", "__libc_malloc", "__libc_malloc"},
	} {
		if got := aliasShown(tt.asked, tt.fn); got != tt.want {
			t.Errorf("aliasShown(%q, %q) = %q, want %q", tt.asked, tt.fn, got, tt.want)
		}
	}
}
