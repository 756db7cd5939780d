package tracefs

import (
	"path/filepath"
	"strconv"
	"strings"
)

// mountedDirs returns, from the text of /proc/self/mountinfo, the
// directories that hold the tracing files, in the order mounted: each
// tracefs mount point, then each debugfs mount point's "tracing". A
// container may have tracefs bind-mounted anywhere; the usual paths come
// after these. The format (proc(5)):
//
//	36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw
//
// with the mount point in field 5 and the filesystem type after the "-"
// that ends the optional fields.
func mountedDirs(mountinfo string) []string {
	var tracefs, debugfs []string
	for _, line := range strings.Split(mountinfo, "\n") {
		f := strings.Fields(line)
		sep := -1
		for i := 6; i < len(f); i++ {
			if f[i] == "-" {
				sep = i
				break
			}
		}
		if len(f) < 5 || sep < 0 || sep+1 >= len(f) {
			continue
		}
		dir := unescapeMount(f[4])
		switch f[sep+1] {
		case "tracefs":
			tracefs = append(tracefs, dir)
		case "debugfs":
			debugfs = append(debugfs, filepath.Join(dir, "tracing"))
		}
	}
	return append(tracefs, debugfs...)
}

// unescapeMount undoes the kernel's octal escapes of a mount point
// (show_mountinfo's mangle: space as \040, tab \011, newline \012,
// backslash \134).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
