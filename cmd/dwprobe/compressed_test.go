package main

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestCorruptCompressedDebugInfo: a .debug_info compressed by objcopy
// (zlib, zstd) whose stream is damaged is corrupt debuginfo, exit 4
// naming the section; it was taken for none ("probe point not found",
// exit 3).
func TestCorruptCompressedDebugInfo(t *testing.T) {
	objcopy := dwarftest.NeedTool(t, "objcopy")
	for _, z := range []string{"zlib", "zstd"} {
		p := filepath.Join(t.TempDir(), "app")
		out, err := exec.Command(objcopy, "--compress-debug-sections="+z, fixture(t, "app-gcc-O0-dwarf5"), p).CombinedOutput()
		if err != nil {
			dwarftest.Skip(t, "objcopy --compress-debug-sections=%s: %v: %s", z, err, out)
		}
		damageCompressedInfo(t, p, 0o755)
		_, errs, code := runBin(t, "-x", p, "--no-index", "-D", "work")
		if code != exitInput || !strings.Contains(errs, ".debug_info") {
			t.Errorf("%s .debug_info damaged: exit %d, %q; want exit %d naming .debug_info", z, code, errs, exitInput)
		}
	}
}

// TestCorruptCompressedSeparateDebuginfo: separate debuginfo (found by
// build-id) whose compressed .debug_info does not decode is corrupt, exit
// 4 naming the file and the section; it was "no debuginfo covers it",
// exit 3.
func TestCorruptCompressedSeparateDebuginfo(t *testing.T) {
	objcopy := dwarftest.NeedTool(t, "objcopy")
	split, id, debug := dwarftest.SplitDebug(t, filepath.Dir(fixture(t, "app-gcc-O2-dwarf5")))
	noLocalDebuginfo(t)
	tree := t.TempDir()
	dst := filepath.Join(tree, ".build-id", id[:2], id[2:]+".debug")
	os.MkdirAll(filepath.Dir(dst), 0o755)
	if out, err := exec.Command(objcopy, "--compress-debug-sections=zlib", debug, dst).CombinedOutput(); err != nil {
		dwarftest.Skip(t, "objcopy --compress-debug-sections=zlib: %v: %s", err, out)
	}
	damageCompressedInfo(t, dst, 0o644)
	t.Setenv("DWPROBE_DEBUGINFO_PATH", tree)
	_, _, err := dw("-x", split, "--no-index", "-V", "work")
	if err == nil || exitCode(err) != exitInput || !strings.Contains(err.Error(), dst+": malformed .debug_info") {
		t.Errorf("-V work with corrupt compressed separate debuginfo: %v (exit %d); want exit %d naming %s and .debug_info", err, exitCode(err), exitInput, dst)
	}
}

// damageCompressedInfo flips the bytes of path's SHF_COMPRESSED
// .debug_info past its header and the stream's head, so that it no longer
// decompresses.
func damageCompressedInfo(t *testing.T, path string, perm os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	s := ef.Section(".debug_info")
	if s == nil || s.Flags&elf.SHF_COMPRESSED == 0 {
		dwarftest.Skip(t, "objcopy left %s's .debug_info uncompressed", path)
	}
	for i := s.Offset + 24 + 8; i < s.Offset+s.FileSize; i++ { // past the Chdr and the stream's head
		b[i] ^= 0x5a
	}
	if err := os.WriteFile(path, b, perm); err != nil {
		t.Fatal(err)
	}
}
