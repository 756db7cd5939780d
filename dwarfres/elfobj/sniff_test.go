package elfobj

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestOpenNamesNonELF: a file that is not ELF is named for what it is
// (issue 10: "-k vmlinuz" said "bad magic number").
func TestOpenNamesNonELF(t *testing.T) {
	bz := make([]byte, 0x400)
	copy(bz, "MZ")
	copy(bz[0x202:], "HdrS")
	bz[0x20e] = 0x00
	bz[0x20f] = 0x01 // kernel_version at 0x100+0x200
	copy(bz[0x300:], "6.1.0-9-amd64 (debian-kernel@lists.debian.org) #1")
	img := make([]byte, 0x400)
	copy(img[0x38:], "ARM\x64")
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"bzImage", bz, "it is a compressed x86 kernel image (bzImage) of release 6.1.0-9-amd64; probes need the vmlinux with debuginfo (Debian ships it in linux-image-6.1.0-9-amd64-dbg as /usr/lib/debug/boot/vmlinux-6.1.0-9-amd64)"},
		{"Image", img, "it is an arm64 kernel boot image"},
		{"gzip", append([]byte{0x1f, 0x8b, 8, 0}, make([]byte, 100)...), "it is a gzip-compressed file"},
		{"zstd", append([]byte{0x28, 0xb5, 0x2f, 0xfd}, make([]byte, 100)...), "it is a zstd-compressed file"},
		{"text", []byte(strings.Repeat("int main(void) { return 0; }\n", 4)), "it is a text file"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name)
			if err := os.WriteFile(p, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Open(p)
			if !errors.Is(err, ErrNotELF) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Open: %v, want ErrNotELF with %q", err, c.want)
			}
		})
	}
}

// TestOpenCorpusVmlinuz: Debian's own boot images, with the release.
func TestOpenCorpusVmlinuz(t *testing.T) {
	p := dwarftest.NeedCorpus(t, "amd64/vmlinuz")
	_, err := Open(p)
	if err == nil || !strings.Contains(err.Error(), "bzImage) of release 6.1.0-") || !strings.Contains(err.Error(), "/usr/lib/debug/boot/vmlinux-6.1.0-") {
		t.Errorf("Open(vmlinuz): %v", err)
	}
	p = dwarftest.NeedCorpus(t, "arm64/vmlinuz")
	if _, err := Open(p); err == nil || !strings.Contains(err.Error(), "arm64 kernel boot image") {
		t.Errorf("Open(arm64 vmlinuz): %v", err)
	}
}
