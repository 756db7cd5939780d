package probegen

import (
	"errors"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
)

// TestBuiltCheckRelease: a module is refused for another release than
// the running kernel's, as dwarfres.CheckRelease refuses it; a module
// without vermagic, or an unknown release, is taken.
func TestBuiltCheckRelease(t *testing.T) {
	for _, c := range []struct {
		mod, running string
		refused      bool
	}{
		{"6.1.0-18-amd64", "6.1.0-18-amd64", false},
		{"6.1.0-18-amd64", "6.12.9-amd64", true},
		{"", "6.12.9-amd64", false},
		{"6.1.0-18-amd64", "", false},
	} {
		b := Built{Path: "/m/overlay.ko", IsModule: true, Module: "overlay", ModuleRelease: c.mod}
		err := b.CheckRelease(c.running)
		var re *dwarfres.ReleaseError
		switch {
		case !c.refused && err != nil:
			t.Errorf("%q on %q: %v, want taken", c.mod, c.running, err)
		case c.refused && (!errors.As(err, &re) || !errors.Is(err, dwarfres.ErrRelease)):
			t.Errorf("%q on %q: %v, want a *dwarfres.ReleaseError", c.mod, c.running, err)
		case c.refused && (re.Module != b.Path || re.ModRelease != c.mod || re.KernelRelease != c.running || re.Kernel != ""):
			t.Errorf("%q on %q: %+v", c.mod, c.running, re)
		}
	}
}
