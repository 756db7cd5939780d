package main

import (
	"errors"
	"fmt"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/locate"
)

// openModule opens the kernel module at path (-m PATH) with its
// debuginfo: its own DWARF, or separate debuginfo found by build-id as for
// -x. A file that is not a relocatable object (a vmlinux, a program) is
// refused: its definitions would not name a module.
func openModule(path string) (*dwarfres.File, error) {
	return openModuleAt(newLocator(""), path, "", "")
}

// openModuleAt is openModule through loc, refusing a module built for
// another release than release (of the vmlinux kernel; "": no check). A
// compressed module (.ko.xz, .ko.zst, .ko.gz) is decompressed in memory.
func openModuleAt(loc *dwarfres.Locator, path, kernel, release string) (*dwarfres.File, error) {
	f, err := loc.OpenModule(path, kernel, release)
	if err != nil {
		return nil, moduleDebugErr(err)
	}
	return f, nil
}

// openModuleOf opens the module -m names, a path or a name (modulePath),
// and refuses one built for another release than the -k vmlinux.
func openModuleOf(o *options) (*dwarfres.File, error) {
	loc, path, rel, err := moduleFileOf(o)
	if err != nil {
		return nil, err
	}
	f, err := openModuleAt(loc, path, o.vmlinux, rel)
	if err == nil {
		f.SetKernelData(func() bool { return dwarfres.KernelListsData(f, o.vmlinux, runningRelease()) })
	}
	return f, err
}

// moduleFileOf is the file -m names (modulePath) and the release it must
// be built for (the -k vmlinux's; "" without -k), with the locator that
// finds its debuginfo.
func moduleFileOf(o *options) (loc *dwarfres.Locator, path, rel string, err error) {
	if o.vmlinux != "" {
		if rel, err = dwarfres.VmlinuxRelease(o.vmlinux); err != nil {
			return nil, "", "", err
		}
	}
	loc = newLocator(o.symfs)
	loc.Context = o.ctx
	addDebuginfod(loc, o)
	path, err = modulePath(o, loc, rel)
	return loc, path, rel, err
}

// modulePath is the file -m names: a path as given (it has a '/' or a
// module suffix, as perf tells them apart), else the module of that name
// installed for release (the -k vmlinux's; "" for the running kernel's),
// found as modprobe finds it.
func modulePath(o *options, loc *dwarfres.Locator, release string) (string, error) {
	if locate.IsModulePath(o.module) {
		return o.module, nil
	}
	if release == "" {
		release = runningRelease()
	}
	if release == "" {
		return "", errorWith(dwarfres.ErrModuleNotFound, "-m %s: the running kernel's release is unknown (no /proc/sys/kernel/osrelease): give the module's path", o.module)
	}
	p, err := loc.FindModule(release, o.module)
	var nf *locate.ModuleNotFoundError
	if errors.As(err, &nf) && !nf.Builtin {
		return "", fmt.Errorf("%w (give the module's path, or -k the vmlinux of another release)", err)
	}
	return p, err
}

// runningRelease is the running kernel's release (uname -r); tests
// replace it.
var runningRelease = func() string { rel, _ := runningKernel(); return rel }

// checkModuleOptions refuses what does not go with -m and --symfs.
func checkModuleOptions(o *options) error {
	switch {
	case o.module != "" && o.exec != "":
		return &usageError{errors.New("-m and -x are exclusive: probe a kernel module or a user binary, not both")}
	}
	return nil
}

// loadedModuleBuildID is the build-id of the module the running kernel
// loaded under a name; tests replace it.
var loadedModuleBuildID = dwarfres.LoadedModuleBuildID

// checkRunningModule refuses to add probes on module m when it was built
// for another release than the running kernel's, or is not the file of
// the module loaded under its name: its offsets would be wrong there. A
// module not loaded yet is taken: the kernel arms its probes at load.
func checkRunningModule(m *dwarfres.File) error {
	if err := dwarfres.CheckRelease(m, "", runningRelease()); err != nil {
		return fmt.Errorf("%w: give the running kernel's module, or use -n to see the definitions", err)
	}
	name := m.ModuleName()
	if want, have := loadedModuleBuildID(name), m.BuildID(); want != "" && have != "" && want != have {
		return errorWith(dwarfres.ErrRelease, "%s is not the module %s the running kernel loaded (build-id %s, loaded %s): its offsets would put the probes in the wrong places; give the loaded module's file, or use -n to see the definitions", m.Path, name, have, want)
	}
	return nil
}

// moduleDebugErr words a module without debuginfo: the places tried, and
// where such debuginfo comes from.
func moduleDebugErr(err error) error {
	var nf *locate.NotFoundError
	if !errors.As(err, &nf) || nf.Path == "" {
		return err
	}
	hint := ""
	if len(nf.Tried) > 0 {
		hint = " (a stripped module: install the kernel's -dbg package, or name its tree in DWPROBE_DEBUGINFO_PATH)"
	}
	return fmt.Errorf("%s: %w%s%s", nf.Path, dwarfres.ErrNoDebugInfo, hint, debuginfoTried(nf))
}
