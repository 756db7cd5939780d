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

func TestScopeLeaf(t *testing.T) {
	for in, want := range map[string]string{
		"geo::Box::grow":        "grow",
		"ns::f<a::b>":           "f<a::b>",
		"r::inner::scale":       "scale",
		"plain":                 "plain",
		"<T as ns::Tr>::method": "method",
	} {
		if got := scopeLeaf(in); got != want {
			t.Errorf("scopeLeaf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestInherentImpl(t *testing.T) {
	for in, want := range map[string]string{
		"<r::Counter>::bump":                    "r::Counter::bump",
		"<r::Counter as core::fmt::Debug>::fmt": "<r::Counter as core::fmt::Debug>::fmt",
		"<alloc::vec::Vec<u8>>::push":           "alloc::vec::Vec<u8>::push",
		"r::work":                               "r::work",
		"<[u8]>":                                "<[u8]>",
	} {
		if got := inherentImpl(in); got != want {
			t.Errorf("inherentImpl(%q) = %q, want %q", in, got, want)
		}
	}
}
