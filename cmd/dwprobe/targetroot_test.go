package main

import (
	"testing"
)

// TestTargetNSUsage: --target-ns takes a process id and goes with -x
// alone, not --symfs: usage errors.
func TestTargetNSUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--target-ns", "abc", "-x", "/bin/true", "-D", "main"},
		{"--target-ns", "0", "-x", "/bin/true", "-D", "main"},
		{"--target-ns", "1", "-k", "/nonexistent/vmlinux", "-D", "vfs_read"},
		{"--target-ns", "1", "--symfs", "/", "-x", "/bin/true", "-D", "main"},
	} {
		_, _, err := dw(args...)
		if exitCode(err) != exitUsage {
			t.Errorf("%v: %v (exit %d); want a usage error", args, err, exitCode(err))
		}
	}
}
