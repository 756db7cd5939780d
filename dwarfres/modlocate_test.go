package dwarfres

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestLocatorStrippedModule attaches the -dbg package's debuginfo to the
// image's stripped overlay.ko: by its installed path, and for a copy of it
// by its name and vermagic, the build-id checked either way; a tree
// without it is named in the error.
func TestLocatorStrippedModule(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		rel := "lib/modules/" + corpusRelease(t, arch) + "/kernel/fs/overlayfs/overlay.ko"
		mod := dwarftest.NeedCorpus(t, arch+"/image/"+rel)
		dbg := dwarftest.NeedCorpus(t, arch+"/dbg/usr/lib/debug")
		for _, p := range []string{mod, dwarftest.CopyFile(t, mod, filepath.Join(t.TempDir(), filepath.Base(mod)), 0o644)} {
			f, err := NewLocator(dbg).Open(p)
			if err != nil {
				t.Fatalf("%s: %v", arch, err)
			}
			if f.dbg == nil || f.dbg.Path != filepath.Join(dbg, rel) || !f.HasDWARF() {
				t.Errorf("%s: %s attached %v", arch, p, f.dbg)
			}
			f.Close()
		}
		_, err := NewLocator(t.TempDir()).Open(mod)
		var nf *NotFoundError
		if !errors.As(err, &nf) || !strings.Contains(err.Error(), "/lib/modules/"+rel[len("lib/modules/"):]) {
			t.Errorf("%s: without debuginfo: %v", arch, err)
		}
	}
}

// corpusRelease is the release the corpus's image installs modules for.
func corpusRelease(t *testing.T, arch string) string {
	es, err := os.ReadDir(dwarftest.NeedCorpus(t, arch+"/image/lib/modules"))
	if err != nil || len(es) != 1 {
		t.Fatalf("%s image: %d module releases, %v", arch, len(es), err)
	}
	return es[0].Name()
}

// TestKernelRelease reads each corpus vmlinux's release from its banner:
// the release its image installs modules for.
func TestKernelRelease(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		f, err := Open(dwarftest.NeedCorpus(t, arch+"/vmlinux"))
		if err != nil {
			t.Fatal(err)
		}
		rel, ok := f.KernelRelease()
		f.Close()
		if want := corpusRelease(t, arch); !ok || rel != want {
			t.Errorf("%s: KernelRelease = %q, %v; want %q", arch, rel, ok, want)
		}
	}
}
