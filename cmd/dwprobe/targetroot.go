package main

import (
	"errors"
	"fmt"
	"strconv"
)

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
