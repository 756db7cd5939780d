package qemutest

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/ulikunitz/xz"
)

// Release returns the release of the corpus kernel for arch (uname -r in
// its guest): the one directory under lib/modules of its image package.
func Release(t testing.TB, arch string) string {
	t.Helper()
	dirs, err := os.ReadDir(dwarftest.NeedCorpus(t, filepath.Join(arch, "image", "lib", "modules")))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) != 1 {
		t.Fatalf("%d releases in the %s image's lib/modules, want 1", len(dirs), arch)
	}
	return dirs[0].Name()
}

// Modules puts kernel modules of the corpus image for arch into a guest:
// it returns extra files for Boot (guest path -> host path) holding the
// named modules and every module they depend on under
// /lib/modules/RELEASE/kernel as the image has them, the modules.dep (and
// the other indexes) that depmod makes for exactly those modules, so that
// busybox modprobe loads the dependencies first and dwprobe finds a module
// by name, and, for the modules named in debug, their debuginfo from the
// corpus's -dbg package under /usr/lib/debug/lib/modules/RELEASE, where
// the running kernel's module debuginfo is looked for. Compressed modules
// (6.12's .ko.xz) are staged decompressed, as .ko: busybox modprobe loads
// them with init_module, which takes only ELF.
func Modules(t testing.TB, arch string, names, debug []string) map[string]string {
	t.Helper()
	dwarftest.NeedTool(t, "depmod")
	rel := Release(t, arch)
	image := dwarftest.NeedCorpus(t, filepath.Join(arch, "image", "lib", "modules", rel))
	index, err := moduleIndex(filepath.Join(image, "kernel"))
	if err != nil {
		t.Fatal(err)
	}
	need, err := moduleClosure(image, index, names)
	if err != nil {
		t.Fatal(err)
	}
	stage := t.TempDir()
	modDir := filepath.Join(stage, "lib", "modules", rel)
	extra := map[string]string{}
	for _, m := range need {
		ko := plainModule(index[m])
		staged := filepath.Join(modDir, ko)
		if err := stageModule(filepath.Join(image, index[m]), staged); err != nil {
			t.Fatal(err)
		}
		extra[path.Join("/lib/modules", rel, ko)] = staged
	}
	if out, err := exec.Command("depmod", "-b", stage, rel).CombinedOutput(); err != nil {
		t.Fatalf("depmod -b %s %s: %v\n%s", stage, rel, err, out)
	}
	idx, _ := filepath.Glob(filepath.Join(modDir, "modules.*"))
	for _, f := range idx {
		extra[path.Join("/lib/modules", rel, filepath.Base(f))] = f
	}
	for _, m := range debug {
		if index[m] == "" {
			t.Fatalf("no module %s in %s", m, image)
		}
		rp := filepath.Join("usr", "lib", "debug", "lib", "modules", rel, plainModule(index[m]))
		extra["/"+filepath.ToSlash(rp)] = dwarftest.NeedCorpus(t, filepath.Join(arch, "dbg", rp))
	}
	return extra
}

// ModName returns a module's name as modules.dep and the kernel know it:
// the file name without .ko (or .ko.xz), with '-' read as '_'.
func ModName(file string) string {
	return strings.ReplaceAll(strings.TrimSuffix(plainModule(path.Base(file)), ".ko"), "-", "_")
}

// plainModule returns the name of module file once decompressed.
func plainModule(file string) string { return strings.TrimSuffix(file, ".xz") }

// readModule returns the ELF bytes of module file, decompressing a .ko.xz.
func readModule(file string) ([]byte, error) {
	data, err := os.ReadFile(file)
	if err != nil || !strings.HasSuffix(file, ".xz") {
		return data, err
	}
	r, err := xz.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if data, err = io.ReadAll(r); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return data, nil
}

// moduleIndex maps each module under dir (.ko or .ko.xz) to its path
// relative to dir's parent (kernel/fs/...), by ModName.
func moduleIndex(dir string) (map[string]string, error) {
	index := map[string]string{}
	parent := filepath.Dir(dir)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(plainModule(p), ".ko") {
			return err
		}
		r, err := filepath.Rel(parent, p)
		index[ModName(p)] = filepath.ToSlash(r)
		return err
	})
	return index, err
}

// moduleClosure returns names and the modules they depend on, through the
// depends= of each one's .modinfo, sorted.
func moduleClosure(root string, index map[string]string, names []string) ([]string, error) {
	seen := map[string]bool{}
	todo := append([]string(nil), names...)
	for len(todo) > 0 {
		m := ModName(todo[len(todo)-1])
		todo = todo[:len(todo)-1]
		if seen[m] {
			continue
		}
		if index[m] == "" {
			return nil, fmt.Errorf("no module %s under %s", m, root)
		}
		seen[m] = true
		deps, err := moduleDepends(filepath.Join(root, index[m]))
		if err != nil {
			return nil, err
		}
		todo = append(todo, deps...)
	}
	out := make([]string, 0, len(seen))
	for m := range seen {
		out = append(out, m)
	}
	sort.Strings(out)
	return out, nil
}

// moduleDepends returns the modules file depends on: the depends= entry of
// its .modinfo section (NUL-separated key=value strings).
func moduleDepends(file string) ([]string, error) {
	b, err := readModule(file)
	if err != nil {
		return nil, err
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	sec := f.Section(".modinfo")
	if sec == nil {
		return nil, fmt.Errorf("%s: no .modinfo section", file)
	}
	data, err := sec.Data()
	if err != nil {
		return nil, fmt.Errorf("%s: .modinfo: %w", file, err)
	}
	for _, kv := range bytes.Split(data, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("depends=")); ok && len(v) > 0 {
			return strings.Split(string(v), ","), nil
		}
	}
	return nil, nil
}

// stageModule copies module src to dst, decompressed, making dst's
// directory.
func stageModule(src, dst string) error {
	data, err := readModule(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}
