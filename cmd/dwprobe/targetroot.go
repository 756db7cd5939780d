package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/dwprobe/dwprobe/dwarfres/locate"
)

// targetRoot is the directory -x's path is looked up under: --symfs DIR
// (a copy of the target system's files), or /proc/PID/root for
// --target-ns PID (the root of PID's mount namespace, which the kernel
// follows into that namespace); "" for neither.
func targetRoot(o *options) (string, error) {
	if o.targetNS == "" {
		return o.symfs, nil
	}
	root := "/proc/" + o.targetNS + "/root"
	if _, err := os.Stat(root); err != nil {
		return "", fmt.Errorf("--target-ns %s: no such process's mount namespace: %w", o.targetNS, err)
	}
	return root, nil
}

// checkTargetNS refuses a --target-ns that is no process id, or that does
// not go with the other options: it names the mount namespace -x's path
// is in, as perf's does.
func checkTargetNS(o *options) error {
	if o.targetNS == "" {
		return nil
	}
	if n, err := strconv.Atoi(o.targetNS); err != nil || n <= 0 {
		return &usageError{fmt.Errorf("--target-ns takes a process id, not %q", o.targetNS)}
	}
	switch {
	case o.exec == "" && (len(o.defs) > 0 || len(o.adds) > 0 || o.line != "" || len(o.vars) > 0 || o.funcsSet):
		return &usageError{errors.New("--target-ns goes with -x: it names the mount namespace the binary is in")}
	case o.symfs != "":
		return &usageError{errors.New("--target-ns and --symfs are exclusive: the binary is looked up in PID's mount namespace or under DIR, not both")}
	}
	return nil
}

// execPaths returns where -x is read (open) and the path written in its
// definitions (the one the kernel resolves when the uprobe is added).
// Without a root they are -x itself and its absolute, symlink-free path.
// Under --symfs DIR the file is DIR/PATH and the kernel's path is PATH
// (the definition is for the system DIR is a copy of); under --target-ns
// PID the file and the kernel's path are both /proc/PID/root/PATH, which
// the kernel follows into PID's mount namespace from the writer's. PATH
// has its symlinks resolved inside the root, as the target sees them.
func execPaths(o *options) (open, kernel string, err error) {
	if o.exec == "" {
		return "", "", nil
	}
	abs, err := filepath.Abs(o.exec)
	if err != nil {
		return "", "", err
	}
	root, err := targetRoot(o)
	if err != nil {
		return "", "", err
	}
	if root == "" {
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
		return o.exec, abs, nil
	}
	inner, err := locate.ResolveUnder(root, abs)
	if err != nil {
		return "", "", fmt.Errorf("%s under %s: %w", o.exec, root, err)
	}
	if o.targetNS != "" {
		return root + inner, root + inner, nil
	}
	return root + inner, inner, nil
}
