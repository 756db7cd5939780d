package dwarfres

import "testing"

// TestDemangle pins the names perf lists for C++ and Rust symbols, and the
// fallback for a name that does not demangle (used as it is).
func TestDemangle(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"_ZN3geo3Box4growEl", "geo::Box::grow", true},
		{"_Z3addIlET_S0_S0_", "add<long>", true},
		{"_ZNK3geo3BoxltERKS0_", "geo::Box::operator<", true},
		{"_ZN1r4work17h1eab6cb397fdfa44E", "r::work", true},                   // Rust legacy: hash dropped
		{"_RNvNvCs4fqI2P2rA04_1r5inner5scale", "r::inner::scale", true},       // Rust v0
		{"_RNvMCs4fqI2P2rA04_1rNtB2_7Counter4bump", "r::Counter::bump", true}, // v0 "<r::Counter>::bump"
		{"_Zbad", "_Zbad", false},
		{"main", "main", false},
	} {
		got, ok := Demangle(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Demangle(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestNameForms pins the two rewrites of qualified names: the last
// component of a scoped name, and Rust v0's inherent methods written as
// legacy mangling writes them.
func TestNameForms(t *testing.T) {
	for _, tt := range []struct {
		fn       func(string) string
		in, want string
	}{
		{scopeLeaf, "geo::Box::grow", "grow"},
		{scopeLeaf, "ns::f<a::b>", "f<a::b>"},
		{scopeLeaf, "plain", "plain"},
		{scopeLeaf, "<T as ns::Tr>::method", "method"},
		{inherentImpl, "<r::Counter>::bump", "r::Counter::bump"},
		{inherentImpl, "<r::Counter as core::fmt::Debug>::fmt", "<r::Counter as core::fmt::Debug>::fmt"},
		{inherentImpl, "<alloc::vec::Vec<u8>>::push", "alloc::vec::Vec<u8>::push"},
		{inherentImpl, "<[u8]>", "<[u8]>"},
		{inherentImpl, "r::work", "r::work"},
	} {
		if got := tt.fn(tt.in); got != tt.want {
			t.Errorf("%q -> %q, want %q", tt.in, got, tt.want)
		}
	}
}
