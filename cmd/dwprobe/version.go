package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// buildRevision and buildModified are set by testdata/scripts/build.sh
// (-ldflags -X) for the toolchain, which does not stamp the revision in a
// git worktree (its .git is a file); the toolchain's stamp wins when there
// is one.
var buildRevision, buildModified string

// version is --version's line: the module version and the VCS revision the
// binary was built from, "dirty" when the tree had changes, as the Go
// toolchain stamped them into the build info.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dwprobe (no build info)"
	}
	return formatVersion(bi)
}

// formatVersion: "dwprobe v1.2.0 (revision 1254016abcde, 2026-11-23T16:00:00Z, dirty; go1.26.8)".
func formatVersion(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	rev, when, dirty := buildRevision, "", buildModified == "true"
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	var parts []string
	if rev != "" {
		parts = append(parts, "revision "+rev[:min(12, len(rev))])
	}
	if when != "" {
		parts = append(parts, when)
	}
	if dirty {
		parts = append(parts, "dirty")
	}
	about := bi.GoVersion
	if len(parts) > 0 {
		about = strings.Join(parts, ", ") + "; " + about
	}
	return fmt.Sprintf("dwprobe %s (%s)", v, about)
}
