package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestModuleUsrMerged: -m by name under --symfs finds the module of a
// merged-/usr root that has only usr/lib/modules (Debian trixie's 6.12
// image without the lib -> usr/lib link corpus.sh adds), as kmod does.
func TestModuleUsrMerged(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "6.12/amd64/vmlinux")
	image := dwarftest.NeedCorpus(t, "6.12/amd64/image/usr/lib/modules")
	t.Setenv("DWPROBE_DEBUGINFO_PATH", dwarftest.NeedCorpus(t, "6.12/amd64/dbg/usr/lib/debug"))
	es, err := os.ReadDir(image)
	if err != nil || len(es) != 1 {
		t.Fatalf("6.12 image: %d module releases, %v", len(es), err)
	}
	rel := es[0].Name()
	root := t.TempDir()
	dir := filepath.Join(root, "usr/lib/modules", rel)
	ko := "kernel/fs/overlayfs/overlay.ko.xz"
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, ko)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(image, rel, ko), filepath.Join(dir, ko)); err != nil {
		t.Fatal(err)
	}
	dwarftest.CopyFile(t, filepath.Join(image, rel, "modules.dep"), filepath.Join(dir, "modules.dep"), 0o644)
	out, stderr, err := dw("--symfs", root, "-k", vml, "-m", "overlay", "-D", "ovl_lookup")
	if err != nil || !strings.HasPrefix(out, "p:probe/ovl_lookup overlay:ovl_lookup+") {
		t.Errorf("-m overlay under a merged-/usr root: %q, %v\n%s", out, err, stderr)
	}
}
