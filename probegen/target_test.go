package probegen

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
)

// TestOpenTarget pins the choice of source: BTF when asked for or when a
// kernel has no debuginfo; a user binary's notes only when the request
// allows and the binary opens (else the debuginfo's error, not the
// binary's); DWARF when the file opens with it.
func TestOpenTarget(t *testing.T) {
	noDebug := fmt.Errorf("vmlinux: %w", dwarfres.ErrNoDebugInfo)
	other := errors.New("permission denied")
	self := func() (*dwarfres.File, error) {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		return dwarfres.Open(exe)
	}
	fail := func(err error) func() (*dwarfres.File, error) {
		return func() (*dwarfres.File, error) { return nil, err }
	}
	for _, c := range []struct {
		name string
		o    TargetOptions
		src  Source
		why  error // Target.Why, when err is nil
		err  error // OpenTarget's error
	}{
		{"--btf", TargetOptions{BTF: true, Open: fail(other)}, SourceBTF, nil, nil},
		{"kernel without debuginfo", TargetOptions{Open: fail(noDebug)}, SourceBTF, noDebug, nil},
		{"module without debuginfo", TargetOptions{Module: true, Open: fail(noDebug)}, SourceBTF, noDebug, nil},
		{"kernel unreadable", TargetOptions{Open: fail(other)}, 0, nil, other},
		{"user needs debuginfo", TargetOptions{User: true, Open: fail(noDebug), OpenBinary: self}, 0, nil, noDebug},
		{"user SDT", TargetOptions{User: true, WithoutDebug: true, Open: fail(noDebug), OpenBinary: self}, SourceSDT, noDebug, nil},
		{"user SDT unreadable", TargetOptions{User: true, WithoutDebug: true, Open: fail(noDebug), OpenBinary: fail(other)}, 0, nil, noDebug},
		{"user unreadable", TargetOptions{User: true, WithoutDebug: true, Open: fail(other), OpenBinary: self}, 0, nil, other},
		{"user DWARF", TargetOptions{User: true, Open: self}, SourceDWARF, nil, nil},
	} {
		tgt, err := OpenTarget(c.o)
		if c.err != nil {
			if err != c.err || tgt != nil {
				t.Errorf("%s: %v, %v; want error %v", c.name, tgt, err, c.err)
			}
			continue
		}
		if err != nil || tgt.Source != c.src || tgt.Why != c.why {
			t.Errorf("%s: %+v, %v; want %v, why %v", c.name, tgt, err, c.src, c.why)
			continue
		}
		if tgt.File != nil {
			tgt.File.Close()
		}
	}
}
