package main

import (
	"errors"
	"fmt"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen"
)

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
var loadedModuleBuildID = probegen.LoadedModuleBuildID

// checkRunningModule refuses to add probes on module m when it was built
// for another release than the running kernel's, or is not the file of
// the module loaded under its name: its offsets would be wrong there. A
// module not loaded yet is taken: the kernel arms its probes at load.
func checkRunningModule(m probegen.Built) error {
	if err := m.CheckRelease(runningRelease()); err != nil {
		return fmt.Errorf("%w: give the running kernel's module, or use -n to see the definitions", err)
	}
	name := m.Module
	if want, have := loadedModuleBuildID(name), m.BuildID; want != "" && have != "" && want != have {
		return errorWith(dwarfres.ErrRelease, "%s is not the module %s the running kernel loaded (build-id %s, loaded %s): its offsets would put the probes in the wrong places; give the loaded module's file, or use -n to see the definitions", m.Path, name, have, want)
	}
	return nil
}

// moduleDebugErr words a module without debuginfo: the places tried, and
// where such debuginfo comes from.
func moduleDebugErr(err error) error {
	var nf *dwarfres.NotFoundError
	if !errors.As(err, &nf) || nf.Path == "" {
		return err
	}
	hint := ""
	if len(nf.Tried) > 0 {
		hint = " (a stripped module: install the kernel's -dbg package, or name its tree in DWPROBE_DEBUGINFO_PATH)"
	}
	return fmt.Errorf("%s: %w%s%s", nf.Path, dwarfres.ErrNoDebugInfo, hint, debuginfoTried(nf))
}
