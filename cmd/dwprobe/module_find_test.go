package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// modCorpus is one arch's corpus as -m sees it: the image's stripped
// modules (with the modules.dep corpus.sh makes), the -dbg package's
// debuginfo, the vmlinux and its release.
type modCorpus struct {
	image, dbg, vmlinux, release string
}

// overlay is the image's stripped overlay.ko.
func (c modCorpus) overlay() string {
	return filepath.Join(c.image, "lib/modules", c.release, "kernel/fs/overlayfs/overlay.ko")
}

// needModCorpus returns arch's corpus with DWPROBE_DEBUGINFO_PATH naming
// its debuginfo tree, or skips.
func needModCorpus(t *testing.T, arch string) modCorpus {
	t.Helper()
	c := modCorpus{
		image:   dwarftest.NeedCorpus(t, arch+"/image"),
		dbg:     dwarftest.NeedCorpus(t, arch+"/dbg/usr/lib/debug"),
		vmlinux: dwarftest.NeedCorpus(t, arch+"/vmlinux"),
	}
	es, err := os.ReadDir(filepath.Join(c.image, "lib/modules"))
	if err != nil || len(es) != 1 {
		t.Fatalf("%s image: %d module releases, %v", arch, len(es), err)
	}
	c.release = es[0].Name()
	dwarftest.NeedCorpus(t, filepath.Join(arch, "image/lib/modules", c.release, "modules.dep"))
	t.Setenv("DWPROBE_DEBUGINFO_PATH", c.dbg)
	return c
}

// ovlSpec is the example; perf 6.1 prints ovlDef for it on the
// amd64 module.
const (
	ovlSpec = "ovl_lookup:8 dentry->d_name.name:string"
	ovlDef  = "p:probe/ovl_lookup_L8 overlay:ovl_lookup+131 name=+0(+40(%r9)):string\n"
)

// TestModuleForms: -m by name (modules.dep under --symfs, the release
// of -k's vmlinux, '-' as '_'), by the stripped module's path (debuginfo
// from the -dbg tree), by the -dbg file itself and compressed each way
// all give the definitions perf gives, on both arches.
func TestModuleForms(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		c := needModCorpus(t, arch)
		want := ovlDef
		if arch != "amd64" {
			out, _, err := dw("-m", c.overlay(), "-D", ovlSpec)
			if err != nil || !strings.HasPrefix(out, "p:probe/ovl_lookup_L8 overlay:ovl_lookup+") {
				t.Fatalf("%s: -m PATH: %q, %v", arch, out, err)
			}
			want = out
		}
		dir := t.TempDir()
		forms := [][]string{
			{"--symfs", c.image, "-k", c.vmlinux, "-m", "overlay"},
			{"-m", c.overlay()},
			{"-m", filepath.Join(c.dbg, "lib/modules", c.release, "kernel/fs/overlayfs/overlay.ko")},
			{"-k", c.vmlinux, "-m", c.overlay()},
		}
		plain, err := os.ReadFile(c.overlay())
		if err != nil {
			t.Fatal(err)
		}
		for ext, z := range compressed(t, plain) {
			p := filepath.Join(dir, "overlay.ko."+ext)
			os.WriteFile(p, z, 0o644)
			forms = append(forms, []string{"-m", p})
		}
		for _, f := range forms {
			out, stderr, err := dw(append(f, "-D", ovlSpec)...)
			if err != nil || out != want {
				t.Errorf("%s: %q:\n%s%s%v; want\n%s", arch, f, out, stderr, err, want)
			}
		}
		out, _, err := dw("--symfs", c.image, "-k", c.vmlinux, "-m", "nf-tables", "-F", "nft_trans_*")
		if err != nil || !strings.Contains(out, "nft_trans_alloc_gfp\n") {
			t.Errorf("%s: -m nf-tables -F: %q, %v", arch, out, err)
		}
	}
}

// compressed is b compressed as modules are installed, by suffix.
func compressed(t *testing.T, b []byte) map[string][]byte {
	out := map[string][]byte{}
	for _, ext := range dwarftest.CompressExts {
		out[ext] = dwarftest.Compress(t, ext, b)
	}
	return out
}

// TestModuleBadInput: each bad module input is one line naming what is
// wrong and where, with exit status 4, and no panic.
func TestModuleBadInput(t *testing.T) {
	c := needModCorpus(t, "amd64")
	arm := filepath.Join(dwarftest.NeedCorpus(t, "arm64/image/lib/modules"), "*/kernel/fs/overlayfs/overlay.ko")
	armMods, _ := filepath.Glob(arm)
	if len(armMods) != 1 {
		t.Fatalf("%s: %d files", arm, len(armMods))
	}
	plain, err := os.ReadFile(c.overlay())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	z := compressed(t, plain)
	trunc := filepath.Join(dir, "overlay.ko.xz")
	os.WriteFile(trunc, z["xz"][:len(z["xz"])/2], 0o644)
	corrupt := filepath.Join(dir, "overlay.ko.zst")
	zc := append([]byte(nil), z["zst"]...)
	for i := len(zc) / 4; i < len(zc)/2; i++ {
		zc[i] ^= 0xa5
	}
	os.WriteFile(corrupt, zc, 0o644)
	noDbg := t.TempDir()
	for _, tc := range []struct {
		name string
		env  string // DWPROBE_DEBUGINFO_PATH, when not the corpus's
		args []string
		want []string
	}{
		{"another release", "", []string{"-k", c.vmlinux, "-m", armMods[0]},
			[]string{armMods[0], "another kernel release", "vermagic is " + dwarftest.CorpusRelease(t, "arm64"), c.vmlinux + " is " + c.release}},
		{"no such module", "", []string{"--symfs", c.image, "-k", c.vmlinux, "-m", "no-such"},
			[]string{"no_such: module not found for kernel " + c.release, "looked in " + filepath.Join(c.image, "lib/modules", c.release, "modules.dep")}},
		{"built in", "", []string{"--symfs", c.image, "-k", c.vmlinux, "-m", "ext4"},
			[]string{"ext4", "built into kernel " + c.release}},
		{"no debuginfo", noDbg, []string{"-m", c.overlay()},
			[]string{c.overlay(), "no DWARF debuginfo", "tried " + noDbg + "/.build-id/", filepath.Join(noDbg, "lib/modules", c.release, "kernel/fs/overlayfs/overlay.ko")}},
		{"truncated xz", "", []string{"-m", trunc}, []string{trunc, "corrupt compressed file (xz): truncated"}},
		{"corrupt zstd", "", []string{"-m", corrupt}, []string{corrupt, "corrupt compressed file (zstd)"}},
		{"not a module", "", []string{"-m", c.vmlinux}, []string{c.vmlinux, "not a kernel module"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("DWPROBE_DEBUGINFO_PATH", tc.env)
				t.Setenv("PERF_BUILDID_DIR", tc.env) // not the host's ~/.debug
			}
			_, _, err := dw(append(tc.args, "-D", "ovl_lookup")...)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not say %q", msg, w)
				}
			}
			if strings.Contains(msg, "\n") || exitCode(err) != exitInput {
				t.Errorf("error %q: exit %d, want one line and %d", msg, exitCode(err), exitInput)
			}
		})
	}
}

// TestModuleLive: -a, -l and -d on a module's probes through the fake
// kernel: -a writes MODULE:SYMBOL+OFFS (the module found by name for the
// running kernel's release), -l maps it back to the module's source line,
// -d removes it; -a refuses a module of another release than the running
// kernel's, or another build than the one loaded, writing nothing.
func TestModuleLive(t *testing.T) {
	c := needModCorpus(t, "amd64")
	_, k := fakeTracefs(t)
	old := runningRelease
	t.Cleanup(func() { runningRelease = old })
	runningRelease = func() string { return c.release }

	// perf's set_target: an absolute path ending in .ko first is -m.
	out, _, err := dw("-n", c.overlay(), "ovl_lookup:8", "dentry->d_name.name:string")
	if err != nil || out != ovlDef {
		t.Errorf("-n MODULE.ko PROBE: %q, %v", out, err)
	}
	_, stderr, err := dw("--symfs", c.image, "-m", "overlay", "-a", ovlSpec)
	if err != nil {
		t.Fatalf("-a: %v\n%s", err, stderr)
	}
	if got := eventWrites(k, "kprobe_events"); len(got) != 1 || got[0]+"\n" != ovlDef {
		t.Errorf("-a wrote %q, want %q", got, ovlDef)
	}
	if want := "probe:ovl_lookup_L8  (on ovl_lookup:8 in overlay with name=dentry->d_name.name:string)"; !strings.Contains(stderr, want) {
		t.Errorf("-a said:\n%s\nwant %q", stderr, want)
	}
	out, stderr, err = dw("--symfs", c.image, "-l")
	want := "  probe:ovl_lookup_L8  (on ovl_lookup:8@fs/overlayfs/namei.c in overlay with name)\n"
	if err != nil || out != want {
		t.Errorf("-l:\n%s%s%v\nwant\n%s", out, stderr, err, want)
	}
	runningRelease = func() string { return "6.1.0-99-cloud-amd64" }
	out, stderr, err = dw("-l")
	if want := "  probe:ovl_lookup_L8  (on ovl_lookup+131 in overlay with name)\n"; err != nil || out != want || !strings.Contains(stderr, "module not found") {
		t.Errorf("-l without the module:\n%s%s%v\nwant\n%s", out, stderr, err, want)
	}
	_, _, err = dw("-m", c.overlay(), "-a", "other=ovl_lookup")
	if !errors.Is(err, dwarfres.ErrRelease) || !strings.Contains(err.Error(), "vermagic is "+c.release+", the running kernel is 6.1.0-99-cloud-amd64") {
		t.Errorf("-a of another release: %v", err)
	}
	if got := eventWrites(k, "kprobe_events"); len(got) != 0 {
		t.Errorf("-a of another release wrote %q", got)
	}
	runningRelease = func() string { return c.release }
	oldLoaded := loadedModuleBuildID
	t.Cleanup(func() { loadedModuleBuildID = oldLoaded })
	loadedModuleBuildID = func(name string) string {
		if name != "overlay" {
			t.Errorf("loaded build-id of %q asked for", name)
		}
		return "0123"
	}
	_, _, err = dw("-m", c.overlay(), "-a", "other=ovl_lookup")
	if !errors.Is(err, dwarfres.ErrRelease) || !strings.Contains(err.Error(), "is not the module overlay the running kernel loaded (build-id "+buildIDOf(t, c.overlay())+", loaded 0123)") {
		t.Errorf("-a of a module other than the loaded one: %v", err)
	}
	if got := eventWrites(k, "kprobe_events"); len(got) != 0 {
		t.Errorf("-a of a module other than the loaded one wrote %q", got)
	}
	defs := filepath.Join(t.TempDir(), "defs")
	os.WriteFile(defs, []byte(strings.Replace(ovlDef, "ovl_lookup_L8", "applied", 1)), 0o644)
	if _, stderr, err := dw("--apply", defs); err != nil {
		t.Errorf("--apply of a module's definition: %v\n%s", err, stderr)
	}
	_, stderr, err = dw("-d", "probe:applied")
	if err != nil || stderr != "Removed event: probe:applied\n" {
		t.Errorf("-d probe:applied: %q, %v", stderr, err)
	}
	_, stderr, err = dw("-d", "probe:ovl_*")
	if err != nil || stderr != "Removed event: probe:ovl_lookup_L8\n" || k.File("kprobe_events") != "" {
		t.Errorf("-d: %q, %v; kprobe_events %q", stderr, err, k.File("kprobe_events"))
	}
}
