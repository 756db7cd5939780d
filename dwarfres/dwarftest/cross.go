package dwarftest

import (
	"os"
	"path/filepath"
	"testing"
)

// CrossCompilers names the cross compiler fixtures.sh builds each other
// machine's app with (Debian's gcc-TRIPLET packages, in make deps), by
// the corpus's machine name.
var CrossCompilers = map[string]string{
	"ppc64el": "powerpc64le-linux-gnu-gcc",
	"s390x":   "s390x-linux-gnu-gcc",
	"riscv64": "riscv64-linux-gnu-gcc",
}

// CrossFixture returns the app fixture fixtures.sh built for machine
// ("ppc64el", "s390x", "riscv64") at opt ("O0", "O2"): static, with
// gcc's DWARF 5, app-MACHINE-gcc-OPT-static. Without the machine's cross
// compiler it skips the test (fails it under make test).
func CrossFixture(t testing.TB, root, machine, opt string) string {
	t.Helper()
	cc, ok := CrossCompilers[machine]
	if !ok {
		t.Fatalf("no cross compiler for machine %q", machine)
	}
	NeedTool(t, cc)
	p := filepath.Join(Fixtures(t, root), "app-"+machine+"-gcc-"+opt+"-static")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("cross fixture: %v", err)
	}
	return p
}
