package qemutest

import (
	"os"
	"path"
	"strings"
	"testing"
)

// TestModules stages vfat (which depends on fat) and overlay of the amd64
// image: both modules and the dependency are there, modules.dep names fat
// for vfat, and only overlay's debuginfo is added.
func TestModules(t *testing.T) {
	rel := Release(t, "amd64")
	extra := Modules(t, "amd64", []string{"vfat", "overlay"}, []string{"overlay"})
	dir := path.Join("/lib/modules", rel)
	for _, m := range []string{"kernel/fs/fat/vfat.ko", "kernel/fs/fat/fat.ko", "kernel/fs/overlayfs/overlay.ko", "modules.dep"} {
		if extra[path.Join(dir, m)] == "" {
			t.Errorf("no %s in %v", m, extra)
		}
	}
	dbg := path.Join("/usr/lib/debug", dir, "kernel/fs/overlayfs/overlay.ko")
	if extra[dbg] == "" || extra[path.Join("/usr/lib/debug", dir, "kernel/fs/fat/vfat.ko")] != "" {
		t.Errorf("want only overlay's debuginfo, got %v", extra)
	}
	dep, err := os.ReadFile(extra[path.Join(dir, "modules.dep")])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(dep), "kernel/fs/fat/vfat.ko: kernel/fs/fat/fat.ko\n") {
		t.Errorf("modules.dep:\n%s", dep)
	}
	if len(extra) > 20 {
		t.Errorf("%d files staged, want only the three modules, their indexes and one debug file", len(extra))
	}
}
