package dwarfres

import (
	"fmt"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
	"github.com/dwprobe/dwprobe/dwarfres/elfsym"
	"github.com/dwprobe/dwprobe/dwarfres/locate"
)

// moduleRelease is the kernel release the module o was built for, from
// its vermagic (locate.VermagicRelease), or "".
func moduleRelease(o *elfobj.Object) string {
	return locate.VermagicRelease(o.ModInfo("vermagic"))
}

// KernelListsData reports whether the kallsyms of the kernel module m is
// probed with lists data symbols (CONFIG_KALLSYMS_ALL), through which a
// module global is read: the vmlinux's (Image.KallsymsHasData), or, with
// none, the running kernel's (release running) when m was built for it.
// True when it cannot tell. It is what File.SetKernelData wants for a
// module.
func KernelListsData(m *File, vmlinux, running string) bool {
	if vmlinux == "" {
		if running == "" || moduleRelease(m.Object) != running {
			return true
		}
		return elfsym.RunningKallsymsHasData()
	}
	k, err := Open(vmlinux)
	if err != nil {
		return true
	}
	defer k.Close()
	return k.KallsymsHasData()
}

// ReleaseError reports a module built for another kernel release than the
// kernel's; it wraps ErrRelease.
type ReleaseError struct {
	Module        string // the module's file
	ModRelease    string // from its vermagic
	Kernel        string // the kernel's file, "" for the running kernel
	KernelRelease string
}

func (e *ReleaseError) Error() string {
	k := "the running kernel"
	if e.Kernel != "" {
		k = e.Kernel
	}
	return fmt.Sprintf("%s: %v: the module's vermagic is %s, %s is %s", e.Module, ErrRelease, e.ModRelease, k, e.KernelRelease)
}

func (e *ReleaseError) Unwrap() error { return ErrRelease }

// VmlinuxRelease reads the release from the banner of the vmlinux at
// path: the release its modules must be built for. The error wraps
// ErrNotELF for a file without linux_banner.
func VmlinuxRelease(path string) (string, error) {
	k, err := Open(path)
	if err != nil {
		return "", err
	}
	defer k.Close()
	rel, ok := k.KernelRelease()
	if !ok {
		return "", fmt.Errorf("%s: %w: no linux_banner to read the kernel release from (is it a vmlinux?)", path, ErrNotELF)
	}
	return rel, nil
}

// CheckRelease refuses module m when its vermagic names another release
// than release (the kernel's, from kernel's banner or uname -r). A module
// without vermagic, or an unknown release, is not refused.
func CheckRelease(m *File, kernel, release string) error {
	mr := moduleRelease(m.Object)
	if mr == "" || release == "" || mr == release {
		return nil
	}
	return &ReleaseError{Module: m.Path, ModRelease: mr, Kernel: kernel, KernelRelease: release}
}
