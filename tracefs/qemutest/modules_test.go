package qemutest

import (
	"debug/elf"
	"os"
	"path"
	"strings"
	"testing"
)

// TestModules stages vfat (which depends on fat) and overlay of the amd64
// images, 6.1's, 6.12's and 7.3's (whose modules are .ko.xz, staged
// decompressed): both modules and the dependency are there as .ko ELF
// files, modules.dep names fat for vfat, and only overlay's debuginfo is
// added.
func TestModules(t *testing.T) {
	for _, key := range []string{"amd64", "6.12/amd64", "7.3/amd64"} {
		t.Run(key, func(t *testing.T) { checkModules(t, key) })
	}
}

func checkModules(t *testing.T, key string) {
	rel := Release(t, key)
	extra := Modules(t, key, []string{"vfat", "overlay"}, []string{"overlay"})
	dir := path.Join("/lib/modules", rel)
	for _, m := range []string{"kernel/fs/fat/vfat.ko", "kernel/fs/fat/fat.ko", "kernel/fs/overlayfs/overlay.ko"} {
		f, err := elf.Open(extra[path.Join(dir, m)])
		if err != nil {
			t.Errorf("%s: %v (staged: %v)", m, err, extra)
			continue
		}
		f.Close()
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
