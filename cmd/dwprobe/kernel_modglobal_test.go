package main

import (
	"debug/elf"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs/qemutest"
)

// modGlobalSpec reads fat_get_cluster's __func__ (gcc's __func__.2 in
// fat.ko, a name the vmlinux has hundreds of and the module twice): the
// kernel looks @__func__.2 up in the vmlinux first, so dwprobe reads it
// through a symbol of the same section unique in the module.
const modGlobalSpec = "jm_func=fat_get_cluster __func__:string"

// The booted check of modGlobalSpec is in TestQEMUForms73's boots of
// 7.3 (amd64 and arm64), to spend no boot of its own: vfat and fat are
// loaded, a file is written and read on a vfat image, and every hit of
// fat_get_cluster must read its own name through the anchor
// (checkModGlobal).

// modGlobalWorkload makes fat_get_cluster run: a vfat on a loop device,
// a file written, the volume mounted again and the file read.
const modGlobalWorkload = `set -e
truncate -s 2M /tmp/fat.img
losetup /dev/loop0 /tmp/fat.img
mkdosfs /dev/loop0 >/dev/null
mkdir -p /mnt/fat
mount -t vfat /dev/loop0 /mnt/fat
dd if=/proc/version of=/mnt/fat/v bs=4k count=1 2>/dev/null
umount /mnt/fat
mount -t vfat /dev/loop0 /mnt/fat
cat /mnt/fat/v >/dev/null
`

// modGlobalDefs are modGlobalSpec's definitions from arch's fat.ko
// debuginfo; none may read @__func__.N, which the kernel finds in the
// vmlinux.
func modGlobalDefs(t *testing.T, arch string) []string {
	t.Helper()
	rel := qemutest.Release(t, arch)
	dbg := dwarftest.NeedCorpus(t, filepath.Join(arch, "dbg", "usr", "lib", "debug", "lib", "modules", rel, "kernel", "fs", "fat", "fat.ko"))
	defs := dwprobeDefs(t, "-m", dbg, "-D", modGlobalSpec)
	for _, d := range defs {
		if strings.Contains(d, "@__func__") {
			t.Fatalf("%s reads @__func__.N, which the kernel finds in the vmlinux", d)
		}
	}
	return defs
}

// checkModGlobal checks the hits of modGlobalSpec's event: each read
// "fat_get_cluster".
func checkModGlobal(t *testing.T, trace []qemutest.Record) {
	t.Helper()
	n := 0
	for _, r := range qemutest.FilterEvent(trace, "probe/jm_func") {
		if n++; n == 1 {
			t.Logf("%s", r.Raw)
		}
		if got := r.Args["__func___string"]; got != `"fat_get_cluster"` {
			t.Errorf("%s: read %s, want \"fat_get_cluster\"", r.Raw, got)
		}
	}
	if n == 0 {
		t.Errorf("no hit of fat_get_cluster:\n%s", qemutest.TraceText(trace))
	}
	t.Logf("%d hits of fat_get_cluster, each read \"fat_get_cluster\"", n)
}

// TestModuleNonUniqueGlobalAnchor: offline, on the corpus's fat.ko of
// every kernel, fat_get_cluster's __func__ is read through a symbol of
// the same section that is once in the module, and the anchor plus the
// offset written is where the module's symbol table puts this unit's
// __func__ (the one fat_get_cluster's name is in).
func TestModuleNonUniqueGlobalAnchor(t *testing.T) {
	for _, arch := range moduleKernels {
		t.Run(arch, func(t *testing.T) {
			mods, _ := filepath.Glob(filepath.Join(dwarftest.CorpusDir(), arch, "dbg/usr/lib/debug/lib/modules/*/kernel/fs/fat/fat.ko"))
			if len(mods) != 1 {
				dwarftest.Skip(t, "corpus: want one fat.ko for %s, have %d (run make corpus)", arch, len(mods))
			}
			defs := dwprobeDefs(t, "-m", mods[0], "-D", modGlobalSpec)
			m := anchorRE.FindStringSubmatch(defs[0])
			if m == nil {
				t.Fatalf("%s: want __func___string=@ANCHOR±OFF:string", defs[0])
			}
			f, err := elf.Open(mods[0])
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			syms, err := f.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			var anchor []elf.Symbol
			for _, s := range syms {
				if s.Name == m[1] {
					anchor = append(anchor, s)
				}
			}
			if len(anchor) != 1 {
				t.Fatalf("%s: anchor %s is %d times in the module, want once", defs[0], m[1], len(anchor))
			}
			off, _ := strconv.ParseInt(m[2], 10, 64)
			at := int64(anchor[0].Value) + off
			found := false
			for _, s := range syms {
				if strings.HasPrefix(s.Name, "__func__.") && s.Section == anchor[0].Section && int64(s.Value) == at {
					b, err := f.Sections[s.Section].Data()
					if err != nil {
						t.Fatal(err)
					}
					if got := string(b[at : at+int64(len("fat_get_cluster"))+1]); got != "fat_get_cluster\x00" {
						t.Errorf("%s: the bytes there are %q, want fat_get_cluster's name", defs[0], got)
					}
					found = true
				}
			}
			if !found {
				t.Errorf("%s: %s%+d is no __func__.N of %s's section", defs[0], m[1], off, m[1])
			}
		})
	}
}

var anchorRE = regexp.MustCompile(`__func___string=@([A-Za-z_][A-Za-z0-9_]*)([+-][0-9]+):string`)
