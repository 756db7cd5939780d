package main

import (
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestColdPointLabel: on 7.3 amd64, print_cpu:26 is in print_cpu.cold,
// placed below print_cpu; a variable out of scope there is reported at
// print_cpu.cold+18, not at print_cpu+18446744071581000897 (the offset
// from the function's entry, wrapped).
func TestColdPointLabel(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "7.3/amd64/vmlinux")
	_, _, err := dw("-k", vml, "-D", "print_cpu:26 branch")
	if err == nil || !strings.Contains(err.Error(), "not in scope at print_cpu.cold+18;") || strings.Contains(err.Error(), "18446744") {
		t.Errorf("%v\nwant branch not in scope at print_cpu.cold+18", err)
	}
}
