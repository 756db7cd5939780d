package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs"
)

// TestBTFRawBlobMachine: a raw BTF blob names no machine. Alone it is
// taken for the host's, and the note names it; with -k the vmlinux's
// machine is used (the arm64 image's blob writes %x registers).
func TestBTFRawBlobMachine(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "arm64/vmlinux")
	blob := filepath.Join(t.TempDir(), "vmlinux.btf")
	rawBTF(t, vml, blob)
	spec := "vfs_read count"
	_, errs, code := runBin(t, "--btf", blob, "-D", spec)
	host := tracefs.MachineName(tracefs.HostDialect().Machine)
	if code != 0 || !strings.Contains(errs, "taken for the running kernel's machine, "+host+", and version") {
		t.Errorf("raw blob alone: exit %d, want a note naming %s:\n%s", code, host, errs)
	}
	out, errs, code := runBin(t, "--btf", blob, "-k", vml, "-D", spec)
	if want := "p:probe/vfs_read vfs_read+8 count=%x2:x64\n"; code != 0 || out != want {
		t.Errorf("raw blob with -k: exit %d\n%s\nwant %s%s", code, out, want, errs)
	}
}
