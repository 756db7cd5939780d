package probegen

import "testing"

func TestRetvalIndex(t *testing.T) {
	for in, want := range map[string]int{"$retval": 0, "$retval0": 0, "$retval1": 1, "$retval12": 12} {
		if got, ok := retvalIndex(in); !ok || got != want {
			t.Errorf("retvalIndex(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"$retvalx", "$retval-1", "$retval+1", "retval", "$params"} {
		if _, ok := retvalIndex(in); ok {
			t.Errorf("retvalIndex(%q) accepted", in)
		}
	}
}
