package main

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/btf"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen"
)

// btfModules are the Debian image's modules the module cross-check
// samples, by path under kernel/.
var btfModules = []string{"fs/overlayfs/overlay.ko", "fs/xfs/xfs.ko", "fs/fat/fat.ko"}

// imageModule is the stripped module rel (under kernel/) of the Debian
// image for arch, as installed (no DWARF, a .BTF section).
func imageModule(t *testing.T, arch, rel string) string {
	return dwarftest.NeedCorpus(t, arch+"/image/lib/modules/"+dwarftest.CorpusRelease(t, arch)+"/kernel/"+rel)
}

// TestBTFModuleAgreesWithDWARF is issue 16's cross-check for modules: the
// stripped image module's .BTF, split on the vmlinux's, with its own
// symbols, gives for "FUNC p1 p2... p->first p->last" the definitions
// the -dbg module's DWARF gives, wherever DWARF puts every parameter in
// its ABI register at the entry.
func TestBTFModuleAgreesWithDWARF(t *testing.T) {
	for _, c := range []struct {
		arch         string
		sample, want int
	}{{"amd64", 40, 100}, {"arm64", 20, 45}} {
		t.Run(c.arch, func(t *testing.T) {
			vml, err := dwarfres.Open(dwarftest.NeedCorpus(t, c.arch+"/vmlinux"))
			if err != nil {
				t.Fatal(err)
			}
			defer vml.Close()
			base, err := btf.FromFile(btf.ELF{Object: vml.Object, Image: vml.Image})
			if err != nil {
				t.Fatal(err)
			}
			agree, eligible, differ := 0, 0, []string{}
			for _, rel := range btfModules {
				a, e, d := crossModule(t, c.arch, rel, base, c.sample/len(btfModules)+1)
				agree, eligible, differ = agree+a, eligible+e, append(differ, d...)
			}
			t.Logf("%s: %d of %d module functions whose parameters DWARF puts in their ABI registers agree", c.arch, agree, eligible)
			if len(differ) > 0 {
				t.Errorf("module BTF and DWARF disagree:\n%s", strings.Join(differ, "\n"))
			}
			if agree < c.want {
				t.Errorf("only %d module functions agree, want at least %d", agree, c.want)
			}
		})
	}
}

// crossModule cross-checks about n functions of module rel: how many
// agree, how many were eligible, and the disagreements.
func crossModule(t *testing.T, arch, rel string, base *btf.Types, n int) (agree, eligible int, differ []string) {
	img, err := dwarfres.OpenModuleFile(imageModule(t, arch, rel), "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	dbg, err := dwarfres.Open(debianModule(t, arch, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer dbg.Close()
	types, err := btf.SplitFromFile(btf.ELF{Object: img.Object, Image: img.Image}, base)
	if err != nil {
		t.Fatal(err)
	}
	k := &probegen.BTFTarget{Types: types, Machine: img.Machine, Major: base.Major, Minor: base.Minor,
		Syms: btf.ELFSyms{F: btf.ELF{Object: img.Object, Image: img.Image}}, Module: img.ModuleName()}
	for _, fn := range btfSample(types, n*3) {
		spec, nparams, ok := btfCrossSpec(types, fn)
		if !ok {
			continue
		}
		dw, bt := crossDefs(t, dbg, k, spec)
		// notEligible looks for the vmlinux's " FUNC+": no "MODULE:".
		if why := notEligible(strings.ReplaceAll(dw, " "+k.Module+":", " "), bt, fn, nparams); why != "" {
			if strings.HasPrefix(why, "BTF refuses") {
				t.Errorf("%s %s: %q: DWARF %s\nBTF %s", arch, rel, spec, dw, bt)
			}
			continue
		}
		eligible++
		if dw != bt {
			differ = append(differ, fmt.Sprintf("%s %s: %q\n\tDWARF: %s\n\tBTF:   %s", arch, filepath.Base(rel), spec, dw, bt))
			continue
		}
		agree++
	}
	return agree, eligible, differ
}

// TestBTFModuleCLI is -m on a stripped module with no debuginfo to be
// found: the definitions come from its .BTF on the -k vmlinux's, equal
// the -dbg module's, and the note says where the types come from.
func TestBTFModuleCLI(t *testing.T) {
	t.Setenv("DWPROBE_DEBUGINFO_PATH", "")
	t.Setenv("PERF_BUILDID_DIR", t.TempDir()) // not the host's ~/.debug
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	img := imageModule(t, "amd64", "fs/overlayfs/overlay.ko")
	dbg := debianModule(t, "amd64", "fs/overlayfs/overlay.ko")
	spec := "ovl_lookup dentry->d_name.name:string dir flags"
	want, _, code := runBin(t, "-k", vml, "-m", dbg, "-D", spec)
	if code != 0 || !strings.HasPrefix(want, "p:probe/ovl_lookup overlay:ovl_lookup+0 ") {
		t.Fatalf("DWARF: exit %d: %s", code, want)
	}
	out, errs, code := runBin(t, "-k", vml, "-m", img, "-D", spec)
	note := "note: no debuginfo for the module " + img + ": from BTF (" + vml + "'s .BTF; the module's from " + img + "'s .BTF with its symbols)"
	if code != 0 || out != want || !strings.Contains(errs, note) {
		t.Errorf("BTF: exit %d\n%s\nwant %s%s", code, out, want, errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-D", "ovl_read_iter%return $retval"}, "r:probe/ovl_read_iter__return overlay:ovl_read_iter+0 $retval:s64\n"},
		{[]string{"-V", "ovl_lookup"}, "\t@<ovl_lookup+0> from BTF: the parameters at the entry\n\t\tstruct dentry*\tdentry\n\t\tstruct inode*\tdir\n\t\tunsigned int\tflags\n"},
		{[]string{"-F", "ovl_looku?"}, "ovl_lookup\n"},
		{[]string{"--btf", vml, "-D", "ovl_lookup flags"}, "p:probe/ovl_lookup overlay:ovl_lookup+0 flags=%dx:x32\n"},
	} {
		out, errs, code := runBin(t, append([]string{"-k", vml, "-m", img}, c.args...)...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%q: exit %d\n%s\nwant %s%s", c.args, code, out, c.want, errs)
		}
	}
	_, errs, code = runBin(t, "-k", vml, "-m", img, "-D", "ovl_lookup:3")
	if code != exitUnresolved || !strings.Contains(errs, "BTF has no source lines") {
		t.Errorf("a line: exit %d, want %d: %s", code, exitUnresolved, errs)
	}
}

// TestBTFModuleRunning is -m for the running kernel without -k: the
// module's BTF is /sys/kernel/btf/MODULE, split on /sys/kernel/btf/vmlinux
// (here the arm64 image's, extracted raw into a directory standing for
// /sys/kernel/btf), and the machine is the module's, not the host's.
func TestBTFModuleRunning(t *testing.T) {
	t.Setenv("DWPROBE_DEBUGINFO_PATH", "")
	t.Setenv("PERF_BUILDID_DIR", t.TempDir())
	img := imageModule(t, "arm64", "fs/overlayfs/overlay.ko")
	dir := t.TempDir()
	rawBTF(t, dwarftest.NeedCorpus(t, "arm64/vmlinux"), filepath.Join(dir, "vmlinux"))
	rawBTF(t, img, filepath.Join(dir, "overlay"))
	defer func(p string) { runningBTFPath = p }(runningBTFPath)
	runningBTFPath = filepath.Join(dir, "vmlinux")
	out, errs, err := dw("-m", img, "-D", "ovl_lookup dentry->d_name.name:string flags")
	want := "p:probe/ovl_lookup overlay:ovl_lookup+8 name=+0(+40(%x1)):string flags=%x2:x32\n"
	note := "the module's from " + filepath.Join(dir, "overlay") + " with " + img + "'s symbols"
	if err != nil || out != want || !strings.Contains(errs, note) {
		t.Errorf("%v\n%s\nwant %s%s", err, out, want, errs)
	}
}

// rawBTF writes path's .BTF section, raw, to out.
func rawBTF(t *testing.T, path, out string) {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sec := f.Section(".BTF")
	if sec == nil {
		t.Fatalf("%s: no .BTF", path)
	}
	b, err := sec.Data()
	if err == nil {
		err = os.WriteFile(out, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}
